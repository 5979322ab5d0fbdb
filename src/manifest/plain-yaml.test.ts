// plain-yaml.ts against the `yaml` library, which it must agree with wherever it answers: over
// generated documents (which it must also answer, or it would be no faster), over mutations
// of them (which it must either read exactly as the library does or leave to the library),
// and over hand-picked corners of YAML.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { readPlainYaml } from "./plain-yaml.js";

/** What file.ts's library path makes of `text`: the value, or "error". */
function library(text: string): unknown {
  const documents = parseAllDocuments(text);
  if (!Array.isArray(documents) || documents.length !== 1) return "error";
  const [document] = documents;
  if (document!.errors.length > 0) return "error";
  try {
    return document!.toJS({ maxAliasCount: 100 });
  } catch {
    return "error";
  }
}

/** The property: an answer from the reader is exactly the library's. */
function agrees(text: string): void {
  const plain = readPlainYaml(text);
  if (plain !== undefined) expect(plain, text).toStrictEqual(library(text));
}

// --- documents the reader must answer -------------------------------------------------------

type Tree = string | number | boolean | null | Tree[] | { [key: string]: Tree };

const key = fc.oneof(
  fc.stringMatching(/^[a-z_][a-z0-9_]{0,12}$/),
  fc.constantFrom(
    "cost-center",
    "app.kubernetes.io/name",
    "OPENAI_API_KEY",
    "k8s_namespace",
    "on",
    "yes",
    "no",
  ),
);
/** Strings a file holds: rendered plain when that reads back as the same string, else quoted. */
const text = fc.oneof(
  fc.constantFrom(
    "support-agent-prod",
    "ghcr.io/acme/agent:${env:TAG}",
    "postgres://agent:${env:DB_PASSWORD}@db.internal:5432/support",
    "https://github.com/acme/agent",
    "two words",
    "a #not-a-comment",
    "a: b",
    "ends with colon:",
    "# hash first",
    "- dash first",
    "-dash",
    "'single'",
    '"double"',
    "it's",
    "null",
    "~",
    "True",
    "yes",
    "0x1F",
    "0o17",
    "1e3",
    ".inf",
    "-.5",
    "+12",
    "007",
    "",
    " padded ",
    "@at",
    "`tick",
    "[not, flow]",
    "{not: flow}",
    "100%",
    "ünïcödé ✓",
  ),
  fc.string({ maxLength: 20 }).filter((s) => !/["\\\n\r\t]/.test(s) && !/[\x00-\x1f\x7f-\x9f]/.test(s)),
);
const number = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
  fc.constantFrom(0.1, 0.5, 2.5, 16, 4096, Number.MAX_SAFE_INTEGER),
);
const leaf: fc.Arbitrary<Tree> = fc.oneof(text, number, fc.boolean(), fc.constant(null));
const { tree } = fc.letrec<{ tree: Tree; mapping: Tree; sequence: Tree }>((tie) => ({
  tree: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("mapping"), tie("sequence")),
  mapping: fc.dictionary(key, tie("tree"), { minKeys: 1, maxKeys: 5 }),
  sequence: fc.array(tie("tree"), { minLength: 1, maxLength: 4 }),
}));
const document = fc.dictionary(key, tree, { minKeys: 1, maxKeys: 6 });

interface Style {
  /** Spaces per level. */
  step: number;
  /** `key:` then `- item` at the key's own indentation, rather than indented. */
  flushSequences: boolean;
  /** Comments: on their own lines and after values. */
  comments: boolean;
  crlf: boolean;
}
const style: fc.Arbitrary<Style> = fc.record({
  step: fc.constantFrom(2, 4),
  flushSequences: fc.boolean(),
  comments: fc.boolean(),
  crlf: fc.boolean(),
});

/** What the library reads back from a plain scalar, or undefined when it cannot be plain. */
function asPlain(value: string): unknown {
  if (value === "" || value !== value.trim() || /[\n#]/.test(value)) return undefined;
  const read = library(`k: ${value}\n`);
  return read !== "error" && (read as { k: unknown }).k === value ? value : undefined;
}

function scalar(value: Tree): string {
  if (typeof value === "string") {
    if (asPlain(value) !== undefined) return value;
    return value.includes('"') ? `'${value.replace(/'/g, "''")}'` : `"${value}"`;
  }
  if (value === null) return "null";
  return String(value);
}

/** The tree as block-style YAML lines, indented by `indent`. */
function render(value: Tree, indent: number, s: Style): string[] {
  const pad = " ".repeat(indent);
  const comment = s.comments ? " # note" : "";
  const out: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      if (item !== null && typeof item === "object") {
        // `- first: x` then the rest of the mapping lined up under `first`.
        const [first, ...rest] = render(item, indent + 2, s);
        out.push(`${pad}- ${first!.trimStart()}`, ...rest);
      } else {
        out.push(`${pad}- ${scalar(item)}${comment}`);
      }
    }
    return out;
  }
  for (const [name, child] of Object.entries(value as Record<string, Tree>)) {
    if (s.comments) out.push(`${pad}# about ${name}`);
    if (Array.isArray(child)) {
      out.push(`${pad}${name}:`, ...render(child, s.flushSequences ? indent : indent + s.step, s));
    } else if (child !== null && typeof child === "object") {
      out.push(`${pad}${name}:${comment}`, ...render(child, indent + s.step, s));
    } else {
      out.push(`${pad}${name}: ${scalar(child)}${comment}`);
    }
  }
  return out;
}

function renderDocument(value: Tree, s: Style): string {
  const text = `${render(value, 0, s).join("\n")}\n`;
  return s.crlf ? text.replace(/\n/g, "\r\n") : text;
}

describe("readPlainYaml", () => {
  it("reads generated block-style documents, exactly as the yaml library does", () => {
    fc.assert(
      fc.property(document, style, (value, s) => {
        const text = renderDocument(value, s);
        const plain = readPlainYaml(text);
        expect(plain, text).not.toBeUndefined();
        expect(plain, text).toStrictEqual(library(text));
      }),
      { numRuns: 400 },
    );
  });

  it("reads mutated documents exactly as the library does, or leaves them to it", () => {
    const edit = fc.record({
      at: fc.nat(),
      remove: fc.nat({ max: 3 }),
      insert: fc.oneof(
        fc.constantFrom(
          " ",
          "  ",
          "-",
          "- ",
          ":",
          ": ",
          "#",
          " #",
          "'",
          '"',
          "\\",
          "\n",
          "\r",
          "\t",
          "&a ",
          "*a",
        ),
        fc.constantFrom(
          "!!str ",
          "|",
          ">",
          "[",
          "]",
          "{",
          "}",
          "%",
          "@",
          "`",
          "?",
          ",",
          "---\n",
          "...\n",
          "~",
        ),
        fc.constantFrom("\ufeff", "\u2028", "\u0085", "\u0000", "a", "0", ".", "x: y", "__proto__: 1"),
        // Spaces to JavaScript's trim(), content to YAML.
        fc.constantFrom("\u00a0", "\u3000", "\u2003", "\u202f", " \u00a0", "\u00a0#"),
      ),
    });
    fc.assert(
      fc.property(document, style, fc.array(edit, { minLength: 1, maxLength: 4 }), (value, s, edits) => {
        let text = renderDocument(value, s);
        for (const { at, remove, insert } of edits) {
          const i = at % (text.length + 1);
          text = text.slice(0, i) + insert + text.slice(i + remove);
        }
        agrees(text);
      }),
      { numRuns: 1500 },
    );
  });

  it("agrees with the library on lines of keys, items and values at any indentation", () => {
    const keys = fc.constantFrom(
      "a:",
      "b:",
      "c: 1",
      "d: x",
      "e: -1",
      "f: ~",
      "g: ''",
      'h: "q"',
      "i: x # c",
      "j: 'it''s'",
    );
    const items = fc.constantFrom("-", "- x", "- 0.5", "- a: 1", "- b:", "- - x", "- -", "-x", "- # c");
    const noise = fc.oneof(
      fc.constantFrom("# c", "a: b: c", "a:b", "? a", "k: [x]", "k: &x 1", "k: *x"),
      fc.string({ unit: fc.constantFrom(..."ab0 -:#'\"\\.~|>&*!{}[]?,%@`\t"), maxLength: 8 }),
    );
    const piece = fc.oneof(
      { weight: 6, arbitrary: keys },
      { weight: 4, arbitrary: items },
      { weight: 1, arbitrary: noise },
    );
    const line = fc
      .tuple(fc.constantFrom(0, 0, 2, 2, 4, 4, 6, 1, 3), piece)
      .map(([indent, text]) => " ".repeat(indent) + text);
    fc.assert(
      fc.property(keys, fc.array(line, { maxLength: 8 }), (first, rest) =>
        agrees(`${[first, ...rest].join("\n")}\n`),
      ),
      { numRuns: 3000 },
    );
  });

  it("agrees with the library on any short text", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(..."ab0 -:#'\"\n\\.~|>&*!{}[]?,%@`\t"), maxLength: 40 }),
        agrees,
      ),
      { numRuns: 1000 },
    );
  });

  it("reads the README's deployment files itself", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const files = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((match) => match[1]!)
      .filter((text) => /^source: /m.test(text));
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const text of files) {
      expect(readPlainYaml(text), text).not.toBeUndefined();
      expect(readPlainYaml(text), text).toStrictEqual(library(text));
    }
  });

  it.each([
    [
      "a deployment file",
      "name: x\nsource: external_container\nsource_config:\n  resource_spec:\n    cpu: 2\n",
    ],
    ["a sequence of mappings", "secrets:\n  - name: A\n    value: ${env:A}\n  - name: B\n    value: 'b'\n"],
    ["a flush sequence", "secrets:\n- name: A\n  value: a\nnext: 1\n"],
    ["empty items and keys", "a:\nb:\n  -\n  - # note\n  - x\nc: # note\n"],
    ["a compact mapping's sequence at its key's column", "a:\n- b:\n  - x\n  c: 1\n"],
    [
      "numbers of every core form",
      "a: 0o17\nb: 0x1F\nc: -0\nd: +12\ne: 1e3\nf: .5\ng: -.inf\nh: .NaN\ni: 007\n",
    ],
    ["YAML 1.1 words, which are strings in 1.2", "a: yes\nb: on\nc: off\nd: 2001-12-14\n"],
    ["quotes and comments", "a: 'it''s' # c\nb: \"x # y\"\nc: x#y\nd: x # y\n"],
    ["CR LF line ends", "a: 1\r\nb:\r\n  - x\r\n"],
  ])("agrees on %s, and reads it itself", (_name, text) => {
    expect(readPlainYaml(text)).toStrictEqual(library(text));
  });

  it.each([
    ["NBSP as indentation", "a:\n\u00a0b: 1\n"],
    ["NBSP after indentation", "a:\n \u00a0b: 1\n"],
    ["a line of NBSP", "a: 1\n\u00a0\n"],
    ["NBSP before a comment", "a: 1\n\u00a0# c\n"],
    ["NBSP after a value", "a: x\u00a0\n"],
    ["NBSP after a quoted value", "a: 'x'\u00a0\n"],
    ["NBSP after a colon", "a:\u00a0\n"],
    ["NBSP as a value", "a: \u00a0\n"],
    ["NBSP after a dash", "a:\n- \u00a0x\n"],
    ["an ideographic space as indentation", "a:\n\u3000b: 1\n"],
    ["a dash and an em space", "a:\n  -\u2003\n"],
  ])("agrees on %s, which YAML reads as content", (_name, text) => agrees(text));

  it("leaves deep nesting to the library (which refuses it) without exhausting the stack", () => {
    for (const depth of [65, 1000, 10_000]) {
      expect(readPlainYaml(`k:\n${"- ".repeat(depth)}x\n`)).toBeUndefined();
      expect(
        readPlainYaml(`${Array.from({ length: depth }, (_, i) => `${" ".repeat(i)}k:`).join("\n")}\n`),
      ).toBeUndefined();
    }
  });

  it("reads a value with a long run of spaces in linear time", () => {
    // A quadratic scan of the spaces would take tens of seconds here and time the test out.
    const text = `k: a${" ".repeat(200_000)}b # c\n`;
    expect(readPlainYaml(text)).toStrictEqual(library(text));
  });

  it.each([
    ["an anchor and alias", "a: &x 1\nb: *x\n"],
    ["a tag", "a: !!str 1\n"],
    ["a flow mapping", "a: {b: 1}\n"],
    ["a block scalar", "a: |\n  text\n"],
    ["a multi-line plain scalar", "a: one\n  two\n"],
    ["an escape", 'a: "\\t"\n'],
    ["a duplicate key", "a: 1\na: 2\n"],
    ["a merge key", "<<: {a: 1}\n"],
    ["a __proto__ key", "__proto__: 1\n"],
    ["a null key", "null: 1\n"],
    ["a directive", "%YAML 1.1\n---\na: 1\n"],
    ["two documents", "a: 1\n---\nb: 2\n"],
    ["a tab", "a:\t1\n"],
    ["a byte-order mark", "\ufeffa: 1\n"],
    ["a top-level sequence", "- a\n"],
    ["a top-level scalar", "just text\n"],
    ["an empty file", ""],
    ["only comments", "# nothing\n"],
    ["a nested mapping on one line", "a: b: c\n"],
    ["an indented document", "  a: 1\n"],
    ["a bad indentation", "a:\n    b: 1\n  c: 2\n"],
  ])("leaves %s to the library", (_name, text) => {
    expect(readPlainYaml(text)).toBeUndefined();
  });
});
