// The walk leaves out what git leaves out: `git ls-files -o --exclude-standard` (the untracked
// files git would add) is the oracle, over famous cases and thousands of generated trees whose
// .gitignore files, at several depths, exclude and re-include with the whole pattern grammar.
import { spawnSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { walkSource } from "./walk.js";

/** Makes a directory holding `files` (path -> content; a path ending in `/` is a directory). */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "cpctl-gitignore-"));
  for (const [path, content] of Object.entries(files)) {
    const absolute = join(root, path);
    if (path.endsWith("/")) {
      mkdirSync(absolute, { recursive: true });
      continue;
    }
    mkdirSync(dirname(absolute), { recursive: true });
    writeFileSync(absolute, content);
  }
  return root;
}

async function packedFiles(root: string): Promise<string[]> {
  const walk = await walkSource(root, { includeCredentials: true });
  return walk.entries.filter((entry) => entry.type === "file").map((entry) => entry.path);
}

describe("the walk leaves out what git leaves out", () => {
  it("a nested .gitignore re-includes a directory the root's excludes (issue 32)", async () => {
    const root = tree({
      ".gitignore": "build/\n",
      "pkg/.gitignore": "!build/\n",
      "pkg/build/out.js": "x",
      "build/out.js": "x",
      "other/build/out.js": "x",
    });
    expect(await packedFiles(root)).toEqual([".gitignore", "pkg/.gitignore", "pkg/build/out.js"]);
    expect((await walkSource(root)).ignored).toEqual(["build/", "other/build/"]);
  });

  it("a nested .gitignore re-includes a file the root's excludes, and excludes one the root re-includes", async () => {
    const root = tree({
      ".gitignore": "*.log\n!keep.log\n",
      "a.log": "x",
      "keep.log": "x",
      "sub/.gitignore": "!*.log\nkeep.log\n",
      "sub/a.log": "x",
      "sub/keep.log": "x",
    });
    expect(await packedFiles(root)).toEqual([".gitignore", "keep.log", "sub/.gitignore", "sub/a.log"]);
  });

  it("git's own example: everything but foo/bar (`/*`, `!/foo`, `/foo/*`, `!/foo/bar`)", async () => {
    const root = tree({
      ".gitignore": "/*\n!/foo\n/foo/*\n!/foo/bar\n",
      "a.txt": "x",
      "foo/bar/x.txt": "x",
      "foo/baz/x.txt": "x",
      "foo/c.txt": "x",
    });
    expect(await packedFiles(root)).toEqual(["foo/bar/x.txt"]);
  });

  it("nothing inside an excluded directory comes back, however deep the `!` line", async () => {
    const root = tree({
      ".gitignore": "logs/\n!logs/keep.log\n",
      "logs/keep.log": "x",
      "logs/.gitignore": "!keep.log\n",
      "app.py": "x",
    });
    expect(await packedFiles(root)).toEqual([".gitignore", "app.py"]);
  });

  it("`**` leading, in the middle and trailing; a slash anchors a pattern to its .gitignore's directory", async () => {
    const root = tree({
      ".gitignore": "**/tmp\na/**/b.txt\nvendor/**\n!vendor/keep/\ndoc/frotz/\n",
      tmp: "x",
      "x/y/tmp/f.txt": "x",
      "a/b.txt": "x",
      "a/x/y/b.txt": "x",
      "vendor/lib.js": "x",
      "vendor/keep/k.js": "x",
      "doc/frotz/f.txt": "x",
      "src/doc/frotz/f.txt": "x",
    });
    expect(await packedFiles(root)).toEqual([".gitignore", "src/doc/frotz/f.txt"]);
  });
});

// ---- The differential test against git --------------------------------------------------

const hasGit = spawnSync("git", ["--version"], { stdio: "ignore" }).status === 0;
if (!hasGit) {
  console.warn("SKIPPED: git is not installed, so the walk is not compared with git's own ignore rules");
}
const needsGit = hasGit ? "" : " (skipped: git is not installed)";

/** Names of files and directories, and the stuff of patterns: glob characters, spaces, UTF-8. */
const NAMES = [
  "a",
  "b",
  "B",
  "ab",
  "Ab",
  "a.c",
  "ab.c",
  "b.txt",
  "x.log",
  "build",
  "out",
  "doc",
  "foo",
  "a b",
  "a-b",
  "é",
  "日本",
  "a*b",
  "a?",
  "[a]",
  "c]",
  "#x",
  "!x",
  "a\\b",
  "sp ",
  "a ",
  " lead",
  ".hid",
];

/** A name, the few common ones more often: a path in a pattern then often names a path of the tree. */
const aName = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom("a", "b", "ab", "a.c", "build") },
  { weight: 3, arbitrary: fc.constantFrom(...NAMES) },
);

/** Pattern pieces that are wildcards of their own, well-formed or not. */
const WILD = [
  "*",
  "**",
  "***",
  "*.c",
  "*.txt",
  "a*",
  "*b*",
  "**a",
  "a**",
  "?",
  "??",
  "[a-c]*",
  "[!a]*",
  "[^.]*",
  "[[:alpha:]]*",
  "[[:digit:][:upper:]]*",
  "[[:space:]]*",
  "[]a]*",
  "[a-]",
  "[z-a]*",
  "[\\]]",
  "[\\a-\\c]*",
  "[é]*",
  "[",
  "a[",
  "[[:nope:]]",
  "[[:alpha]",
];

const GLOB = /[*?[\\]/g;

/** A name as a pattern piece: as it is, its glob characters escaped, or with one character made a wildcard. */
const namePiece = fc.oneof(
  aName,
  aName.map((name) => name.replace(GLOB, "\\$&")),
  fc
    .tuple(aName, fc.nat(), fc.constantFrom("?", "*", "[a-z]", "[!a]", "\\", "**"))
    .map(([name, at, wild]) => {
      const chars = [...name];
      chars[at % chars.length] = wild;
      return chars.join("");
    }),
);
/** Two names joined by what may stand for a `/` of a path, in a pattern (it never does). */
const acrossSlash = fc
  .tuple(aName, fc.constantFrom("?", "*", "[!x]", "[^a]", "[/]", "[[:punct:]]"), aName)
  .map(([before, wild, after]) => `${before}${wild}${after}`);
const piece = fc.oneof(
  { weight: 3, arbitrary: namePiece },
  { weight: 2, arbitrary: fc.constantFrom(...WILD) },
  { weight: 1, arbitrary: acrossSlash },
);

const patternLine = fc
  .record({
    negated: fc.boolean(),
    anchored: fc.boolean(),
    pieces: fc.array(piece, { minLength: 1, maxLength: 3 }),
    directoryOnly: fc.boolean(),
    trailing: fc.constantFrom("", "", "", " ", "  ", "\\ ", "\\  ", "\t"),
  })
  .map(
    ({ negated, anchored, pieces, directoryOnly, trailing }) =>
      `${negated ? "!" : ""}${anchored ? "/" : ""}${pieces.join("/")}${directoryOnly ? "/" : ""}${trailing}`,
  );

const specialLine = fc.constantFrom(
  "",
  " ",
  "# a comment",
  "#a",
  "\\#x",
  "\\!x",
  "!",
  "/",
  "*",
  "/*",
  "!*/",
  "**",
  "**/",
  "/**",
  "!**/",
  "a\\",
  "\\",
  "*/",
  "!/*/",
);

/**
 * A line made from a path of the tree below the .gitignore (so that it often matches): picked
 * by index, its characters escaped where they are glob characters, a few edited into wildcards.
 */
/**
 * What a character of the path becomes; `**-on` drops the rest of the path for a `**`;
 * `slash` makes the next `/` a wildcard (which never matches one).
 */
const EDITS = [
  "?",
  "*",
  "**",
  "**-on",
  "slash",
  "class",
  "range",
  "reversed",
  "not-class",
  "escape",
  "bare",
] as const;
const FOR_A_SLASH = ["?", "*", "[!x]", "[^a]", "[/]", "[[:punct:]]"];
type Edit = (typeof EDITS)[number];

interface DerivedLine {
  pick: number;
  edits: [number, Edit][];
  negated: boolean;
  /** The path as it is, anchored by a leading `/`, after `**\/`, or its last part alone. */
  form: "path" | "/" | "**/" | "name";
  directoryOnly: boolean;
  trailing: string;
}

const derivedLine: fc.Arbitrary<DerivedLine> = fc.record({
  pick: fc.nat(),
  edits: fc.array(fc.tuple(fc.nat(), fc.constantFrom(...EDITS)), { maxLength: 3 }),
  negated: fc.boolean(),
  form: fc.constantFrom("path" as const, "/" as const, "**/" as const, "name" as const),
  directoryOnly: fc.boolean(),
  trailing: fc.constantFrom("", "", " ", "\\ "),
});

function derive(line: DerivedLine, paths: readonly string[]): string {
  const path = paths[line.pick % paths.length] ?? "a";
  const chars = [...(line.form === "name" ? path.slice(path.lastIndexOf("/") + 1) : path)];
  const units = chars.map((ch) => (/[*?[\\]/.test(ch) ? `\\${ch}` : ch));
  for (const [at, edit] of line.edits) {
    const i = at % units.length;
    const ch = chars[i]!;
    if (edit === "**-on") {
      units.splice(i, units.length - i, "**");
      continue;
    }
    if (edit === "slash") {
      const slash = units.indexOf("/", i);
      if (slash !== -1) units[slash] = FOR_A_SLASH[at % FOR_A_SLASH.length]!;
      continue;
    }
    units[i] = {
      "?": "?",
      "*": "*",
      "**": "**",
      class: `[x\\${ch}]`,
      // From the character, or to it (escaped), or backwards (empty unless it is `~`).
      range: at % 2 ? `[\\${ch}-~]` : `[#-\\${ch}]`,
      reversed: `[~-\\${ch}]`,
      "not-class": `[!\\${ch}]`,
      escape: `\\${ch}`,
      bare: ch,
    }[edit];
  }
  const prefix = line.form === "/" ? "/" : line.form === "**/" ? "**/" : "";
  return `${line.negated ? "!" : ""}${prefix}${units.join("")}${line.directoryOnly ? "/" : ""}${line.trailing}`;
}

interface GitignoreSpec {
  bom: boolean;
  /** Each a line (or one to derive from the tree's paths), and whether it ends with CRLF. */
  lines: [string | DerivedLine, boolean][];
  finalNewline: boolean;
}

const gitignoreSpec: fc.Arbitrary<GitignoreSpec> = fc.record({
  bom: fc.boolean(),
  lines: fc.array(
    fc.tuple(
      fc.oneof(
        { weight: 4, arbitrary: derivedLine },
        { weight: 3, arbitrary: patternLine },
        { weight: 1, arbitrary: specialLine },
      ),
      fc.boolean(),
    ),
    { minLength: 1, maxLength: 8 },
  ),
  finalNewline: fc.boolean(),
});

function gitignoreText({ bom, lines, finalNewline }: GitignoreSpec, paths: readonly string[]): string {
  const text = lines
    .map(([line, crlf]) => `${typeof line === "string" ? line : derive(line, paths)}${crlf ? "\r" : ""}`)
    .join("\n");
  return `${bom ? "\uFEFF" : ""}${text}${finalNewline ? "\n" : ""}`;
}

interface GeneratedTree {
  /** Each a path of names. */
  files: string[][];
  /** .gitignore files, placed in the directory of that index (modulo their number; 0 is the root). */
  gitignores: [number, GitignoreSpec][];
}

const generatedTree: fc.Arbitrary<GeneratedTree> = fc.record({
  files: fc.array(fc.array(aName, { minLength: 1, maxLength: 4 }), { minLength: 4, maxLength: 16 }),
  gitignores: fc.array(fc.tuple(fc.nat(), gitignoreSpec), { minLength: 1, maxLength: 4 }),
});

interface Layout {
  /** Each directory below the root, after its parent. */
  directories: string[];
  /** Files (empty) and .gitignore files by path. */
  files: Record<string, string>;
}

/** The tree to write: a path that a file and a directory both claim is the first's. */
function layout(generated: GeneratedTree): Layout {
  const files = new Set<string>();
  const directories = [""];
  for (const parts of generated.files) {
    const path = parts.join("/");
    const parents = parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
    if (parents.some((parent) => files.has(parent)) || directories.includes(path) || files.has(path))
      continue;
    for (const parent of parents) if (!directories.includes(parent)) directories.push(parent);
    files.add(path);
  }
  const written: Record<string, string> = Object.fromEntries([...files].map((path) => [path, ""]));
  const all = [...files, ...directories.slice(1)];
  for (const [index, spec] of generated.gitignores) {
    const directory = directories[index % directories.length]!;
    const below = directory
      ? all.filter((path) => path.startsWith(`${directory}/`)).map((path) => path.slice(directory.length + 1))
      : all;
    written[directory ? `${directory}/.gitignore` : ".gitignore"] = gitignoreText(spec, below);
  }
  return { directories: directories.slice(1), files: written };
}

/**
 * Writes it under `root`. Making files is most of this test's time, and making one (an inode)
 * costs about 50 times what linking one does on the machines it runs on: each empty file is a
 * hard link to `empty` (the walk judges names, never contents).
 */
function writeLayout(root: string, { directories, files }: Layout, empty: string): void {
  mkdirSync(root);
  for (const directory of directories) mkdirSync(join(root, directory));
  for (const [path, content] of Object.entries(files)) {
    if (content === "") linkSync(empty, join(root, path));
    else writeFileSync(join(root, path), content);
  }
}

/** `git ls-files -o --exclude-standard` in `repo`: no user, system or global excludes, case-sensitive. */
function gitUntracked(repo: string, home: string): string[] {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    LC_ALL: "C",
  };
  const git = (...args: string[]) => {
    const result = spawnSync(
      "git",
      ["-c", "core.excludesFile=/dev/null", "-c", "core.ignoreCase=false", ...args],
      { cwd: repo, env, maxBuffer: 64 << 20 },
    );
    if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString()}`);
    return result.stdout;
  };
  // No template: no .git/info/exclude either.
  git("init", "-q", "--template=", ".");
  return git("ls-files", "-o", "--exclude-standard", "-z").toString("utf8").split("\0").filter(Boolean);
}

describe("the walk against git", () => {
  it.skipIf(!hasGit)(
    `property: the files packed are the untracked files git lists, over generated trees and .gitignore files${needsGit}`,
    async () => {
      const home = mkdtempSync(join(tmpdir(), "cpctl-git-home-"));
      const empty = join(home, "empty");
      writeFileSync(empty, "");
      await fc.assert(
        fc.asyncProperty(fc.array(generatedTree, { minLength: 10, maxLength: 20 }), async (trees) => {
          // One repository holds the batch, a tree in each of its top directories: one git run.
          const repo = mkdtempSync(join(tmpdir(), "cpctl-git-batch-"));
          const layouts = trees.map((generated, i) => {
            const planned = layout(generated);
            writeLayout(join(repo, `t${i}`), planned, empty);
            return planned.files;
          });
          const byTree = new Map<number, string[]>();
          for (const path of gitUntracked(repo, home)) {
            const slash = path.indexOf("/");
            const index = Number(path.slice(1, slash));
            byTree.set(index, [...(byTree.get(index) ?? []), path.slice(slash + 1)]);
          }
          const differences = [];
          for (const [i, files] of layouts.entries()) {
            const git = (byTree.get(i) ?? []).sort();
            const cpctl = (await packedFiles(join(repo, `t${i}`))).sort();
            if (git.join("\0") !== cpctl.join("\0")) {
              differences.push({
                gitignores: Object.fromEntries(
                  Object.entries(files).filter(([path]) => path.endsWith(".gitignore")),
                ),
                onlyGit: git.filter((path) => !cpctl.includes(path)),
                onlyCpctl: cpctl.filter((path) => !git.includes(path)),
              });
            }
          }
          expect(differences).toEqual([]);
        }),
        { numRuns: 40 },
      );
    },
    60_000,
  );
});
