import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { displayWidth, ELLIPSIS, padEnd, shorten } from "./text-width.js";

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe("displayWidth", () => {
  test.each([
    ["", 0],
    ["my-agent", 8],
    ["\\x1b[31m", 8], // a control character as `visible` shows it: plain ASCII
    ["日本語", 6],
    ["ｆｕｌｌ", 8],
    ["🚀 go", 5],
    ["e\u0301", 1], // e and a combining acute accent
    ["a\u200bb", 2], // a zero-width space
    ["✔︎", 1], // a text-style check mark with its variation selector
    ["…", 1],
  ])("%j takes %i columns", (text, width) => {
    expect(displayWidth(text)).toBe(width);
  });
});

describe("shorten", () => {
  test("leaves text that fits as it is", () => {
    expect(shorten("my-agent", 8)).toBe("my-agent");
    expect(shorten("日本", 4)).toBe("日本");
  });

  test("keeps the beginning and ends with an ellipsis, within the width", () => {
    expect(shorten("support-agent-production", 10)).toBe("support-a…");
    expect(shorten("日本語の名前", 7)).toBe("日本語…");
    expect(shorten("日本語の名前", 6)).toBe("日本…"); // a wide character does not fit in one column
    expect(shorten("anything", 1)).toBe(ELLIPSIS);
    expect(shorten("anything", 0)).toBe("");
  });

  test("never splits a surrogate pair, and never goes over the width", () => {
    expect(shorten("ab🚀🚀🚀", 5)).toBe("ab🚀…");
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 30 }),
        fc.integer({ min: 1, max: 40 }),
        (text, width) => {
          const short = shorten(text, width);
          expect(displayWidth(short)).toBeLessThanOrEqual(width);
          expect(short).not.toMatch(LONE_SURROGATE);
          if (displayWidth(text) <= width) expect(short).toBe(text);
          else expect(short.endsWith(ELLIPSIS) && text.startsWith(short.slice(0, -1))).toBe(true);
        },
      ),
    );
  });
});

test("padEnd pads to a width in columns", () => {
  expect(padEnd("ab", 4)).toBe("ab  ");
  expect(padEnd("日本", 6)).toBe("日本  ");
  expect(padEnd("toolong", 3)).toBe("toolong");
});
