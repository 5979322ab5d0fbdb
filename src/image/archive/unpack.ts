// A gzipped archive unpacked to a file of the private temporary directory (a tar needs random
// access), up to a bound: a gzip bomb (9 MB that inflate to gigabytes) or a damaged file cannot
// fill the disk, --dry-run included. The bound is INFLATE_RATIO times the gzipped size, and at
// least MIN_INFLATE_BYTES: image tars compress two to four times (their layers often gzipped
// already), far below it. One that passes it is refused, saying how to push a real one: unpack
// it yourself, and the tar is read where it is, with no copy.
import { createReadStream, createWriteStream, statSync } from "node:fs";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";

export const INFLATE_RATIO = 20;
export const MIN_INFLATE_BYTES = 64 * 1024 * 1024;

/** The most a gzipped file of `gzippedBytes` is unpacked to. */
export function inflateLimit(gzippedBytes: number): number {
  return Math.max(MIN_INFLATE_BYTES, INFLATE_RATIO * gzippedBytes);
}

export class InflateLimitError extends Error {
  constructor(readonly limit: number) {
    super(`unpacks to more than ${limit} bytes`);
  }
}

/** Unpacks the gzip file `source` into `target`; InflateLimitError past `limit` (default: inflateLimit). */
export async function unpackGzip(
  source: string,
  target: string,
  options: { signal?: AbortSignal; limit?: number } = {},
): Promise<void> {
  const limit = options.limit ?? inflateLimit(statSync(source).size);
  let written = 0;
  const bounded = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      written += chunk.length;
      // Nothing past the bound reaches the file: the chunk that crosses it is not written.
      if (written > limit) done(new InflateLimitError(limit));
      else done(null, chunk);
    },
  });
  await pipeline(
    createReadStream(source),
    createGunzip(),
    bounded,
    createWriteStream(target, { mode: 0o600 }),
    {
      signal: options.signal,
    },
  );
}
