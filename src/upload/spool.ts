// A tarball on its way to the server: a small one in memory, a larger one in a temporary file,
// so that packing and uploading a project of any size takes the same few megabytes.
//
// Under IN_FILE_FROM (1 MiB) the bytes are kept as they come, and hashed when the digest is
// first asked for: node:crypto takes about 3 ms to load, as long as packing 50 files, and an
// upload shows the digest only after it is sent. Making, writing and reading back a temporary
// file cost about as much again.
//
// From IN_FILE_FROM on, the bytes go to a file, hashed as they are written (those kept until
// then first), so that the digest is ready when packing ends. The file is created private
// (0600, O_EXCL) in a private directory (0700, its name made up by the system: mkdtemp) of the
// system's temporary directory and, where the system allows it (not Windows), both are
// removed at once: only the open descriptor keeps the file, so nothing is left behind however
// the process ends (kill -9 included), and no other process can open it by name. It is read at
// positions (`readAt`), as often as needed (a retried upload reads it again); the bytes read
// are the bytes that were hashed, since nothing else can write to it.
import type { Hash } from "node:crypto";
import { closeSync, constants, mkdtempSync, openSync, read, rmdirSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** From this many bytes on, a tarball goes to a temporary file, hashed as it is written. */
export const IN_FILE_FROM = 1024 * 1024;

/** A gzipped tarball ready to send: its size and digest known, its bytes in memory or in a file. */
export interface Tarball {
  readonly bytes: number;
  /** Hex; for a small tarball computed when first read, then kept. */
  readonly sha256: string;
  /** Reads up to `target.length` bytes at `position` into `target`; resolves with how many. */
  readAt(target: Buffer, position: number): Promise<number>;
  /** Lets the bytes go (closes the file, and so removes it); the tarball cannot be read after this. */
  dispose(): void;
}

/** Up to `length` bytes of `fd` at `position`, into `target`; resolves with how many. */
function readAt(fd: number, target: Buffer, length: number, position: number): Promise<number> {
  if (length <= 0) return Promise.resolve(0);
  return new Promise((resolve, reject) =>
    read(fd, target, 0, length, position, (error, count) => (error ? reject(error) : resolve(count))),
  );
}

function sha256Of(chunks: readonly Buffer[]): Hash {
  const hash = process.getBuiltinModule("node:crypto").createHash("sha256");
  for (const chunk of chunks) hash.update(chunk);
  return hash;
}

/** The temporary file a large tarball goes to (see the top of this file). */
class TemporaryFile {
  readonly fd: number;
  /** Where the file and its directory still are (Windows only; elsewhere they are gone). */
  private readonly path: { file: string; directory: string } | null;
  private closed = false;

  constructor(parent: string) {
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

  writeAt(chunk: Buffer, position: number): void {
    let offset = 0;
    while (offset < chunk.length)
      offset += writeSync(this.fd, chunk, offset, chunk.length - offset, position + offset);
  }

  /** Closes and removes the file; safe to call more than once. */
  close(): void {
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

/**
 * Receives a tarball's bytes in order, counting them, then becomes a Tarball. The chunks
 * written are kept as they are until IN_FILE_FROM: a caller gives each its own buffer.
 */
export class Spool {
  /** The chunks written, while under IN_FILE_FROM; null once they went to the file. */
  private held: Buffer[] | null = [];
  private file: { temporary: TemporaryFile; hash: Hash } | null = null;
  private written = 0;

  /** @param parent  the directory the temporary file is made in (tests give their own) */
  constructor(private readonly parent = tmpdir()) {}

  get bytes(): number {
    return this.written;
  }

  write(chunk: Buffer): void {
    if (this.held && this.written + chunk.length >= IN_FILE_FROM) {
      const temporary = new TemporaryFile(this.parent);
      this.file = { temporary, hash: sha256Of(this.held) };
      let position = 0;
      for (const held of this.held) {
        temporary.writeAt(held, position);
        position += held.length;
      }
      this.held = null;
    }
    if (this.held) this.held.push(chunk);
    else if (this.file) {
      this.file.temporary.writeAt(chunk, this.written);
      this.file.hash.update(chunk);
    }
    this.written += chunk.length;
  }

  /** The bytes written so far, as a Tarball that owns them. */
  finish(): Tarball {
    const bytes = this.written;
    const dispose = () => this.dispose();
    if (this.file) {
      const { temporary, hash } = this.file;
      const sha256 = hash.digest("hex");
      return {
        bytes,
        sha256,
        readAt: (target, position) =>
          readAt(temporary.fd, target, Math.min(target.length, bytes - position), position),
        dispose,
      };
    }
    const data = Buffer.concat(this.held ?? []);
    let sha256: string | undefined;
    return {
      bytes,
      get sha256() {
        sha256 ??= sha256Of([data]).digest("hex");
        return sha256;
      },
      readAt: (target, position) => Promise.resolve(position < bytes ? data.copy(target, 0, position) : 0),
      dispose,
    };
  }

  /** Lets the bytes go; safe to call more than once. */
  dispose(): void {
    this.held = null;
    this.file?.temporary.close();
  }
}
