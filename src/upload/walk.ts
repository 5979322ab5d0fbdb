// Which files of a source directory go into the tarball.
//
// - `.gitignore` files leave out what git leaves out (the untracked files that
//   `git ls-files -o --exclude-standard` does not list; walk-gitignore.test.ts compares the two
//   over thousands of generated trees): each file applies to the paths below its own
//   directory, and each path is judged by matching the path itself against the lines of the
//   deepest file first (gitignore.ts), the last matching line of a file deciding; a directory
//   left out is not entered, so nothing inside it comes back, while one that a deeper file
//   takes back (`!build/`) is entered and its files judged on their own. Matching is
//   case-sensitive (git's default on Linux, where the service builds).
// - `.git`, `node_modules`, Python's `.venv`/`venv`, `__pycache__`, `.pytest_cache`,
//   `.mypy_cache` and `*.pyc` are always left out, at any depth, whatever .gitignore says; so
//   are cpctl's own project files at the root (`.cpctlrc`, `.cpctlrc.yaml`, `.cpctlrc.yml`,
//   `.cpctlrc.json`, `cpctl.config.mjs`): settings and the `deployment` deploy push remembers,
//   which the build has no use for, and which must not make the next push a new tarball.
// - Symbolic links and special files (sockets, FIFOs, devices) are skipped and reported:
//   a link could point outside the directory, and the build sees only what the tarball holds.
// - Files that usually hold credentials (CREDENTIAL_FILES: .env files, registry and cloud
//   credentials, private keys, Terraform variables and state...) are left out and reported,
//   unless asked for: a source directory is often a working copy, and the tarball goes to a
//   server and into a build. Their names are matched whatever their case (`.ENV`, `ID_RSA`,
//   `server.PEM`): a file system that ignores case, or a person, may write them so; so are
//   their editors' and backup tools' copies (`.env~`, `key.pem.bak`, `#.env#`). A hard link
//   to a credential file that is not packed (by name, or by an ignore file) is left out too,
//   under whatever name (credential-links.ts).
// - A name with a line break, or that is not valid UTF-8, is skipped and reported: the tar
//   header could hold it, but build tools and the listing would not read it right, and a name
//   that is not UTF-8 cannot even be read back by the path Node gives for it.
// - Entries come depth first, each directory's children sorted by name (code-unit order,
//   not the locale's), so that the same tree always gives the same list.
//
// Only `.gitignore` files inside the directory count: not `.git/info/exclude`, not a global
// excludes file, not a `.gitignore` above the directory.
//
// A `.dockerignore` at the root is honoured too (dockerignore.ts), as docker reads it: the
// service builds an image from the tarball, and what the build would ignore need not be sent.
// It can only leave out more: its `!` lines take back what an earlier line of its own left
// out, never what .gitignore or the rules above leave out.
//
// The walk calls the file system synchronously (a project of 10,000 files is listed in tens of
// milliseconds, where one asynchronous lstat after another took seconds), and lets the event
// loop run between directories, so that Ctrl-C still stops it. Each file's device and inode
// are kept: packing opens only the file the walk saw (walked-file.ts). The ignore files are
// read as packing reads files: no link followed, no FIFO waited on, at most 1 MiB.
import { isUtf8 } from "node:buffer";
import { closeSync, type Dirent, fstatSync, lstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import { CPCTL_PROJECT_FILES } from "../config/paths.js";
import { visible } from "../output/safe-text.js";
import { credentialLinks, type UnpackedCredential } from "./credential-links.js";
import { isCredentialFile } from "./credentials.js";
import { DockerignoreError, type DockerignoreMatcher, parseDockerignore } from "./dockerignore.js";
import { asBytes, type Gitignore, parseGitignore } from "./gitignore.js";
import { READ_NO_FOLLOW, type SourceFile } from "./walked-file.js";

export interface WalkOptions {
  /** Pack the files of CREDENTIAL_FILES (credentials.ts) too. */
  includeCredentials?: boolean;
}

export interface SkippedPath {
  /** As shown to a person: control characters and bytes that are not UTF-8 made visible. */
  path: string;
  reason: "symlink" | "special file" | "a line break in its name" | "a name that is not UTF-8";
}

export interface WalkResult {
  entries: SourceFile[];
  /** Paths left out by a .gitignore rule (a directory counts once). */
  ignored: string[];
  /** Paths left out by default (`.git`, `node_modules`, Python's environments and caches, cpctl's files at the root). */
  excluded: string[];
  skipped: SkippedPath[];
  /** Files of CREDENTIAL_FILES (credentials.ts) left out, and hard links to them, in walk order. */
  credentials: string[];
  /** The hard links among `credentials`: each file, and the credential file it is a link to. */
  credentialLinks: { path: string; linkTo: string }[];
  /** Paths left out by the root's .dockerignore (a directory counts once). */
  dockerignored: string[];
}

interface Matcher {
  /** The length of the .gitignore's directory (relative to the root, as asBytes gives it; 0 for the root). */
  baseLength: number;
  rules: Gitignore;
}

export class WalkError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

export async function walkSource(root: string, options: WalkOptions = {}): Promise<WalkResult> {
  const result: WalkResult = {
    entries: [],
    ignored: [],
    excluded: [],
    skipped: [],
    credentials: [],
    credentialLinks: [],
    dockerignored: [],
  };
  const state: WalkState = {
    ...options,
    docker: loadDockerignore(root),
    unpackedCredentials: [],
    linked: [],
  };
  await walkDirectory(root, "", [], result, state);
  leaveOutCredentialLinks(result, state);
  return result;
}

interface WalkState extends WalkOptions {
  docker: DockerignoreMatcher | null;
  /** Credential files not packed, whatever left them out: what a hard link could be a link to. */
  unpackedCredentials: UnpackedCredential[];
  /** Files packed that have more than one link, in walk order: the only ones that can be one. */
  linked: SourceFile[];
}

/** Takes out of the entries each hard link to a credential file not packed, and lists it with them. */
function leaveOutCredentialLinks(result: WalkResult, state: WalkState): void {
  const links = credentialLinks(state.linked, state.unpackedCredentials);
  if (links.length === 0) return;
  const linked = new Set(links.map((link) => link.entry));
  result.entries = result.entries.filter((entry) => !linked.has(entry));
  for (const { entry, linkTo } of links) {
    result.credentialLinks.push({ path: entry.path, linkTo });
    result.credentials.push(entry.path);
  }
  result.credentials.sort(inWalkOrder);
}

/** Depth first, each directory's children by name (code-unit order): the order of the walk. */
function inWalkOrder(a: string, b: string): number {
  const left = a.split("/");
  const right = b.split("/");
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i]) return left[i]! < right[i]! ? -1 : 1;
  }
  return left.length - right.length;
}

/** Keeps a file left out by an ignore file when its name is a credential file's. */
function noteIfCredential(state: WalkState, absolute: string, path: string): void {
  if (!state.includeCredentials && isCredentialFile(path)) state.unpackedCredentials.push({ absolute, path });
}

/** Lets the event loop run (a signal handler, a timer) between directories. */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

async function walkDirectory(
  absolute: string,
  relative: string,
  inherited: Matcher[],
  result: WalkResult,
  options: WalkState,
): Promise<void> {
  await breathe();
  const children: { name: string; kind: Dirent<Buffer> }[] = [];
  const entries = readDirectory(absolute, relative);
  // Byte order first, so that what is skipped is reported in the same order on every machine.
  entries.sort((a, b) => Buffer.compare(a.name, b.name));
  for (const entry of entries) {
    const problem = nameProblem(entry.name);
    if (problem === null) children.push({ name: entry.name.toString("utf8"), kind: entry });
    else result.skipped.push({ path: shownPath(relative, entry.name), reason: problem });
  }
  children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const matchers = [...inherited];
  const gitignore = children.find((child) => child.name === ".gitignore" && child.kind.isFile());
  if (gitignore)
    matchers.push({
      baseLength: asBytes(relative).length,
      rules: loadGitignore(join(absolute, ".gitignore"), relative),
    });

  for (const child of children) {
    const path = relative ? `${relative}/${child.name}` : child.name;
    const childAbsolute = join(absolute, child.name);
    if (leftOutByDefault(child.name, child.kind.isDirectory(), relative === "")) {
      result.excluded.push(child.kind.isDirectory() ? `${path}/` : path);
      continue;
    }
    const dockerExcluded = options.docker?.excludes(path) ?? false;
    if (child.kind.isSymbolicLink()) {
      if (!isIgnored(matchers, path, false) && !dockerExcluded)
        result.skipped.push({ path, reason: "symlink" });
      continue;
    }
    const isDirectory = child.kind.isDirectory();
    if (!isDirectory && !child.kind.isFile()) {
      if (!isIgnored(matchers, path, false) && !dockerExcluded)
        result.skipped.push({ path, reason: "special file" });
      continue;
    }
    if (isIgnored(matchers, path, isDirectory)) {
      result.ignored.push(isDirectory ? `${path}/` : path);
      if (!isDirectory) noteIfCredential(options, childAbsolute, path);
      continue;
    }
    const entry: SourceFile = { path, type: "directory", mode: 0o755, size: 0, dev: 0, ino: 0 };
    if (isDirectory && dockerExcluded) {
      // Only a `!` line can take back something below a directory left out: look only then.
      if (options.docker?.hasExceptions)
        await walkExcludedDirectory(childAbsolute, entry, matchers, result, options);
      else result.dockerignored.push(`${path}/`);
    } else if (isDirectory) {
      list(result, entry);
      await walkDirectory(childAbsolute, path, matchers, result, options);
    } else if (dockerExcluded) {
      result.dockerignored.push(path);
      noteIfCredential(options, childAbsolute, path);
    } else if (!options.includeCredentials && isCredentialFile(path)) {
      result.credentials.push(path);
      options.unpackedCredentials.push({ absolute: childAbsolute, path });
    } else {
      const stats = statFile(childAbsolute, path);
      // Replaced by something else since the directory was read: not the file that was listed.
      if (!stats.isFile()) {
        result.skipped.push({ path, reason: stats.isSymbolicLink() ? "symlink" : "special file" });
        continue;
      }
      const mode = stats.mode & 0o111 ? 0o755 : 0o644;
      const file: SourceFile = { path, type: "file", mode, size: stats.size, dev: stats.dev, ino: stats.ino };
      list(result, file);
      if (stats.nlink > 1) options.linked.push(file);
    }
  }
}

/**
 * What no build needs and every project has lying around: `.git`, and the directories a
 * package manager or a Python run fills (a virtual environment, caches), and compiled Python
 * files. Left out at any depth, whatever .gitignore says, as node_modules always was: a
 * project without a .gitignore would otherwise ship its .venv.
 */
const DEFAULT_LEFT_OUT_DIRECTORIES = new Set([
  "node_modules",
  ".venv",
  "venv",
  "__pycache__",
  ".pytest_cache",
  ".mypy_cache",
]);

function leftOutByDefault(name: string, isDirectory: boolean, atRoot: boolean): boolean {
  if (name === ".git") return true;
  if (isDirectory) return DEFAULT_LEFT_OUT_DIRECTORIES.has(name);
  return name.endsWith(".pyc") || (atRoot && CPCTL_PROJECT_FILES.includes(name));
}

function list(result: WalkResult, entry: SourceFile): void {
  result.entries.push(entry);
}

/**
 * A directory the .dockerignore leaves out, that a `!` line may reach into: packed with what
 * is taken back below it, or, when nothing is, reported as one left-out directory.
 */
async function walkExcludedDirectory(
  absolute: string,
  entry: SourceFile,
  matchers: Matcher[],
  result: WalkResult,
  options: WalkState,
): Promise<void> {
  const before = {
    entries: result.entries.length,
    ignored: result.ignored.length,
    skipped: result.skipped.length,
    credentials: result.credentials.length,
    dockerignored: result.dockerignored.length,
  };
  await walkDirectory(absolute, entry.path, matchers, result, options);
  if (result.entries.length > before.entries) {
    result.entries.splice(before.entries, 0, entry);
    return;
  }
  // Nothing below it is packed: what was found there is all left out with it.
  result.ignored.length = before.ignored;
  result.skipped.length = before.skipped;
  result.credentials.length = before.credentials;
  result.dockerignored.length = before.dockerignored;
  result.dockerignored.push(`${entry.path}/`);
}

/** The root's .dockerignore when it is a regular file; null when there is none. */
function loadDockerignore(root: string): DockerignoreMatcher | null {
  const file = join(root, ".dockerignore");
  // A link or a special file is skipped like any other (and reported by the walk).
  const text = readIgnoreFile(file, ".dockerignore", { missing: null, notAFile: null });
  if (text === null) return null;
  try {
    return parseDockerignore(text.toString("utf8"));
  } catch (error) {
    if (error instanceof DockerignoreError) throw new WalkError(`.dockerignore ${error.message}`, file);
    throw error;
  }
}

/**
 * The deepest .gitignore with a line matching the path itself decides; none: included. The
 * directories above the path need no look: the walk entered them, so none is left out.
 */
function isIgnored(matchers: readonly Matcher[], path: string, isDirectory: boolean): boolean {
  const subject = asBytes(path);
  const name = subject.slice(subject.lastIndexOf("/") + 1);
  for (let i = matchers.length - 1; i >= 0; i--) {
    const { baseLength, rules } = matchers[i]!;
    const verdict = rules.verdict(baseLength ? subject.slice(baseLength + 1) : subject, name, isDirectory);
    if (verdict !== undefined) return verdict;
  }
  return false;
}

function loadGitignore(file: string, relative: string): Gitignore {
  const shown = `${relative ? `${relative}/` : ""}.gitignore`;
  return parseGitignore(readIgnoreFile(file, shown));
}

/** Largest ignore file read: far more than any real one, and a bound on a hostile one. */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/**
 * An ignore file's bytes, read without following a link or waiting on a FIFO, at most 1 MiB.
 * `when` says what a missing file or one that is not a regular file gives (default: an error).
 */
function readIgnoreFile<T = never>(
  file: string,
  shown: string,
  when: { missing?: T; notAFile?: T } = {},
): Buffer | T {
  let fd: number;
  try {
    fd = openSync(file, READ_NO_FOLLOW);
  } catch (error) {
    const code = codeOf(error);
    if (code === "ENOENT" && "missing" in when) return when.missing as T;
    if (code === "ELOOP" && "notAFile" in when) return when.notAFile as T;
    throw new WalkError(`cannot read ${shown} (${code})`, file);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      if ("notAFile" in when) return when.notAFile as T;
      throw new WalkError(`${shown} is not a regular file`, file);
    }
    if (stats.size > MAX_IGNORE_FILE_BYTES)
      throw new WalkError(`${shown} is ${stats.size} bytes, more than the 1 MiB cpctl reads`, file);
    const text = Buffer.alloc(stats.size);
    let read = 0;
    while (read < text.length) {
      const n = readSync(fd, text, read, text.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return text.subarray(0, read);
  } catch (error) {
    if (error instanceof WalkError) throw error;
    throw new WalkError(`cannot read ${shown} (${codeOf(error)})`, file);
  } finally {
    closeSync(fd);
  }
}

/** Names as bytes: a name that is not UTF-8 would come back as text that names no file. */
function readDirectory(absolute: string, relative: string): Dirent<Buffer>[] {
  try {
    return readdirSync(absolute, { withFileTypes: true, encoding: "buffer" });
  } catch (error) {
    throw new WalkError(`cannot read the directory ${relative || "."} (${codeOf(error)})`, absolute);
  }
}

function statFile(absolute: string, relative: string) {
  try {
    return lstatSync(absolute);
  } catch (error) {
    throw new WalkError(`cannot read ${relative} (${codeOf(error)})`, absolute);
  }
}

function nameProblem(name: Buffer): SkippedPath["reason"] | null {
  if (!isUtf8(name)) return "a name that is not UTF-8";
  return name.includes(0x0a) || name.includes(0x0d) ? "a line break in its name" : null;
}

/** A path for messages: bytes that are not UTF-8 as `\xHH`, control characters visible. */
function shownPath(relative: string, name: Buffer): string {
  const text = isUtf8(name)
    ? visible(name.toString("utf8"))
    : [...name]
        .map((byte) =>
          byte >= 0x20 && byte < 0x7f
            ? String.fromCharCode(byte)
            : `\\x${byte.toString(16).padStart(2, "0")}`,
        )
        .join("");
  return relative ? `${visible(relative)}/${text}` : text;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}
