// Which files of a source directory go into the tarball.
//
// - `.gitignore` files are honoured as git does: each applies to the paths below its own
//   directory, a deeper file wins over a shallower one, the last matching line of a file
//   wins, `!pattern` re-includes, and nothing inside an excluded directory can be
//   re-included. Matching is case-sensitive (git's default on Linux, where the service builds).
// - `.git` and `node_modules` are always left out, at any depth, whatever .gitignore says.
// - Symbolic links and special files (sockets, FIFOs, devices) are skipped and reported:
//   a link could point outside the directory, and the build sees only what the tarball holds.
// - Entries come depth first, each directory's children sorted by name (code-unit order,
//   not the locale's), so that the same tree always gives the same list.
//
// Only `.gitignore` files inside the directory count: not `.git/info/exclude`, not a global
// excludes file, not a `.gitignore` above the directory.
import type { Dirent } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import ignore, { type Ignore } from "ignore";

export const ALWAYS_EXCLUDED = [".git", "node_modules"] as const;

export interface SourceFile {
  /** Relative POSIX path inside the directory. */
  path: string;
  absolute: string;
  type: "file" | "directory";
  /** Normalised as git does: 0o755 when any execute bit is set, else 0o644; 0o755 for directories. */
  mode: number;
  size: number;
}

export interface SkippedPath {
  path: string;
  reason: "symlink" | "special file";
}

export interface WalkResult {
  entries: SourceFile[];
  /** Paths left out by a .gitignore rule (a directory counts once). */
  ignored: string[];
  /** `.git` and `node_modules` paths left out. */
  excluded: string[];
  skipped: SkippedPath[];
}

interface Matcher {
  /** Directory of the .gitignore, relative to the root ("" for the root). */
  base: string;
  rules: Ignore;
}

export class WalkError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

export async function walkSource(root: string): Promise<WalkResult> {
  const result: WalkResult = { entries: [], ignored: [], excluded: [], skipped: [] };
  await walkDirectory(root, "", [], result);
  return result;
}

async function walkDirectory(
  absolute: string,
  relative: string,
  inherited: Matcher[],
  result: WalkResult,
): Promise<void> {
  const children = await readDirectory(absolute, relative);
  children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const matchers = [...inherited];
  const gitignore = children.find((child) => child.name === ".gitignore" && child.isFile());
  if (gitignore)
    matchers.push({ base: relative, rules: await loadGitignore(join(absolute, ".gitignore"), relative) });

  for (const child of children) {
    const path = relative ? `${relative}/${child.name}` : child.name;
    const childAbsolute = join(absolute, child.name);
    if (child.name === ".git" || (child.name === "node_modules" && child.isDirectory())) {
      result.excluded.push(child.isDirectory() ? `${path}/` : path);
      continue;
    }
    if (child.isSymbolicLink()) {
      if (!isIgnored(matchers, path, false)) result.skipped.push({ path, reason: "symlink" });
      continue;
    }
    const isDirectory = child.isDirectory();
    if (!isDirectory && !child.isFile()) {
      if (!isIgnored(matchers, path, false)) result.skipped.push({ path, reason: "special file" });
      continue;
    }
    if (isIgnored(matchers, path, isDirectory)) {
      result.ignored.push(isDirectory ? `${path}/` : path);
      continue;
    }
    if (isDirectory) {
      result.entries.push({ path, absolute: childAbsolute, type: "directory", mode: 0o755, size: 0 });
      await walkDirectory(childAbsolute, path, matchers, result);
    } else {
      const stats = await statFile(childAbsolute, path);
      const mode = stats.mode & 0o111 ? 0o755 : 0o644;
      result.entries.push({ path, absolute: childAbsolute, type: "file", mode, size: stats.size });
    }
  }
}

/** The deepest .gitignore with an opinion decides; none: included. */
function isIgnored(matchers: readonly Matcher[], path: string, isDirectory: boolean): boolean {
  for (let i = matchers.length - 1; i >= 0; i--) {
    const { base, rules } = matchers[i]!;
    const local = base ? path.slice(base.length + 1) : path;
    const verdict = rules.test(isDirectory ? `${local}/` : local);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

async function loadGitignore(file: string, relative: string): Promise<Ignore> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new WalkError(`cannot read ${relative ? `${relative}/` : ""}.gitignore (${codeOf(error)})`, file);
  }
  return ignore({ ignorecase: false }).add(text);
}

async function readDirectory(absolute: string, relative: string): Promise<Dirent[]> {
  try {
    return await readdir(absolute, { withFileTypes: true });
  } catch (error) {
    throw new WalkError(`cannot read the directory ${relative || "."} (${codeOf(error)})`, absolute);
  }
}

async function statFile(absolute: string, relative: string) {
  try {
    return await lstat(absolute);
  } catch (error) {
    throw new WalkError(`cannot read ${relative} (${codeOf(error)})`, absolute);
  }
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}
