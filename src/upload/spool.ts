// A tarball on its way to the server, kept in a temporary file rather than in memory, so that
// packing and uploading a project of any size takes the same few megabytes.
//
// The file is created private (0600, O_EXCL) in the system's temporary directory and, where
// the system allows it (not Windows), removed from the directory at once: only the open
// descriptor keeps it, so nothing is left behind however the process ends (kill -9
// included), and no other process can open it by name. It is read at positions (`readAt`), as
// often as needed (a retried upload reads it again); the bytes read are the bytes that were
// hashed, since nothing else can write to it.
import { createHash, type Hash, randomBytes } from "node:crypto";
import { closeSync, constants, openSync, read, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A gzipped tarball ready to send: its size and digest known, its bytes in a file. */
export interface Tarball {
  readonly bytes: number;
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

/** Receives a tarball's bytes in order, counting and hashing them, then becomes a Tarball. */
export class Spool {
  private readonly fd: number;
  private readonly path: string | null;
  private readonly hash: Hash = createHash("sha256");
  private written = 0;
  private closed = false;

  constructor(directory = tmpdir()) {
    const path = join(directory, `cpctl-upload-${randomBytes(8).toString("hex")}.tar.gz`);
    this.fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o600);
    if (process.platform === "win32") {
      this.path = path;
    } else {
      unlinkSync(path);
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
    this.hash.update(chunk);
    this.written += chunk.length;
  }

  /** The bytes written so far, as a Tarball that owns the file. */
  finish(): Tarball {
    const { fd, written: bytes } = this;
    const sha256 = this.hash.digest("hex");
    const dispose = () => this.dispose();
    return {
      bytes,
      sha256,
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
        unlinkSync(this.path);
      } catch {
        // Already gone: nothing to clean.
      }
    }
  }
}
