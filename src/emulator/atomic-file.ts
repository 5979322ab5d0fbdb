// Files replaced whole, atomically and durably: write a temp file in the same directory,
// fsync it, rename it over the target, fsync the directory. rename(2) within one file system
// replaces the name in one step, so a `kill -9` (or a power cut, thanks to the fsyncs) at any
// moment leaves either the old file or the new one, never a torn one.
//
// Temp files are named `.<name>.<pid>.<n>.tmp` beside the target; a writer killed before its
// rename leaves one, which isStaleTempFile recognises for removal at the next start.
import {
  close,
  closeSync,
  fsync,
  fsyncSync,
  open,
  openSync,
  renameSync,
  rmSync,
  write,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

let tempCounter = 0;

function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${++tempCounter}.tmp`);
}

/** A temp file of `path` (or of a file whose name starts with its name) left by a killed writer. */
export function isStaleTempFile(path: string, name: string): boolean {
  return name.startsWith(`.${basename(path)}.`) && name.endsWith(".tmp");
}

export function writeFileAtomic(path: string, data: string | Buffer): void {
  const temp = tempPathFor(path);
  // 0600: the state holds secret values.
  const fd = openSync(temp, "w", 0o600);
  try {
    writeFileSync(fd, data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
  fsyncDirectory(dirname(path));
}

export function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * writeFileAtomic for data made a slice at a time, written without blocking: each slice is
 * taken from `slices` only once the one before is written, so other work runs in between.
 * `stillWanted` is asked after the last write and before the rename, with nothing in
 * between to let other work change the answer: false leaves the target as it was. Resolves
 * the bytes written, or null when not wanted; on an error the temp file is removed.
 */
export async function writeFileAtomicInSlices(
  path: string,
  slices: Iterable<string>,
  stillWanted: () => boolean,
): Promise<number | null> {
  const temp = tempPathFor(path);
  const fd = await call<number>((done) => open(temp, "w", 0o600, done));
  let bytes = 0;
  let renamed = false;
  try {
    for (const slice of slices) {
      if (!stillWanted()) return null;
      const data = Buffer.from(slice);
      for (let at = 0; at < data.length; ) {
        at += await call<number>((done) => write(fd, data, at, data.length - at, null, done));
      }
      bytes += data.length;
    }
    await call<void>((done) => fsync(fd, done));
    if (!stillWanted()) return null;
    renameSync(temp, path);
    renamed = true;
    fsyncDirectory(dirname(path));
    return bytes;
  } finally {
    await call<void>((done) => close(fd, done)).catch(() => {});
    if (!renamed) rmSync(temp, { force: true });
  }
}

/** A callback-style fs call as a promise (node:fs/promises is left out of the CLI's start-up). */
function call<T>(
  start: (done: (error: NodeJS.ErrnoException | null, value?: T) => void) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    start((error, value) => (error ? reject(error) : resolve(value as T)));
  });
}
