// JSON and YAML as cpctl prints them: the exact value, with every character a terminal would
// act on written as an escape, so that `cat`ting the output is as safe as the table, and
// always valid UTF-8 (jq and YAML parsers refuse a lone surrogate, which has no UTF-8 form:
// it becomes U+FFFD, the one change to a value). No imports: main.ts reports errors with it.

/** UTF-16 surrogates not part of a pair. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * What JSON.stringify leaves raw but a terminal may act on: DEL, C1 controls, bidirectional
 * marks and overrides, and the line and paragraph separators. (It escapes C0 itself.)
 */
const RAW_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const unicodeEscape = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

declare global {
  interface String {
    /** ES2024, in every Node cpctl supports (20.19+); TypeScript's ES2023 lib lacks it. */
    isWellFormed(): boolean;
  }
}

function wellFormed(text: string): string {
  return text.isWellFormed() ? text : text.replace(LONE_SURROGATE, "\ufffd");
}

/** JSON.stringify's replacer: well-formed strings, and object keys too. */
function wellFormedValue(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === "string") return wellFormed(value);
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  // A loop rather than Object.keys(value).some(...): this runs for every object printed, and
  // the array of keys was garbage each time.
  for (const key in value) {
    if (!key.isWellFormed())
      return Object.fromEntries(Object.entries(value).map(([k, child]) => [wellFormed(k), child]));
  }
  return value;
}

/**
 * JSON text of `value`, as JSON.stringify would write it but always valid UTF-8 and with no
 * raw character a terminal acts on. Every escape stands for the same character, so a parser
 * reads back exactly the value (lone surrogates aside).
 */
export function jsonText(value: unknown, indent?: number): string {
  // JSON.stringify writes a lone surrogate as a \udXXX escape (a pair stays raw): without one
  // in the text, the replacer (several times slower, on every item of a long list) has nothing
  // to do. With one, or what looks like one, the value goes through it.
  const plain = JSON.stringify(value, undefined, indent) ?? "null";
  const text = LONE_SURROGATE_ESCAPE.test(plain)
    ? (JSON.stringify(value, wellFormedValue, indent) ?? "null")
    : plain;
  return text.replace(RAW_UNSAFE, unicodeEscape);
}

/** How JSON.stringify writes a lone surrogate (or text that merely looks like it). */
const LONE_SURROGATE_ESCAPE = /\\ud[89a-f]/i;

/** Characters that make a YAML string worth double quotes: there each can be an escape. */
const NEEDS_ESCAPE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * YAML text of `value` (as `yaml.stringify(value, { lineWidth: 0 })`), with the same
 * guarantee as jsonText: a string holding a character a terminal acts on is double-quoted, and
 * the characters the library leaves raw there become `\uXXXX` escapes (the library escapes
 * C0 itself).
 */
export async function yamlText(value: unknown): Promise<string> {
  const { Document, visit } = await import("yaml");
  const doc = new Document(value);
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== "string") return;
      const text = wellFormed(node.value);
      node.value = text;
      if (NEEDS_ESCAPE.test(text)) node.type = "QUOTE_DOUBLE";
    },
  });
  // Only inside the double-quoted strings above can such a character be left: escapes are valid there.
  return doc.toString({ lineWidth: 0 }).replace(RAW_UNSAFE, unicodeEscape);
}
