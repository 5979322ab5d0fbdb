// A `.dockerignore` at the root of a source directory, read as docker (moby/patternmatcher and
// its ignorefile reader) reads it, because the service builds an image from the tarball:
//
// - one pattern a line; `#` starts a comment line; surrounding blanks are trimmed; a leading
//   `/` is dropped and the path is cleaned (`a//b/./c/` is `a/b/c`);
// - patterns are anchored at the root: `*.md` is the root's Markdown files only, `**/*.md`
//   any of them; `*` and `?` never cross a `/`, `**` crosses any number of directories;
//   `[a-z]` classes and `\` escapes as in Go's filepath.Match;
// - a pattern that matches a directory leaves out everything below it;
// - `!pattern` takes back what an earlier line left out (the last matching line wins), and,
//   unlike .gitignore, may take back a file inside a directory left out.
import { posix } from "node:path";

interface Pattern {
  exclusion: boolean;
  /** The cleaned pattern, as the error messages show it. */
  text: string;
  matches: (path: string) => boolean;
}

export class DockerignoreError extends Error {}

export interface DockerignoreMatcher {
  /** True when some line starts with `!`: a directory left out may still hold files taken back. */
  readonly hasExceptions: boolean;
  /** Whether the slash-separated `path` (relative to the root) is left out. */
  excludes(path: string): boolean;
}

export function parseDockerignore(text: string): DockerignoreMatcher {
  const patterns: Pattern[] = [];
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  lines.forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    const exclusion = trimmed.startsWith("!");
    if (exclusion && trimmed.length === 1) {
      throw new DockerignoreError(`line ${index + 1}: "!" alone is not a pattern`);
    }
    const cleaned = cleanPattern(exclusion ? trimmed.slice(1).trim() : trimmed);
    let matches: (path: string) => boolean;
    try {
      matches = compile(cleaned);
    } catch {
      throw new DockerignoreError(`line ${index + 1}: ${JSON.stringify(trimmed)} is not a valid pattern`);
    }
    patterns.push({ exclusion, text: cleaned, matches });
  });
  return {
    hasExceptions: patterns.some((pattern) => pattern.exclusion),
    excludes: (path) => excludes(patterns, path),
  };
}

/** MatchesOrParentMatches: a line matches the path or one of the directories above it. */
function excludes(patterns: readonly Pattern[], path: string): boolean {
  const parents = path.split("/").slice(0, -1);
  let excluded = false;
  for (const pattern of patterns) {
    // An inclusion cannot change a path already left out, nor an exclusion one kept.
    if (pattern.exclusion !== excluded) continue;
    let match = pattern.matches(path);
    for (let depth = 1; !match && depth <= parents.length; depth++) {
      match = pattern.matches(parents.slice(0, depth).join("/"));
    }
    if (match) excluded = !pattern.exclusion;
  }
  return excluded;
}

/** filepath.Clean, then the ignorefile reader's dropping of a leading `/`. */
function cleanPattern(pattern: string): string {
  const cleaned = posix.normalize(pattern).replace(/(.)\/+$/, "$1");
  return cleaned.length > 1 && cleaned.startsWith("/") ? cleaned.slice(1) : cleaned;
}

/** The pattern as a predicate, following patternmatcher's translation to a regular expression. */
function compile(pattern: string): (path: string) => boolean {
  // `**name` (nothing special after it) is a plain suffix test in patternmatcher: it also
  // matches `dir/myname`, which the regular expression below would not.
  if (pattern.startsWith("**") && !/[*?[\\]/.test(pattern.slice(2))) {
    const suffix = pattern.slice(2);
    return (path) => path.endsWith(suffix) || (suffix.startsWith("/") && path === suffix.slice(1));
  }
  let source = "^";
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === "*" && chars[i + 1] === "*") {
      i++;
      if (chars[i + 1] === "/") i++;
      // `**` at the end matches everything below; elsewhere any number of directories.
      source += i + 1 >= chars.length ? ".*" : "(?:.*/)?";
    } else if (ch === "*") source += "[^/]*";
    else if (ch === "?") source += "[^/]";
    else if (ch === "\\") {
      if (i + 1 >= chars.length) throw new DockerignoreError("a trailing \\ escapes nothing");
      source += literal(chars[++i]!);
    } else if (ch === "[") {
      const parsed = characterClass(chars, i + 1);
      source += parsed.source;
      i = parsed.end;
    } else source += literal(ch);
  }
  const regex = new RegExp(`${source}$`, "su");
  return (path) => regex.test(path);
}

/**
 * The class that starts after the `[` at `start`, as Go's filepath.Match reads it (docker
 * checks every pattern with it): `^` negates; members are characters or `lo-hi` ranges; a
 * `-` or `]` must be escaped with `\` to be a member; `[]` and an unclosed class are errors.
 */
function characterClass(chars: readonly string[], start: number): { source: string; end: number } {
  let i = start;
  const negated = chars[i] === "^";
  if (negated) i++;
  let body = "";
  for (let members = 0; ; members++) {
    if (chars[i] === "]" && members > 0) return { source: `[${negated ? "^" : ""}${body}]`, end: i };
    const low = classMember(chars, i);
    i = low.next;
    body += literal(low.char, true);
    if (chars[i] === "-") {
      const high = classMember(chars, i + 1);
      i = high.next;
      body += `-${literal(high.char, true)}`;
    }
  }
}

/** One member character of a class (Go's getEsc). */
function classMember(chars: readonly string[], at: number): { char: string; next: number } {
  let i = at;
  if (i >= chars.length || chars[i] === "-" || chars[i] === "]") throw new DockerignoreError("bad class");
  if (chars[i] === "\\") i++;
  if (i + 1 >= chars.length) throw new DockerignoreError("unclosed [");
  return { char: chars[i]!, next: i + 1 };
}

function literal(ch: string, inClass = false): string {
  const special = inClass ? /[\\\][^-]/ : /[.*+?^${}()|[\]\\/]/;
  return special.test(ch) ? `\\${ch}` : ch;
}
