// A directory to a gzipped tarball in memory, or an existing tarball read as it is, both
// held to a size limit before anything is sent anywhere.
//
// Packing streams: file contents go through the tar writer into gzip a chunk at a time,
// and the compressed output stops being kept the moment it passes the limit, so a huge
// directory fails fast without filling memory.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { endOfArchive, entryHeader, padding } from "./tar.js";
import { type SourceFile, type WalkOptions, type WalkResult, walkSource } from "./walk.js";

interface Tarball {
  data: Buffer;
  sha256: string;
}

interface PackedDirectory extends Tarball {
  walk: WalkResult;
  /** Content bytes of the files packed, before compression. */
  contentBytes: number;
}

/** The gzipped tarball passed the limit. `bytes` is a lower bound when `atLeast`. */
export class TooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly limit: number,
    readonly atLeast: boolean,
    /** For a directory: its biggest files, to say what to exclude. */
    readonly largest: SourceFile[] = [],
    readonly contentBytes: number | null = null,
  ) {
    super(`the tarball is ${atLeast ? "more than " : ""}${bytes} bytes, over the limit of ${limit}`);
  }
}

/** A local problem with the source: unreadable, changed while packing, not a tarball. */
export class SourceError extends Error {}

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

/** Packs `root` honouring .gitignore (see walk.ts). Throws TooLargeError past `maxBytes`. */
export async function packDirectory(
  root: string,
  maxBytes: number,
  options: WalkOptions = {},
): Promise<PackedDirectory> {
  const walk = await walkSource(root, options);
  const contentBytes = walk.entries.reduce((sum, entry) => sum + entry.size, 0);
  const chunks: Buffer[] = [];
  let total = 0;
  const hash = createHash("sha256");
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      total += chunk.length;
      if (total > maxBytes) {
        callback(new TooLargeError(total, maxBytes, true, largestFiles(walk.entries), contentBytes));
        return;
      }
      chunks.push(chunk);
      hash.update(chunk);
      callback();
    },
  });
  await pipeline(Readable.from(tarStream(walk.entries)), createGzip(), sink);
  return { data: Buffer.concat(chunks, total), sha256: hash.digest("hex"), walk, contentBytes };
}

/** The uncompressed tar stream of the entries, file contents read as they are needed. */
async function* tarStream(entries: readonly SourceFile[]): AsyncGenerator<Buffer> {
  for (const entry of entries) {
    yield entryHeader(entry);
    if (entry.type !== "file") continue;
    let read = 0;
    try {
      for await (const chunk of createReadStream(entry.absolute) as AsyncIterable<Buffer>) {
        read += chunk.length;
        // A file that grew since it was listed: its header already says how long it is.
        if (read > entry.size) break;
        yield chunk;
      }
    } catch (error) {
      throw new SourceError(
        `cannot read ${entry.path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
    }
    if (read !== entry.size) {
      throw new SourceError(
        `${entry.path} changed while it was being packed (${entry.size} bytes listed, ${read} read); try again`,
      );
    }
    yield padding(entry.size);
  }
  yield endOfArchive();
}

/**
 * An existing `.tar.gz` / `.tgz` file, sent as it is: the name and the gzip magic bytes are
 * checked, and the size against `maxBytes` before the file is read.
 */
export async function readTarball(path: string, displayName: string, maxBytes: number): Promise<Tarball> {
  if (!/\.(tar\.gz|tgz)$/i.test(path)) {
    throw new SourceError(
      `${displayName} is neither a directory nor a .tar.gz/.tgz tarball: give a source directory (packed for you) or a gzipped tarball`,
    );
  }
  const size = (await stat(path)).size;
  if (size > maxBytes) throw new TooLargeError(size, maxBytes, false);
  const data = await readFile(path);
  if (data.length > maxBytes) throw new TooLargeError(data.length, maxBytes, false);
  if (data.length < 2 || !data.subarray(0, 2).equals(GZIP_MAGIC)) {
    throw new SourceError(
      `${displayName} is not gzip data (it does not start with the bytes 1f 8b): a .tar.gz/.tgz must be a gzipped tar; give the directory to have it packed`,
    );
  }
  return { data, sha256: createHash("sha256").update(data).digest("hex") };
}

function largestFiles(entries: readonly SourceFile[], count = 5): SourceFile[] {
  return entries
    .filter((entry) => entry.type === "file")
    .sort((a, b) => b.size - a.size || (a.path < b.path ? -1 : 1))
    .slice(0, count);
}
