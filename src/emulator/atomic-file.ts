// Files replaced whole, atomically and durably: write a temp file in the same directory,
// fsync it, rename it over the target, fsync the directory. rename(2) within one file system
// replaces the name in one step, so a `kill -9` (or a power cut, thanks to the fsyncs) at any
// moment leaves either the old file or the new one, never a torn one.
//
// Temp files are named `.<name>.<pid>.<n>.tmp` beside the target; a writer killed before its
// rename leaves one, which isStaleTempFile recognises for removal at the next start.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs";
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
