// One .gitignore's lines, as git 2.39 reads them (each case below was checked with
// `git ls-files -o --exclude-standard`; walk-gitignore.test.ts compares with git itself).
import { describe, expect, it } from "vitest";
import { asBytes, parseGitignore } from "./gitignore.js";

/** The verdict of `text` on `path` (a file unless it ends with `/`). */
function verdict(text: string, path: string): boolean | undefined {
  const isDirectory = path.endsWith("/");
  const subject = asBytes(isDirectory ? path.slice(0, -1) : path);
  return parseGitignore(Buffer.from(text, "utf8")).verdict(
    subject,
    subject.slice(subject.lastIndexOf("/") + 1),
    isDirectory,
  );
}

describe("parseGitignore", () => {
  it("reads lines as git does: CRLF, trailing spaces, escapes, comments, a byte order mark", () => {
    expect(verdict("a.txt\r\n", "a.txt")).toBe(true);
    expect(verdict("b \r\n", "b")).toBe(true);
    expect(verdict("c\\ \n", "c ")).toBe(true);
    expect(verdict("c\\ \n", "c")).toBeUndefined();
    // Only spaces are trimmed, and only at the end; a `\r` before a space stays.
    expect(verdict("a\t\n", "a")).toBeUndefined();
    expect(verdict("a\t\n", "a\t")).toBe(true);
    expect(verdict("c\r \n", "c")).toBeUndefined();
    expect(verdict("\uFEFFd\n", "d")).toBe(true);
    expect(verdict("#x\n", "#x")).toBeUndefined();
    expect(verdict("\\#x\n\\!y\n", "#x")).toBe(true);
    expect(verdict("\\#x\n\\!y\n", "!y")).toBe(true);
  });

  it("the last matching line decides; `!` takes back", () => {
    expect(verdict("*.log\n!keep.log\n", "keep.log")).toBe(false);
    expect(verdict("!keep.log\n*.log\n", "keep.log")).toBe(true);
    expect(verdict("*.log\n", "a.txt")).toBeUndefined();
  });

  it("a pattern that cannot match matches nothing: an unclosed class, a trailing `\\`, an unknown POSIX class", () => {
    for (const [text, path] of [
      ["[z\n", "[z"],
      ["[z\n", "z"],
      ["x\\\n", "x"],
      ["x\\\n", "x\\"],
      ["[[:nope:]]\n", "a"],
    ])
      expect(verdict(text!, path!), `${text} ${path}`).toBeUndefined();
  });

  it("names, paths and directories", () => {
    expect(verdict("build/\n", "a/build/")).toBe(true);
    expect(verdict("build/\n", "a/build")).toBeUndefined();
    expect(verdict("doc/frotz/\n", "doc/frotz/")).toBe(true);
    expect(verdict("doc/frotz/\n", "a/doc/frotz/")).toBeUndefined();
    expect(verdict("/a\n", "a")).toBe(true);
    expect(verdict("/a\n", "b/a")).toBeUndefined();
  });

  it("wildcards: `*` and `?` stop at `/`, `**` crosses it where slashes surround it, classes", () => {
    expect(verdict("a/*.c\n", "a/x.c")).toBe(true);
    expect(verdict("a/*.c\n", "a/b/x.c")).toBeUndefined();
    expect(verdict("a?b/c\n", "a/b/c")).toBeUndefined();
    expect(verdict("a/**/b\n", "a/b")).toBe(true);
    expect(verdict("a/**/b\n", "a/x/y/b")).toBe(true);
    expect(verdict("**/b\n", "x/b")).toBe(true);
    expect(verdict("a/**\n", "a/x/y")).toBe(true);
    expect(verdict("x/a**b\n", "x/a/y/b")).toBeUndefined();
    expect(verdict("[a-c]x\n", "bx")).toBe(true);
    expect(verdict("[!a-c]x\n", "bx")).toBeUndefined();
    expect(verdict("[^a-c]x\n", "dx")).toBe(true);
    expect(verdict("[]a]\n", "]")).toBe(true);
    expect(verdict("[[:digit:]]\n", "7")).toBe(true);
  });

  it("a `**` that is the first wildcard of a path pattern counts as after a `/`, as in git", () => {
    // git matches the text before the first wildcard apart, then `**/b` on what is left.
    expect(verdict("a**/b\n", "a/x/b")).toBe(true);
    expect(verdict("a**/y\n", "a/b/c/y")).toBe(true);
    expect(verdict("/a**\n", "a/x/y")).toBe(true);
    // After another wildcard, `**` is `*`.
    expect(verdict("x/a?**/y\n", "x/ab/y")).toBe(true);
    expect(verdict("x/a?**/y\n", "x/ab/c/y")).toBeUndefined();
  });

  it("matches bytes: `?` is one byte of a UTF-8 name", () => {
    expect(verdict("caf?\n", "café")).toBeUndefined();
    expect(verdict("caf??\n", "café")).toBe(true);
    expect(verdict("caf*\n", "café")).toBe(true);
  });
});
