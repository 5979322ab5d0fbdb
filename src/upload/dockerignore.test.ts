import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DockerignoreError, parseDockerignore } from "./dockerignore.js";

const excludes = (patterns: string[], path: string) => parseDockerignore(patterns.join("\n")).excludes(path);

describe("parseDockerignore", () => {
  // Cases from moby/patternmatcher's own tests (MatchesOrParentMatches): docker's behaviour.
  it.each([
    ["**", "file", true],
    ["**", "dir/file", true],
    ["**/", "dir/file", true],
    ["dir/**", "dir/dir2/file", true],
    ["**/dir", "dir", true],
    ["**/dir", "dir/file", true],
    ["**/dir2/*", "dir/dir2/file", true],
    ["**file", "dir/file", true],
    ["**file", "dir/myfile", true],
    ["**/file*.txt", "dir/dir/file.txt", true],
    ["**/**/*.txt2", "dir/dir/file.txt", false],
    ["**/*.txt", "file.txt", true],
    ["a**/*.txt", "a/dir/dir/file.txt", true],
    ["a/*.txt", "a/dir/file.txt", false],
    ["a/*.txt", "a/file.txt", true],
    ["a[b-d]e", "ace", true],
    ["a[b-d]e", "aae", false],
    ["a[^b-d]e", "aze", true],
    [".*", ".foo", true],
    [".*", "foo", false],
    ["abc.def", "abcZdef", false],
    ["abc?def", "abcZdef", true],
    ["abc?def", "abcdef", false],
    ["**/foo/bar", "dir/dir2/foo/bar", true],
    ["abc/**", "abc", false],
    ["abc/**", "abc/def/ghi", true],
    ["**/.foo", "bar.foo", false],
    ["a(b)c/def", "a(b)c/def", true],
    ["a.|)$(}+{bc", "a.|)$(}+{bc", true],
    ["dist/*.whl", "dist/proxy.py-2.4.0rc3.dev36+g08acad9-py3-none-any.whl", true],
    ["a\\*b", "a*b", true],
    ["a\\*b", "ab", false],
    ["a?b", "a☺b", true],
    ["a???b", "a☺b", false],
    ["[a-ζ]*", "α", true],
    ["a*b", "a/b", false],
    ["[\\]a]", "]", true],
    ["[x\\-]", "-", true],
    ["[x\\-]", "z", false],
  ])("%s against %s: %s", (pattern, path, expected) => {
    expect(excludes([pattern], path)).toBe(expected);
  });

  it("anchors patterns at the root, unlike .gitignore", () => {
    expect(excludes(["*.md"], "README.md")).toBe(true);
    expect(excludes(["*.md"], "docs/guide.md")).toBe(false);
    expect(excludes(["**/*.md"], "docs/guide.md")).toBe(true);
    expect(excludes(["node_modules"], "sub/node_modules")).toBe(false);
  });

  it("leaves out everything below a directory it names, with or without a trailing slash", () => {
    expect(excludes(["docs"], "docs/a/b.md")).toBe(true);
    expect(excludes(["docs/"], "docs/a/b.md")).toBe(true);
    expect(excludes(["/docs//a/./"], "docs/a/b.md")).toBe(true);
  });

  it("takes back with !, the last matching line winning, even inside a directory left out", () => {
    expect(excludes(["*.go", "!fileutils.go"], "fileutils.go")).toBe(false);
    expect(excludes(["!fileutils.go", "*.go"], "fileutils.go")).toBe(true);
    expect(excludes(["docs", "!docs/README.md"], "docs/README.md")).toBe(false);
    expect(excludes(["docs", "!docs/README.md"], "docs/other.md")).toBe(true);
    expect(excludes(["**", "!util/docker/web"], "util/docker/web/foo")).toBe(false);
    expect(excludes(["**", "!util/docker/web", "util/docker/web/foo"], "util/docker/web/foo")).toBe(true);
  });

  it("skips comments and blank lines, trims blanks, ignores a byte-order mark and CRLF", () => {
    const matcher = parseDockerignore("\uFEFF# a comment\r\n\r\n  *.log  \r\n  !keep.log\r\n");
    expect(matcher.excludes("a.log")).toBe(true);
    expect(matcher.excludes("keep.log")).toBe(false);
    expect(matcher.excludes("# a comment")).toBe(false);
    expect(matcher.hasExceptions).toBe(true);
    expect(parseDockerignore("*.log\n").hasExceptions).toBe(false);
  });

  it.each([
    ["!", 'line 2: "!" alone is not a pattern'],
    ["[", "line 2"],
    ["a[", "line 2"],
    ["[^bc", "line 2"],
    ["[]a]", "line 2"],
    ["[-x]", "line 2"],
    ["[x-]", "line 2"],
    ["[a-b-c]", "line 2"],
    ["a\\", "line 2"],
  ])("refuses the malformed pattern %s, naming its line", (pattern, message) => {
    expect(() => parseDockerignore(`ok\n${pattern}\n`)).toThrow(DockerignoreError);
    expect(() => parseDockerignore(`ok\n${pattern}\n`)).toThrow(message);
  });

  it("a pattern with no special characters leaves out exactly that path and what is below it", () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9._(){}+$|-]{1,8}$/).filter((s) => s !== "." && s !== "..");
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        fc.array(segment, { maxLength: 3 }),
        (pattern, rest) => {
          const path = pattern.join("/");
          const matcher = parseDockerignore(path);
          expect(matcher.excludes(path)).toBe(true);
          if (rest.length > 0) expect(matcher.excludes([...pattern, ...rest].join("/"))).toBe(true);
          expect(matcher.excludes(`${path}x`)).toBe(false);
        },
      ),
    );
  });
});
