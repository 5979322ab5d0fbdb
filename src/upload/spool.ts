// A tarball on its way to the server, kept in a temporary file rather than in memory, so that
// packing and uploading a project of any size takes the same few megabytes.
//
// The file is created private (0600, O_EXCL) in a private directory (0700, its name made up by
// the system: mkdtemp) of the system's temporary directory and, where the system allows it
// (not Windows), both are removed at once: only the open descriptor keeps the file, so nothing
// is left behind however the process ends (kill -9 included), and no other process can open
// it by name. It is read at positions (`readAt`), as often as needed (a retried upload reads
// it again); the bytes read are the bytes that were hashed, since nothing else can write to it.
//
// node:crypto takes about 3 ms to load, as long as packing 50 files: a small tarball (under
// HASH_AS_WRITTEN_FROM) is hashed when its digest is first asked for, read back from the file,
// so that an upload that shows the digest only after it is sent does not wait for that. A
// larger one is hashed as it is written (the bytes before the threshold read back once), so
// that its digest is ready when packing ends.
import type { Hash } from "node:crypto";
import {
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  read,
  readSync,
  rmdirSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** From this many bytes on, a tarball is hashed as it is written. */
export const HASH_AS_WRITTEN_FROM = 1024 * 1024;

/** A gzipped tarball ready to send: its size and digest known, its bytes in a file. */
export interface Tarball {
  readonly bytes: number;
  /** Hex; for a small tarball computed (from the file) when first read, then kept. */
  readonly sha256: string;
  /** Reads up to `target.length` bytes at `position` into `target`; resolves with how many. */
  readAt(target: Buffer, position: number): Promise<number>;
  /** Closes the file (and so removes it); the tarball cannot be read after this. */
  dispose(): void;
}

/** Up to `length` bytes of `fd` at `position`, into `target`; resolves with how many. */
function readAt(fd: number, target: Buffer, length: number, position: number): Promise<number> {
  if (length <= 0) return Promise.resolve(0);
  return new Promise((resolve, reject) =>
    read(fd, target, 0, length, position, (error, count) => (error ? reject(error) : resolve(count))),
  );
}

/** A sha256 of the first `length` bytes of `fd`, read back from the file. */
function hashOfFile(fd: number, length: number): Hash {
  const hash = process.getBuiltinModule("node:crypto").createHash("sha256");
  const buffer = Buffer.allocUnsafe(Math.min(length, 256 * 1024));
  for (let position = 0; position < length; ) {
    const count = readSync(fd, buffer, 0, Math.min(buffer.length, length - position), position);
    if (count === 0) throw new Error("the tarball's temporary file is shorter than was written");
    hash.update(buffer.subarray(0, count));
    position += count;
  }
  return hash;
}

/** Receives a tarball's bytes in order, counting (and from a size on, hashing) them, then becomes a Tarball. */
export class Spool {
  private readonly fd: number;
  /** Where the file and its directory still are (Windows only; elsewhere they are gone). */
  private readonly path: { file: string; directory: string } | null;
  private hash: Hash | null = null;
  private written = 0;
  private closed = false;

  constructor(parent = tmpdir()) {
    const directory = mkdtempSync(join(parent, "cpctl-upload-"));
    const file = join(directory, "source.tar.gz");
    try {
      this.fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o600);
    } catch (error) {
      rmdirSync(directory);
      throw error;
    }
    if (process.platform === "win32") {
      this.path = { file, directory };
    } else {
      unlinkSync(file);
      rmdirSync(directory);
      this.path = null;
    }
  }

  get bytes(): number {
    return this.written;
  }

  write(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length)
      offset += writeSync(this.fd, chunk, offset, chunk.length - offset, this.written + offset);
    this.written += chunk.length;
    if (this.hash) this.hash.update(chunk);
    else if (this.written >= HASH_AS_WRITTEN_FROM) this.hash = hashOfFile(this.fd, this.written);
  }

  /** The bytes written so far, as a Tarball that owns the file. */
  finish(): Tarball {
    const { fd, written: bytes } = this;
    let sha256 = this.hash?.digest("hex");
    const dispose = () => this.dispose();
    return {
      bytes,
      get sha256() {
        sha256 ??= hashOfFile(fd, bytes).digest("hex");
        return sha256;
      },
      readAt: (target, position) => readAt(fd, target, Math.min(target.length, bytes - position), position),
      dispose,
    };
  }

  /** Closes and removes the file; safe to call more than once. */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    if (this.path) {
      try {
        unlinkSync(this.path.file);
        rmdirSync(this.path.directory);
      } catch {
        // Already gone: nothing to clean.
      }
    }
  }
}
