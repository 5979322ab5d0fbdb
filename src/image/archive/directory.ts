// An image archive that is a directory (an OCI layout on disk, a docker archive unpacked): its
// files are read where they are, and through no symbolic link at all, whether it leads out of
// the directory or to another file inside. Refusing every link is one rule that holds between
// the check and the read, as packing a project directory does (upload/walked-file.ts):
//
// - the directories on the way are lstat-ed (a link there is refused, on every system);
// - the file is opened without following a link in its last part (O_NOFOLLOW: ELOOP) and
//   without waiting on a FIFO (O_NONBLOCK), and must be a regular file;
// - on Linux, the path the kernel resolved for the descriptor must be the one inside the
//   directory, so a directory on the way swapped for a link after the lstat is caught too;
// - each later read opens the file the same way and must find the same file (device, inode,
//   size): what was checked is what is read, and a blob's bytes are hashed as they are sent.
//
// Tools write these directories with plain files (skopeo, buildx, podman); a link in one is
// refused naming it, with the way out (a copy of the file, or the image as a tar).
import { closeSync, createReadStream, fstatSync, lstatSync, openSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../../errors.js";
import { descriptorPath, READ_NO_FOLLOW } from "../../upload/walked-file.js";
import { type FileBytes, type ImageFiles, readExactly, safePath } from "./files.js";

export class DirectoryFiles implements ImageFiles {
  /** The root with every link of its own path resolved: the user's own choice of path. */
  private readonly realRoot: string;

  constructor(
    private readonly root: string,
    readonly describe: string,
  ) {
    this.realRoot = realpathSync(root);
  }

  file(path: string): FileBytes | null {
    const clean = safePath(path);
    if (clean === null) return null;
    const fd = this.open(clean);
    if (fd === null) return null;
    let seen: { dev: number; ino: number; size: number };
    try {
      const { dev, ino, size } = fstatSync(fd);
      seen = { dev, ino, size };
    } finally {
      closeSync(fd);
    }
    const reopen = (): number => {
      const again = this.open(clean);
      if (again === null) throw this.changed(clean);
      const now = fstatSync(again);
      if (now.dev !== seen.dev || now.ino !== seen.ino || now.size !== seen.size) {
        closeSync(again);
        throw this.changed(clean);
      }
      return again;
    };
    return {
      size: seen.size,
      key: `${seen.dev}:${seen.ino}`,
      read: (position, length) => {
        const again = reopen();
        try {
          return readExactly(again, position, length);
        } finally {
          closeSync(again);
        }
      },
      stream: () => createReadStream("", { fd: reopen(), autoClose: true }),
    };
  }

  close(): void {}

  /** A descriptor of the regular file at `clean`, or null when there is none; a link on the way is refused. */
  private open(clean: string): number | null {
    const parts = clean.split("/");
    for (let depth = 1; depth < parts.length; depth++) {
      const directory = parts.slice(0, depth).join("/");
      let stats: ReturnType<typeof lstatSync>;
      try {
        stats = lstatSync(join(this.root, directory));
      } catch {
        return null;
      }
      if (stats.isSymbolicLink()) throw this.linked(directory, clean);
      if (!stats.isDirectory()) return null;
    }
    let fd: number;
    try {
      fd = openSync(join(this.root, clean), READ_NO_FOLLOW);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ELOOP" || code === "EMLINK") throw this.linked(clean, clean);
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw new UsageError(`--image-archive: cannot read ${clean} of ${this.describe} (${code ?? error})`);
    }
    try {
      if (!fstatSync(fd).isFile()) {
        throw new UsageError(
          `--image-archive: ${clean} of ${this.describe} is not a regular file (a directory, a FIFO or a device)`,
        );
      }
      const resolved = descriptorPath(fd);
      if (resolved !== null && resolved !== join(this.realRoot, clean)) throw this.linked(null, clean);
      return fd;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** `link` is a link (null: a directory on the way became one after it was checked). */
  private linked(link: string | null, file: string): UsageError {
    const what =
      link === null
        ? `a directory on the way to ${file} is a symbolic link`
        : `${link} is a symbolic link${link === file ? "" : ` (on the way to ${file})`}`;
    return new UsageError(
      `--image-archive: ${what} in ${this.describe}; cpctl follows no link in an image directory (one could lead outside it): put the file itself there (cp -L), or push the image as a tar`,
    );
  }

  private changed(clean: string): UsageError {
    return new UsageError(
      `--image-archive: ${clean} of ${this.describe} was replaced or changed while cpctl read it; push again once nothing writes to the directory`,
    );
  }
}
