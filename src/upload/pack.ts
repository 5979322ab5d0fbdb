// A directory to a gzipped tarball, or an existing tarball taken as it is, held to a size
// limit and kept in a temporary file (spool.ts) until it is sent.
//
// Packing streams, and memory does not grow with the project: the walk lists the files
// (paths and sizes), then each file is read straight into the tar stream's current segment,
// the segments are compressed on several cores at once (gzip-members.ts), and the compressed
// bytes go to the spool, counted and hashed, as they come. Past the limit it stops at once.
// The same files give the same bytes: the tar layout depends only on the walk, the segment
// cuts only on the tar stream.
import { closeSync, readSync, realpathSync } from "node:fs";
import { InterruptedError } from "../errors.js";
import { BLOCK } from "../util/tar-fields.js";
import { NothingToPackError, SourceError, TooLargeError } from "./errors.js";
import { gzipBound, ParallelGzip } from "./gzip-members.js";
import { Spool, type Tarball } from "./spool.js";
import { entryHeader } from "./tar.js";
import { type WalkOptions, type WalkResult, walkSource } from "./walk.js";
import { openWalkedFile, type SourceFile } from "./walked-file.js";

export type { Tarball } from "./spool.js";

interface PackedDirectory {
  tarball: Tarball;
  walk: WalkResult;
  /** Content bytes of the files packed, before compression. */
  contentBytes: number;
}

export interface PackOptions extends WalkOptions {
  /** Ctrl-C: packing stops between files with InterruptedError. */
  signal?: AbortSignal;
  /**
   * Called once every file has been read into the tar stream, if the tarball cannot pass the
   * limit however it compresses (gzipBound): what is left is compressing the last segments,
   * which fails only if the temporary file cannot be written. `deploy upload` reads the
   * deployment meanwhile.
   */
  onFilesRead?: () => void;
}

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);
const ZEROS = Buffer.alloc(2 * BLOCK);

/**
 * Packs `root` honouring .gitignore (see walk.ts). Throws NothingToPackError when no file is
 * left to pack, TooLargeError past `maxBytes`.
 */
export async function packDirectory(
  root: string,
  maxBytes: number,
  options: PackOptions = {},
): Promise<PackedDirectory> {
  const walk = await walkSource(root, options);
  if (!walk.entries.some((entry) => entry.type === "file")) throw new NothingToPackError(walk);
  return packWalk(root, walk, maxBytes, options);
}

/**
 * Packs what `walk` listed of `root`. Whatever changed since the walk is caught, not packed:
 * a file replaced or made a link (walked-file.ts), or one that is shorter now.
 */
export async function packWalk(
  root: string,
  walk: WalkResult,
  maxBytes: number,
  options: PackOptions = {},
): Promise<PackedDirectory> {
  const contentBytes = walk.entries.reduce((sum, entry) => sum + entry.size, 0);
  const realRoot = realpathSync(root);
  const spool = new Spool();
  try {
    const gzip = new ParallelGzip((member) => {
      if (spool.bytes + member.length > maxBytes) {
        throw new TooLargeError(
          spool.bytes + member.length,
          maxBytes,
          true,
          largestFiles(walk.entries),
          contentBytes,
        );
      }
      spool.write(member);
    });
    const tar = new TarSegments(gzip);
    for (const entry of walk.entries) {
      if (options.signal?.aborted) throw new InterruptedError();
      // Each append returns a promise only when a full segment must wait for a core.
      await tar.append(entryHeader(entry));
      if (entry.type !== "file") continue;
      const fd = openWalkedFile(entry, root, realRoot);
      try {
        await tar.appendFile(fd, entry);
      } finally {
        closeSync(fd);
      }
      await tar.append(ZEROS.subarray(0, padding(entry.size)));
    }
    await tar.append(ZEROS);
    await tar.handOverLast();
    if (options.onFilesRead && gzipBound(tar.bytes) <= maxBytes) options.onFilesRead();
    await gzip.finish();
    return { tarball: spool.finish(), walk, contentBytes };
  } catch (error) {
    spool.dispose();
    throw error;
  }
}

/**
 * The tar stream cut into segments at fixed offsets, each handed to gzip when full. Appending
 * is synchronous until a segment is full: then the promise of the hand-over is returned (a
 * promise a file would cost more memory than the file's header).
 */
class TarSegments {
  private segment: Buffer;
  private used = 0;
  /** The length of the tar stream so far. */
  bytes = 0;

  constructor(private readonly gzip: ParallelGzip) {
    this.segment = gzip.segment();
  }

  append(bytes: Buffer, from = 0): Promise<void> | undefined {
    let offset = from;
    while (offset < bytes.length) {
      const copied = bytes.copy(this.segment, this.used, offset);
      this.used += copied;
      this.bytes += copied;
      offset += copied;
      if (this.used === this.segment.length) return this.handOver().then(() => this.append(bytes, offset));
    }
    return undefined;
  }

  /** The file's `size` bytes, read from `fd` straight into the segments. */
  appendFile(fd: number, file: SourceFile, from = 0): Promise<void> | undefined {
    let position = from;
    while (position < file.size) {
      const wanted = Math.min(file.size - position, this.segment.length - this.used);
      const read = readSync(fd, this.segment, this.used, wanted, position);
      if (read === 0) {
        throw new SourceError(
          `${file.path} changed while it was being packed (${file.size} bytes listed, ${position} read); nothing was sent: try again`,
        );
      }
      this.used += read;
      this.bytes += read;
      position += read;
      if (this.used === this.segment.length)
        return this.handOver().then(() => this.appendFile(fd, file, position));
    }
    return undefined;
  }

  /** Hands the last segment, however full, to gzip (ParallelGzip.finish writes what is left). */
  async handOverLast(): Promise<void> {
    if (this.used > 0) await this.gzip.add(this.segment, this.used);
  }

  private handOver(): Promise<void> {
    const full = this.segment;
    this.segment = this.gzip.segment();
    this.used = 0;
    return this.gzip.add(full, full.length);
  }
}

/** Zero bytes that bring `size` bytes of content to a whole number of blocks. */
function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

/**
 * An existing `.tar.gz` / `.tgz` file, sent as it is: the name, the size (before reading) and
 * the gzip magic bytes are checked, and its bytes copied to the spool as they are hashed, so
 * that what is sent is what was hashed even if the file changes meanwhile.
 */
export async function readTarball(path: string, displayName: string, maxBytes: number): Promise<Tarball> {
  if (!/\.(tar\.gz|tgz)$/i.test(path)) {
    throw new SourceError(
      `${displayName} is neither a directory nor a .tar.gz/.tgz tarball: give a source directory (packed for you) or a gzipped tarball`,
    );
  }
  // node:fs/promises on first use: a directory's upload never needs it.
  const file = await process.getBuiltinModule("node:fs/promises").open(path, "r");
  const spool = new Spool();
  try {
    const size = (await file.stat()).size;
    if (size > maxBytes) throw new TooLargeError(size, maxBytes, false);
    for await (const chunk of file.createReadStream({ autoClose: false, highWaterMark: 256 * 1024 })) {
      const bytes = chunk as Buffer;
      if (spool.bytes === 0 && !(bytes.length >= 2 && bytes.subarray(0, 2).equals(GZIP_MAGIC))) break;
      if (spool.bytes + bytes.length > maxBytes)
        throw new TooLargeError(spool.bytes + bytes.length, maxBytes, false);
      spool.write(bytes);
    }
    if (spool.bytes < 2) {
      throw new SourceError(
        `${displayName} is not gzip data (it does not start with the bytes 1f 8b): a .tar.gz/.tgz must be a gzipped tar; give the directory to have it packed`,
      );
    }
    return spool.finish();
  } catch (error) {
    spool.dispose();
    throw error;
  } finally {
    await file.close();
  }
}

function largestFiles(entries: readonly SourceFile[], count = 5): SourceFile[] {
  return entries
    .filter((entry) => entry.type === "file")
    .sort((a, b) => b.size - a.size || (a.path < b.path ? -1 : 1))
    .slice(0, count);
}
