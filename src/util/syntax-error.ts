// Where a deployment or config file stops being JSON or YAML, and what is wrong there, in words
// that never quote the file. Such a file holds secret values, and the parsers' own messages
// quote it: V8's `Unexpected token 's', ..."value":sk-live-12"... is not valid JSON` printed
// the start of an unquoted secret, the YAML library's `Plain value cannot start with @` or
// `Invalid escape sequence \q` a character of one.

/** The line, column and reason of `file:LINE: not valid JSON (column C: REASON)`, without a character of the file. */
export function jsonSyntaxProblem(
  text: string,
  error: Error,
): { line: number; column: number; reason: string } {
  const reported = /at position (\d+)/.exec(error.message);
  const offset = reported ? Number(reported[1]) : jsonErrorOffset(text);
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n"), reason: jsonReason(error.message) };
}

/** V8's reason, where it names only JSON's own syntax; otherwise a plain one. */
function jsonReason(message: string): string {
  const reason = message
    .replace(/\s*(?:in JSON\s*)?at position \d+.*$/s, "")
    .replace(/\s*\(line \d+ column \d+\)$/, "");
  // `Unexpected token 'X', "...snippet..." is not valid JSON` quotes the file.
  if (/^Unexpected token/.test(reason) || reason.includes('"')) return "unexpected character";
  return reason.charAt(0).toLowerCase() + reason.slice(1);
}

/**
 * The offset at which `text` stops being JSON (its length when it ends too early), for the
 * messages that do not say (V8's "Unexpected token"). Iterative: a file may nest deeply.
 */
export function jsonErrorOffset(text: string): number {
  let at = 0;
  const stack: ("{" | "[")[] = [];
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at]!)) at++;
  };
  const string = (): boolean => {
    if (text[at] !== '"') return false;
    for (at++; at < text.length; at++) {
      const code = text.charCodeAt(at);
      if (code === 0x22) {
        at++;
        return true;
      }
      if (code < 0x20) return false;
      if (code !== 0x5c) continue;
      at++;
      const escaped = text[at];
      if (escaped === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 1, at + 5))) return false;
        at += 4;
      } else if (escaped === undefined || !'"\\/bfnrt'.includes(escaped)) return false;
    }
    return false;
  };
  const digits = (): boolean => {
    const start = at;
    while (at < text.length && text[at]! >= "0" && text[at]! <= "9") at++;
    return at > start;
  };
  // As V8 reads them, a character at a time: the offset is the first character that does not fit.
  const scalar = (): boolean => {
    if (text[at] === '"') return string();
    const word = ["true", "false", "null"].find((w) => w[0] === text[at]);
    if (word) {
      for (const char of word) {
        if (text[at] !== char) return false;
        at++;
      }
      return true;
    }
    if (text[at] === "-") at++;
    if (text[at] === "0") at++;
    else if (!digits()) return false;
    if (text[at] === ".") {
      at++;
      if (!digits()) return false;
    }
    if (text[at] === "e" || text[at] === "E") {
      at++;
      if (text[at] === "+" || text[at] === "-") at++;
      if (!digits()) return false;
    }
    return true;
  };
  /** After `{` or `,` in an object: a key and its colon. */
  const key = (): boolean => {
    space();
    if (!string()) return false;
    space();
    if (text[at] !== ":") return false;
    at++;
    return true;
  };
  for (;;) {
    // A value is expected.
    space();
    const open = text[at];
    if (open === "{" || open === "[") {
      at++;
      space();
      if (text[at] === (open === "{" ? "}" : "]")) at++;
      else {
        stack.push(open);
        if (open === "{" && !key()) return at;
        continue;
      }
    } else if (!scalar()) return at;
    // A value ended: close what it ends, or go on after a comma.
    for (;;) {
      space();
      const top = stack.at(-1);
      if (top === undefined) return at;
      const next = text[at];
      if (next === ",") {
        at++;
        if (top === "{" && !key()) return at;
        break;
      }
      if (next !== (top === "{" ? "}" : "]")) return at;
      at++;
      stack.pop();
    }
  }
}

/**
 * What a YAML error code means, in words that quote nothing of the file (the library's own
 * messages quote a character, an escape, a tag or an alias name).
 */
const YAML_PROBLEMS: Record<string, string> = {
  ALIAS_PROPS: "an alias cannot have an anchor or a tag",
  BAD_ALIAS: "an alias that refers to nothing",
  BAD_COLLECTION_TYPE: "a tag that does not fit its collection",
  BAD_DIRECTIVE: "a directive that is not valid",
  BAD_DQ_ESCAPE: "an escape sequence that is not valid in a double-quoted value",
  BAD_INDENT: "indentation that does not line up",
  BAD_PROP_ORDER: "an anchor or a tag in the wrong place",
  BAD_SCALAR_START: "a value that starts with a reserved character; quote it",
  BLOCK_AS_IMPLICIT_KEY: "a block value used as a key",
  BLOCK_IN_FLOW: "a block value inside [ ] or { }",
  DUPLICATE_KEY: "Map keys must be unique",
  KEY_OVER_1024_CHARS: "a key longer than 1024 characters",
  MISSING_CHAR: "a quote, bracket, comma or space is missing",
  MULTILINE_IMPLICIT_KEY: "a key that runs over more than one line",
  MULTIPLE_ANCHORS: "a value with more than one anchor",
  MULTIPLE_DOCS: "more than one document",
  MULTIPLE_TAGS: "a value with more than one tag",
  NON_STRING_KEY: "a key that is not a string",
  RESOURCE_EXHAUSTION: "too many aliases",
  TAB_AS_INDENT: "a tab used for indentation",
  TAG_RESOLVE_FAILED: "a tag that is not known",
  UNEXPECTED_TOKEN: "unexpected text",
};

export function yamlProblem(code: string): string {
  return YAML_PROBLEMS[code] ?? "a syntax error";
}
