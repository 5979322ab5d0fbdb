// `deploy upload`'s second argument made ready to send: a directory packed (pack.ts), or a
// .tar.gz/.tgz file taken as it is. Every local problem, the size limit included, becomes a
// usage error here, before the command makes any request (a command may make one from
// onFilesRead, when only compressing is left: see pack.ts).
//
// The tarball waits in memory or in a temporary file (spool.ts), its size and sha256 known:
// the caller uploads it with uploadTarball (it is read again for a retry) and disposes of it
// after.
import { statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { UsageError } from "../errors.js";
import { NothingToPackError, SourceError, TooLargeError } from "./errors.js";
import { type PackOptions, packDirectory, readTarball, type Tarball } from "./pack.js";
import { formatBytes } from "./size.js";
import { WalkError, type WalkResult } from "./walk.js";

export interface PreparedSource {
  kind: "directory" | "tarball";
  /** The argument as given, for messages. */
  display: string;
  /** The gzipped tarball to send: `bytes`, `sha256`, `stream()`; `dispose()` when done. */
  tarball: Tarball;
  /** Directories only: what was packed, left out and skipped. */
  walk: WalkResult | null;
  /** Directories only: content bytes before compression. */
  contentBytes: number | null;
}

export async function prepareSource(
  cwd: string,
  given: string,
  maxBytes: number,
  options: PackOptions = {},
): Promise<PreparedSource> {
  const path = isAbsolute(given) ? given : join(cwd, given);
  let isDirectory: boolean;
  try {
    // Synchronous, as the walk that follows is: node:fs/promises, which nothing else on the
    // way to the upload needs, is not loaded for it (about 1.5 ms).
    const stats = statSync(path);
    if (!stats.isDirectory() && !stats.isFile())
      throw new UsageError(`${given} is neither a directory nor a regular file`);
    isDirectory = stats.isDirectory();
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === "ENOENT"
        ? `${given}: no such file or directory`
        : `${given}: cannot read it (${code ?? String(error)})`,
    );
  }
  try {
    if (!isDirectory) {
      const tarball = await readTarball(path, given, maxBytes);
      return { kind: "tarball", display: given, tarball, walk: null, contentBytes: null };
    }
    const packed = await packDirectory(path, maxBytes, options);
    return { kind: "directory", display: given, ...packed };
  } catch (error) {
    throw asUsageError(error, given, maxBytes);
  }
}

/** One line for stderr: what is about to be sent. */
export function describeSource(source: PreparedSource): string {
  if (!source.walk) return `${source.display}: ${formatBytes(source.tarball.bytes)} tarball, sent as it is`;
  const files = source.walk.entries.filter((entry) => entry.type === "file").length;
  const left: string[] = [];
  if (source.walk.ignored.length) left.push(`${source.walk.ignored.length} by .gitignore`);
  if (source.walk.dockerignored.length) left.push(`${source.walk.dockerignored.length} by .dockerignore`);
  if (source.walk.excluded.length)
    left.push(`${source.walk.excluded.length} by default (${preview(source.walk.excluded, 3)})`);
  if (source.walk.credentials.length)
    left.push(
      `${source.walk.credentials.length} credential file${source.walk.credentials.length === 1 ? "" : "s"}`,
    );
  return (
    `Packed ${files} file${files === 1 ? "" : "s"} from ${source.display}: ${formatBytes(source.contentBytes ?? 0)}, ` +
    `${formatBytes(source.tarball.bytes)} gzipped${left.length ? `; left out ${left.join(", ")}` : ""}`
  );
}

/** What is said of what was left out: warnings, and notes (what is as the user meant it). */
export interface LeftOutMessages {
  warnings: string[];
  notes: string[];
}

/**
 * `secrets`: for a command that takes `--secrets-file` (push), the path of the one given,
 * relative to the directory when it is one of its files (null otherwise): left out as a
 * credential file as it should be, and said so as a note, not a warning. A dotenv file left out
 * when none was given is worth suggesting as one.
 */
export function leftOutMessages(
  source: PreparedSource,
  secrets: { file: string | null } | null = null,
): LeftOutMessages {
  const secretsFile = secrets?.file ?? null;
  const warnings: string[] = [];
  const notes: string[] = [];
  const { skipped = [], credentials = [], credentialLinks = [] } = source.walk ?? {};
  // A hard link is named with the file it is a link to: its own name says nothing.
  const links = new Set(credentialLinks.map((link) => link.path));
  const named = credentials.filter((path) => !links.has(path) && path !== secretsFile);
  if (secretsFile !== null && credentials.includes(secretsFile)) {
    notes.push(
      `${secretsFile} is the secrets file (--secrets-file): its values are sent as secrets, the file is not uploaded`,
    );
  }
  if (named.length > 0) {
    const dotenv = secrets !== null && secretsFile === null ? named.find(isDotenvName) : undefined;
    const instead = dotenv
      ? `; to send ${dotenv}'s values as the deployment's secrets instead, pass --secrets-file ${dotenv} (--include-credentials would upload ${named.length === 1 ? "it" : "them"})`
      : "; pass --include-credentials to upload them";
    warnings.push(
      `left out ${named.length === 1 ? "a file that usually holds credentials" : "files that usually hold credentials"}: ${preview(named, 10)}${instead}`,
    );
  }
  for (const { path, linkTo } of credentialLinks) {
    warnings.push(
      `left out ${path}: it is a hard link to ${linkTo}, a credential file; pass --include-credentials to upload it`,
    );
  }
  if (skipped.length > 0) {
    const shown = preview(
      skipped.map((s) => `${s.path} (${s.reason})`),
      10,
    );
    warnings.push(`not uploaded: ${shown}; only regular files and directories with one-line UTF-8 names are`);
  }
  return { warnings, notes };
}

/** A dotenv file at the root (`.env`, `.env.production`): what --secrets-file reads. */
function isDotenvName(path: string): boolean {
  return !path.includes("/") && (path === ".env" || path.startsWith(".env."));
}

function asUsageError(error: unknown, given: string, maxBytes: number): unknown {
  if (error instanceof TooLargeError) return tooLarge(error, given, maxBytes);
  if (error instanceof NothingToPackError) return nothingToPack(error, given);
  if (error instanceof SourceError || error instanceof WalkError)
    return new UsageError(`${given}: ${error.message}`);
  return error;
}

function nothingToPack({ walk }: NothingToPackError, given: string): UsageError {
  const { ignored, dockerignored } = walk;
  const rules = [ignored.length > 0 && ".gitignore", dockerignored.length > 0 && ".dockerignore"];
  return new UsageError(`${given} has no files to upload`).withHint(
    ignored.length + dockerignored.length > 0
      ? `Its ${rules.filter(Boolean).join(" and ")} rules leave out everything: ${preview([...ignored, ...dockerignored])}`
      : "Give the directory that holds the agent's source.",
  );
}

function tooLarge(error: TooLargeError, given: string, maxBytes: number): UsageError {
  const limit = `${formatBytes(maxBytes)} (${maxBytes} bytes)`;
  if (!error.atLeast) {
    return new UsageError(
      `${given} is ${formatBytes(error.bytes)} (${error.bytes} bytes), over the upload limit of ${limit}; nothing was sent`,
    ).withHint(
      "Raise the limit with --max-size (e.g. --max-size 200MiB) if the server accepts larger uploads.",
    );
  }
  const largest = error.largest.map((file) => `${file.path} (${formatBytes(file.size)})`).join(", ");
  return new UsageError(
    `the tarball of ${given} is over the upload limit of ${limit} gzipped; nothing was sent`,
  )
    .withHint(
      `The directory holds ${formatBytes(error.contentBytes ?? 0)} of files before compression${largest ? `; the largest: ${largest}` : ""}.`,
    )
    .withHint(
      "Leave files out with .gitignore, or raise the limit with --max-size if the server accepts larger uploads.",
    );
}

/** The first `count` of `paths`, and how many more. */
function preview(paths: readonly string[], count = 5): string {
  return paths.length <= count
    ? paths.join(", ")
    : `${paths.slice(0, count).join(", ")} and ${paths.length - count} more`;
}
