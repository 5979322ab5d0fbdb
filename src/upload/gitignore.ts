// One `.gitignore` file, matched as git matches it (gitignore(5)), one path at a time: which
// line, if any, decides about a path of the directory the file is in. The walk (walk.ts) asks
// the deepest file first, and does not enter a directory that is left out, as git does; a
// matcher that also judged a path by its parent directories (the `ignore` package does) left
// out `pkg/build/out.js` for a root `build/` although `pkg/.gitignore` took `pkg/build` back.
//
// The file, line by line:
// - a line ends at `\n`, one `\r` before it is dropped (CRLF files), and so are the spaces at
//   its end, unless escaped (`a\ `); a UTF-8 byte order mark before the first line is dropped;
// - an empty line matches nothing; a line starting with `#` is a comment (`\#` is a `#`);
// - `!` takes back what an earlier line, or a shallower file, left out (`\!` is a `!`);
// - a trailing `/` matches directories only (and is then dropped);
// - a pattern with no other `/` is matched against the name alone, at any depth; one with a
//   `/` (a leading one included, then dropped) against the path from the file's directory;
// - `*` and `?` never match a `/`; `[...]` classes as in shells (`!` or `^` negates; ranges;
//   `[:alpha:]` and the other POSIX classes; `]` first is a member; `\` escapes); `\` escapes
//   any character; `**` matches any number of directories where a `/` (or the start) is on
//   both sides of it, and is `*` elsewhere;
// - a pattern that cannot match (an unclosed class, an unknown POSIX class, a `\` at its end)
//   matches nothing.
// Among the lines of a file, the last that matches decides.
//
// Matching is on bytes, as git's is: `?` is one byte, so a path that is not ASCII is matched as
// its UTF-8 bytes (asBytes), and so is the file. Case-sensitive (git's default on Linux).
// Written from git's documentation and its observed behaviour: a differential test runs git
// itself over generated trees (walk-gitignore.test.ts).

/** The lines of a .gitignore, ready to match. */
export interface Gitignore {
  /**
   * What the last matching line says of `path` (relative to the file's directory, and `name`,
   * its last part, both as asBytes gives them): true, left out; false, taken back (`!`);
   * undefined, no line matches.
   */
  verdict(path: string, name: string, isDirectory: boolean): boolean | undefined;
}

interface Rule {
  negated: boolean;
  directoryOnly: boolean;
  /** Matched against the name alone (the pattern has no `/`). */
  nameOnly: boolean;
  matches: (subject: string) => boolean;
}

/** `text` as one character per byte of its UTF-8 (the same string when it is ASCII). */
export function asBytes(text: string): string {
  return /^[\x00-\x7f]*$/.test(text) ? text : Buffer.from(text, "utf8").toString("latin1");
}

/** `bytes`: the file's content. Each pattern is compiled once, here. */
export function parseGitignore(bytes: Buffer): Gitignore {
  const BOM = "\xef\xbb\xbf";
  let text = bytes.toString("latin1");
  if (text.startsWith(BOM)) text = text.slice(BOM.length);
  const rules: Rule[] = [];
  for (const raw of text.split("\n")) {
    if (raw === "" || raw.startsWith("#")) continue;
    const rule = parseLine(trimTrailingSpaces(raw.endsWith("\r") ? raw.slice(0, -1) : raw));
    if (rule) rules.push(rule);
  }
  rules.reverse();
  return {
    verdict(path, name, isDirectory) {
      for (const rule of rules) {
        if (rule.directoryOnly && !isDirectory) continue;
        if (rule.matches(rule.nameOnly ? name : path)) return !rule.negated;
      }
      return undefined;
    },
  };
}

/** The line without its trailing spaces; an escaped one (`\ `) stays, with the spaces before it. */
function trimTrailingSpaces(line: string): string {
  let end = 0;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === "\\") {
      // A `\` at the very end escapes nothing: the line stays whole (and matches nothing).
      if (i + 1 === line.length) return line;
      i++;
      end = i + 1;
    } else if (line[i] !== " ") end = i + 1;
  }
  return line.slice(0, end);
}

/** A rule, or null for a line that can match nothing. */
function parseLine(line: string): Rule | null {
  const negated = line.startsWith("!");
  let pattern = negated ? line.slice(1) : line;
  const directoryOnly = pattern.endsWith("/");
  if (directoryOnly) pattern = pattern.slice(0, -1);
  const nameOnly = !pattern.includes("/");
  if (!nameOnly && pattern.startsWith("/")) pattern = pattern.slice(1);
  if (pattern === "") return null;
  const matches = compile(pattern, nameOnly);
  return matches && { negated, directoryOnly, nameOnly, matches };
}

/** Matches a name or a path against `pattern`; null when it can match nothing. */
function compile(pattern: string, nameOnly: boolean): ((subject: string) => boolean) | null {
  const firstSpecial = pattern.search(/[*?[\\]/);
  // Plain text, or (for a name) `*` and plain text: compared as strings.
  if (firstSpecial === -1) return (subject) => subject === pattern;
  const suffix = pattern.slice(1);
  if (nameOnly && pattern[0] === "*" && !/[*?[\\]/.test(suffix)) return (subject) => subject.endsWith(suffix);
  const source = regexSource(pattern, firstSpecial);
  if (source === null) return null;
  const regex = new RegExp(`^${source}$`, "s");
  return (subject) => regex.test(subject);
}

/** The pattern as the source of a regular expression over byte strings; null if it can match nothing. */
function regexSource(pattern: string, firstSpecial: number): string | null {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "\\") {
      if (i + 1 === pattern.length) return null;
      source += literal(pattern[++i]!);
    } else if (ch === "?") {
      source += "[^/]";
    } else if (ch === "[") {
      const parsed = characterClass(pattern, i + 1);
      if (parsed === null) return null;
      source += parsed.source;
      i = parsed.end;
    } else if (ch === "*") {
      const start = i;
      while (pattern[i + 1] === "*") i++;
      const next = pattern[i + 1];
      // git compares the text before the first special character apart, and looks for a `/`
      // before a `**` only in what follows it: a `**` that comes first acts as if after one.
      const slashBefore = start === 0 || start === firstSpecial || pattern[start - 1] === "/";
      const slashAfter = next === undefined || next === "/" || (next === "\\" && pattern[i + 2] === "/");
      if (i === start || !slashBefore || !slashAfter) source += "[^/]*";
      else if (next === "/") {
        // `**/`: no directory, or any number of them.
        source += "(?:.*/)?";
        i++;
      } else source += ".*";
    } else source += literal(ch);
  }
  return source;
}

function literal(ch: string): string {
  return /[A-Za-z0-9]/.test(ch) ? ch : `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`;
}

/** ASCII ranges of the POSIX classes, as git's C locale has them. */
const POSIX_CLASSES: Record<string, readonly (readonly [number, number])[]> = {
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  blank: [
    [0x09, 0x09],
    [0x20, 0x20],
  ],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: [[0x30, 0x39]],
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  space: [
    [0x09, 0x0d],
    [0x20, 0x20],
  ],
  upper: [[0x41, 0x5a]],
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
};

/**
 * The class that starts after the `[` at `start`, as the set of bytes it matches (never `/`):
 * its regular expression and the index of its closing `]`; null when it is malformed.
 */
function characterClass(pattern: string, start: number): { source: string; end: number } | null {
  const members = new Uint8Array(256);
  const add = (low: number, high: number) => members.fill(1, low, high + 1);
  let i = start;
  const negated = pattern[i] === "!" || pattern[i] === "^";
  if (negated) i++;
  /** The last single member, which a `-` makes the start of a range; -1 after a range or a POSIX class. */
  let previous = -1;
  for (let first = true; ; first = false) {
    if (i >= pattern.length) return null;
    const ch = pattern[i]!;
    if (ch === "]" && !first) break;
    if (ch === "\\") {
      if (++i >= pattern.length) return null;
      previous = pattern.charCodeAt(i);
      add(previous, previous);
    } else if (ch === "-" && previous >= 0 && i + 1 < pattern.length && pattern[i + 1] !== "]") {
      i++;
      if (pattern[i] === "\\" && ++i >= pattern.length) return null;
      add(previous, pattern.charCodeAt(i));
      previous = -1;
    } else if (ch === "[" && pattern[i + 1] === ":") {
      const close = pattern.indexOf("]", i + 2);
      if (close === -1) return null;
      if (close - 1 < i + 2 || pattern[close - 1] !== ":") {
        // No `:]` before the next `]`: the `[` is a member, and what follows is read on.
        previous = 0x5b;
        add(previous, previous);
      } else {
        const ranges = POSIX_CLASSES[pattern.slice(i + 2, close - 1)];
        if (!ranges) return null;
        for (const [low, high] of ranges) add(low, high);
        previous = -1;
        i = close;
      }
    } else {
      previous = pattern.charCodeAt(i);
      add(previous, previous);
    }
    i++;
  }
  if (negated) for (let byte = 0; byte < 256; byte++) members[byte] = members[byte] ? 0 : 1;
  members[0x2f] = 0;
  let source = "";
  for (let byte = 0; byte < 256; byte++) {
    if (!members[byte]) continue;
    let last = byte;
    while (last < 255 && members[last + 1]) last++;
    source +=
      last === byte
        ? literal(String.fromCharCode(byte))
        : `${literal(String.fromCharCode(byte))}-${literal(String.fromCharCode(last))}`;
    byte = last;
  }
  return { source: source ? `[${source}]` : "(?!)", end: i };
}
