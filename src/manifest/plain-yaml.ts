// A reader for the plain block-style YAML that deployment files are nearly always written in:
// nested `key: value` mappings and `- item` sequences, plain or quoted one-line scalars,
// comments. It exists for speed: the `yaml` library costs several milliseconds to load and to
// run its first parse, a large part of `deploy create --dry-run -f FILE.yaml` (see
// docs/performance.md). Anything outside that subset (anchors, tags, flow collections, block
// or multi-line scalars, escapes, directives, several documents, tabs, duplicate keys, odd
// indentation...) makes it return `undefined`, and the caller hands the text to the `yaml`
// library, which also reports errors. What it does return equals what the library makes of
// the same text under YAML 1.2's core schema: plain-yaml.test.ts checks that against the
// library over generated and mutated documents.
//
// White space here is the space alone: YAML indents and separates with spaces (tabs are
// outside the subset), while JavaScript's trim() would also strip NBSP, U+3000 and the like,
// which YAML reads as content.

interface Line {
  /** Spaces before the content. */
  indent: number;
  content: string;
}

/** Stops the reader: the text is not in the subset. Never escapes `readPlainYaml`. */
class NotPlain extends Error {}

const notPlain = (): never => {
  throw new NotPlain();
};

/**
 * The mapping at the top of `text`, or `undefined` when the text is not in the subset (or is
 * not a single mapping): then parse it with the `yaml` library.
 */
export function readPlainYaml(text: string): Record<string, unknown> | undefined {
  try {
    const all = lines(text);
    // An empty document is null to the library, not an empty mapping.
    return all.length === 0 ? undefined : readMapping(new Reader(all), 0);
  } catch (error) {
    if (error instanceof NotPlain) return undefined;
    throw error;
  }
}

/**
 * What the subset leaves to the library: tabs, lone CRs, C0 and C1 controls, DEL, the line
 * and paragraph separators U+2028/U+2029, the byte-order mark and U+FFFE/U+FFFF. (CR LF line
 * ends are read as LF first.)
 */
const OUTSIDE_SUBSET = /[^\n\x20-\x7e\xa0-\u2027\u202a-\ufefe\uff00-\ufffd]/;

function lines(text: string): Line[] {
  const normalized = text.replace(/\r\n/g, "\n");
  if (OUTSIDE_SUBSET.test(normalized)) notPlain();
  const result: Line[] = [];
  for (const line of normalized.split("\n")) {
    const indent = spacesFrom(line, 0);
    const content = withoutTrailingSpaces(line.slice(indent));
    if (content === "" || content.startsWith("#")) continue;
    result.push({ indent, content });
  }
  return result;
}

/** The index of the first character from `start` on that is not a space. */
function spacesFrom(text: string, start: number): number {
  let index = start;
  while (text.charCodeAt(index) === 0x20) index++;
  return index;
}

function withoutTrailingSpaces(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x20) end--;
  return text.slice(0, end);
}

class Reader {
  private next = 0;
  /** Mappings and sequences open; see MAX_DEPTH. */
  depth = 0;
  constructor(private readonly all: Line[]) {}
  peek(): Line | undefined {
    return this.all[this.next];
  }
  take(): void {
    this.next++;
  }
  /**
   * Replaces the current line: `- key: value` becomes `key: value` at the key's column, so
   * that the mapping (or nested sequence) it starts is read like any other.
   */
  reseat(line: Line): void {
    this.all[this.next] = line;
  }
}

// `key:` or `key: value`. Keys are plain identifiers, paths and dashed names: quoted keys,
// keys that would resolve to null, booleans or numbers, and merge keys go to the library, and
// so does `__proto__`, which an object literal cannot take as an own key by assignment.
const ENTRY = /^([A-Za-z_][A-Za-z0-9_./-]{0,200}):(?: +(.*))?$/;
const KEY_FOR_THE_LIBRARY = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE|__proto__)$/;

/** Deeper goes to the library: the reader recurses once a level, and no deployment file is near. */
const MAX_DEPTH = 64;

function readMapping(reader: Reader, indent: number): Record<string, unknown> {
  if (++reader.depth > MAX_DEPTH) notPlain();
  const mapping: Record<string, unknown> = {};
  for (let line = reader.peek(); line !== undefined && line.indent >= indent; line = reader.peek()) {
    if (line.indent > indent) notPlain();
    const entry = ENTRY.exec(line.content) ?? notPlain();
    const key = entry[1]!;
    if (KEY_FOR_THE_LIBRARY.test(key) || Object.hasOwn(mapping, key)) notPlain();
    reader.take();
    const rest = entry[2] ?? "";
    mapping[key] = rest === "" || rest.startsWith("#") ? readNested(reader, indent, true) : scalar(rest);
  }
  reader.depth--;
  return mapping;
}

function readSequence(reader: Reader, indent: number): unknown[] {
  if (++reader.depth > MAX_DEPTH) notPlain();
  const sequence: unknown[] = [];
  for (let line = reader.peek(); line !== undefined && line.indent >= indent; line = reader.peek()) {
    if (line.indent > indent) notPlain();
    if (!isItem(line.content)) break;
    const item = line.content.slice(spacesFrom(line.content, 1));
    if (item === "" || item.startsWith("#")) {
      reader.take();
      sequence.push(readNested(reader, indent, false));
    } else if (ENTRY.test(item) || isItem(item)) {
      // `- key: value` or `- - item`: a mapping or sequence that lines up with this first entry.
      const column = indent + line.content.length - item.length;
      reader.reseat({ indent: column, content: item });
      sequence.push(isItem(item) ? readSequence(reader, column) : readMapping(reader, column));
    } else {
      reader.take();
      sequence.push(scalar(item));
    }
  }
  reader.depth--;
  return sequence;
}

/**
 * The value of a `key:` or `-` with nothing after it: a block indented further, a sequence at
 * the key's own indentation (YAML allows that under a mapping key), or null.
 */
function readNested(reader: Reader, indent: number, underKey: boolean): unknown {
  const line = reader.peek();
  if (line === undefined || line.indent < indent) return null;
  const item = isItem(line.content);
  if (line.indent === indent) return underKey && item ? readSequence(reader, indent) : null;
  return item ? readSequence(reader, line.indent) : readMapping(reader, line.indent);
}

const isItem = (content: string) => content === "-" || content.startsWith("- ");

// YAML 1.2 core schema, as the `yaml` library resolves plain scalars (its schema/core and
// schema/common tags, tried in the same order).
const NULL = /^(?:~|[Nn]ull|NULL)$/;
const BOOLEAN = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const OCTAL = /^0o[0-7]+$/;
const DECIMAL = /^[-+]?[0-9]+$/;
const HEXADECIMAL = /^0x[0-9a-fA-F]+$/;
const INFINITY_OR_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

/** Characters that cannot start a plain scalar, or start one only when a space does not follow. */
const INDICATOR = /^(?:[-?:](?: |$)|[,[\]{}#&*!|>'"%@`])/;
function scalar(text: string): unknown {
  if (text.startsWith('"')) return quoted(text, '"');
  if (text.startsWith("'")) return quoted(text, "'");
  // A comment after a value: `#` after a space. (Found with indexOf: a regular expression
  // such as / +#.*$/ takes quadratic time over a long run of spaces.)
  const comment = text.indexOf(" #");
  const plain = comment === -1 ? text : withoutTrailingSpaces(text.slice(0, comment));
  // `a: b` inside a value is a nested mapping, which the library refuses on one line.
  if (INDICATOR.test(plain) || plain.includes(": ") || plain.endsWith(":")) notPlain();
  if (NULL.test(plain)) return null;
  if (BOOLEAN.test(plain)) return plain[0] === "t" || plain[0] === "T";
  if (OCTAL.test(plain)) return Number.parseInt(plain.slice(2), 8);
  if (DECIMAL.test(plain)) return Number.parseInt(plain, 10);
  if (HEXADECIMAL.test(plain)) return Number.parseInt(plain.slice(2), 16);
  if (INFINITY_OR_NAN.test(plain)) {
    if (plain.slice(-3).toLowerCase() === "nan") return Number.NaN;
    return plain.startsWith("-") ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  if (FLOAT.test(plain)) return Number.parseFloat(plain);
  return plain;
}

/** A quoted scalar on one line, with nothing but a comment after it. No escapes (`\`). */
function quoted(text: string, quote: '"' | "'"): string {
  let end = 1;
  let value = "";
  for (;;) {
    const close = text.indexOf(quote, end);
    if (close === -1) notPlain();
    value += text.slice(end, close);
    // In single quotes, '' is a quote.
    if (quote === "'" && text[close + 1] === "'") {
      value += "'";
      end = close + 2;
      continue;
    }
    end = close + 1;
    break;
  }
  const after = text.slice(end);
  if (after !== "" && !/^ +#/.test(after)) notPlain();
  if (quote === '"' && value.includes("\\")) notPlain();
  return value;
}
