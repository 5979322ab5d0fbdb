// gzip on every core, with output that depends only on the input.
//
// The caller cuts the stream into segments at fixed offsets (SEGMENT_BYTES) and hands them in
// order; each is compressed on its own, as a complete gzip member, by zlib's asynchronous call
// (libuv's thread pool: several at once, off the main thread), and the members come out in
// the order the segments went in. Members written one after another are one gzip file (RFC
// 1952, 2.2), which gzip, tar, Python, Go and Node all read whole. Each member starts its
// dictionary afresh, which costs about 0.1% of size at this segment length.
//
// The same segments give the same members whatever the timing or the number in flight: the
// cuts are at byte offsets, and each member's header is fixed (no name, mtime 0, and the
// operating-system byte set to 3, Unix, which zlib builds elsewhere write differently).
import { gzip } from "node:zlib";

/**
 * Uncompressed bytes in a member (the last may hold fewer). Small enough that the segments and
 * members in flight take a few megabytes; large enough that a member's fresh dictionary costs
 * little (about 0.3% of size here).
 */
export const SEGMENT_BYTES = 256 * 1024;
/** gzip's default level, as `tar -czf` uses. */
const LEVEL = 6;
/** Offset of the OS byte in a gzip header (RFC 1952, 2.3). */
const OS_BYTE = 9;
const OS_UNIX = 3;

export class ParallelGzip {
  private readonly queue: { member: Promise<Buffer>; segment: Buffer }[] = [];
  private readonly spare: Buffer[] = [];

  /**
   * @param write  receives each member, in order
   * @param inFlight  segments compressed at once (and so, at most, held in memory): with the
   *   one being filled, enough to keep two cores busy
   */
  constructor(
    private readonly write: (member: Buffer) => void,
    private readonly inFlight = 3,
  ) {}

  /** An empty segment buffer to fill: one given back after its member was written, or a new one. */
  segment(): Buffer {
    return this.spare.pop() ?? Buffer.allocUnsafeSlow(SEGMENT_BYTES);
  }

  /**
   * Starts compressing the first `length` bytes of `segment` (from segment()); resolves once
   * fewer than `inFlight` are in flight, after writing the members that are done, in order.
   */
  async add(segment: Buffer, length: number): Promise<void> {
    const member = compress(segment.subarray(0, length));
    // Awaited in turn below; until then a failure must not count as unhandled.
    member.catch(() => {});
    this.queue.push({ member, segment });
    while (this.queue.length >= this.inFlight) await this.writeOldest();
  }

  /** Writes every member still in flight. */
  async finish(): Promise<void> {
    while (this.queue.length > 0) await this.writeOldest();
  }

  private async writeOldest(): Promise<void> {
    const { member, segment } = this.queue.shift()!;
    this.write(await member);
    this.spare.push(segment);
  }
}

/**
 * The most bytes the members of a `tarBytes`-long stream can take, however well or badly it
 * compresses: zlib's deflateBound for each member (its input, plus 1/4096 and 1/16384 of it,
 * plus 7 bytes), with gzip's 18 bytes of header and trailer.
 */
export function gzipBound(tarBytes: number): number {
  const members = Math.ceil(tarBytes / SEGMENT_BYTES);
  const growth = Math.floor(tarBytes / 4096) + Math.floor(tarBytes / 16384) + Math.floor(tarBytes / 2 ** 25);
  return tarBytes + growth + members * (7 + 18);
}

function compress(data: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // One output chunk for the whole segment: zlib then needs a single trip to the thread pool.
    gzip(data, { level: LEVEL, chunkSize: SEGMENT_BYTES + 64 * 1024 }, (error, member) => {
      if (error) return reject(error);
      member[OS_BYTE] = OS_UNIX;
      resolve(member);
    });
  });
}
