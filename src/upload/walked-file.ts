// Opening a file the walk listed, to pack it: only the file the walk saw, and never through a
// link. Between the walk (lstat) and the read, anything in the directory can change: a file
// swapped for a symbolic link to ~/.ssh/id_rsa would otherwise be followed, and a file from
// outside the directory uploaded.
//
// - The open does not follow a link in the last part of the path (O_NOFOLLOW: a link there
//   fails with ELOOP) and does not block on a FIFO swapped in (O_NONBLOCK).
// - What was opened must be the walk's file: a regular file with the same device, inode and
//   size (fstat of the descriptor, so no other path can answer for it).
// - On Linux, the path the kernel resolved for the descriptor must be the one inside the
//   directory: a directory on the way swapped for a link to elsewhere is caught too.
// Anything else stops the packing with a SourceError that says which file changed.
import { closeSync, constants, existsSync, fstatSync, openSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { SourceError } from "./errors.js";

/** A file or directory the walk listed (walk.ts), as packing reads it. */
export interface SourceFile {
  /** Relative POSIX path inside the directory. */
  path: string;
  type: "file" | "directory";
  /** Normalised as git does: 0o755 when any execute bit is set, else 0o644; 0o755 for directories. */
  mode: number;
  size: number;
  /** Which file the walk saw (lstat): packing opens nothing else. 0 for directories. */
  dev: number;
  ino: number;
}

/** Read-only, not through a link in the last part of the path, never waiting on a FIFO. */
export const READ_NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

let descriptorPaths: boolean | undefined;
/** /proc/self/fd names each open descriptor's resolved path (Linux). */
function canResolveDescriptors(): boolean {
  descriptorPaths ??= process.platform === "linux" && existsSync("/proc/self/fd");
  return descriptorPaths;
}

/**
 * The path the kernel resolved for the open descriptor `fd`, every link on the way followed
 * (Linux: /proc/self/fd); null where the system cannot say. What it names is what is read,
 * whatever was swapped on the way after the open.
 */
export function descriptorPath(fd: number): string | null {
  return canResolveDescriptors() ? readlinkSync(`/proc/self/fd/${fd}`) : null;
}

/**
 * A descriptor of `file` of the directory `root`, read-only, after checking that it is the
 * file the walk listed. `realRoot` is `root` with every link in its path resolved (realpath).
 */
export function openWalkedFile(file: SourceFile, root: string, realRoot: string): number {
  let fd: number;
  try {
    fd = openSync(join(root, file.path), READ_NO_FOLLOW);
  } catch (error) {
    throw openFailure(file, error);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.dev !== file.dev || stats.ino !== file.ino) {
      throw new SourceError(
        `${file.path} was replaced while it was being packed; nothing was sent: try again`,
      );
    }
    if (stats.size !== file.size) {
      throw new SourceError(
        `${file.path} changed while it was being packed (${file.size} bytes listed, ${stats.size} now); nothing was sent: try again`,
      );
    }
    const resolved = descriptorPath(fd);
    if (resolved !== null && resolved !== join(realRoot, file.path)) {
      throw new SourceError(
        `${file.path} is no longer inside the directory (a directory on its path was replaced while it was being packed); nothing was sent`,
      );
    }
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error instanceof SourceError ? error : openFailure(file, error);
  }
}

function openFailure(file: SourceFile, error: unknown): SourceError {
  const code = (error as NodeJS.ErrnoException).code ?? String(error);
  if (code === "ELOOP")
    return new SourceError(
      `${file.path} became a symbolic link while it was being packed; links are not followed and nothing was sent: try again`,
    );
  if (code === "ENOENT")
    return new SourceError(`${file.path} was removed while it was being packed; nothing was sent: try again`);
  return new SourceError(`cannot read ${file.path} (${code})`);
}
