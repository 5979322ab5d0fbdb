// The near-miss rule (isNearMiss): a name another was likely meant to be, for push and apply to
// name before they create a second deployment.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { closest, isNearMiss } from "./did-you-mean.js";

const LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS = "0123456789";
const letter = fc.constantFrom(...LETTERS);
const digit = fc.constantFrom(...DIGITS);
const nonDigit = fc.constantFrom(...LETTERS, "-", "_", ".");
const name = fc.string({ unit: fc.constantFrom(...LETTERS, ...DIGITS, "-"), minLength: 1, maxLength: 24 });

/** `text` with `insert` put at `at` after `remove` characters are taken out there. */
function splice(text: string, at: number, remove: number, insert: string): string {
  return text.slice(0, at) + insert + text.slice(at + remove);
}

describe("isNearMiss", () => {
  it("says so for a case, a typo, a missing or extra letter; never for numbers or two edits", () => {
    for (const [a, b] of [
      ["weather", "Weather"],
      ["weather", "WEATHER"],
      ["weather", "weathr"],
      ["weather", "weathers"],
      ["weather", "wezther"],
      ["agent-1", "agent-l"],
      ["my-agent", "my_agent"],
      ["Weather", "weathers"],
    ])
      expect([a, b, isNearMiss(a!, b!)]).toEqual([a, b, true]);
    for (const [a, b] of [
      ["weather", "weather"],
      ["my-agent-pr-1", "my-agent-pr-2"],
      ["my-agent-pr-1", "my-agent-pr-12"],
      ["agent-1", "agent-2"],
      ["agent", "agent2"],
      ["weather", "whether"],
      ["weather", "feather-2"],
      ["api", "web"],
    ])
      expect([a, b, isNearMiss(a!, b!)]).toEqual([a, b, false]);
  });

  it("is never true of a name and itself, and goes both ways", () => {
    fc.assert(fc.property(name, (a) => !isNearMiss(a, a)));
    fc.assert(fc.property(name, name, (a, b) => isNearMiss(a, b) === isNearMiss(b, a)));
  });

  it("is true of any other spelling of the name in another case", () => {
    fc.assert(
      fc.property(name, fc.array(fc.boolean(), { minLength: 24, maxLength: 24 }), (a, flips) => {
        const other = [...a]
          .map((c, i) => (flips[i] ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c))
          .join("");
        fc.pre(other !== a);
        return isNearMiss(a, other);
      }),
    );
  });

  it("is true of one character inserted, removed or replaced, unless a digit for a digit", () => {
    const edit = fc.record({
      at: fc.nat(),
      kind: fc.constantFrom("insert", "remove", "replace"),
      c: nonDigit,
    });
    fc.assert(
      fc.property(name, edit, (a, { at, kind, c }) => {
        const i = at % (a.length + (kind === "insert" ? 1 : 0));
        fc.pre(kind === "insert" || !(DIGITS.includes(a[i]!) && kind === "remove"));
        const other = kind === "insert" ? splice(a, i, 0, c) : splice(a, i, 1, kind === "remove" ? "" : c);
        fc.pre(other !== a && other !== "");
        return isNearMiss(a, other);
      }),
    );
  });

  it("is false of a difference only in digits: one inserted, removed or replaced by another", () => {
    const edit = fc.record({ at: fc.nat(), kind: fc.constantFrom("insert", "remove", "replace"), d: digit });
    fc.assert(
      fc.property(name, edit, (a, { at, kind, d }) => {
        const digits = [...a].flatMap((c, i) => (DIGITS.includes(c) ? [i] : []));
        if (kind === "insert") return !isNearMiss(a, splice(a, at % (a.length + 1), 0, d));
        fc.pre(digits.length > 0);
        const i = digits[at % digits.length]!;
        const other = splice(a, i, 1, kind === "remove" ? "" : d);
        fc.pre(other !== "");
        return !isNearMiss(a, other);
      }),
    );
  });

  it("is false of two letters replaced apart from each other", () => {
    fc.assert(
      fc.property(name, fc.nat(), fc.nat(), letter, letter, (a, x, y, c1, c2) => {
        fc.pre(a.length >= 3);
        const i = x % a.length;
        const j = (i + 2 + (y % (a.length - 2))) % a.length;
        fc.pre(Math.abs(i - j) >= 2);
        fc.pre(a[i]!.toLowerCase() !== c1.toLowerCase() && a[j]!.toLowerCase() !== c2.toLowerCase());
        const other = splice(splice(a, i, 1, c1), j, 1, c2);
        return !isNearMiss(a, other);
      }),
    );
  });
});

describe("closest", () => {
  it("offers the nearest candidate within reach, whatever the case", () => {
    expect(closest("Profiels", ["profiles", "defaultProfile"])).toBe("profiles");
    expect(closest("zzz", ["profiles"])).toBeNull();
  });
});
