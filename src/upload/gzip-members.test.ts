// Compression on several cores with output that depends only on the input: the same segments
// give the same members whatever runs at once, and the members together are one gzip file.
import { execFileSync } from "node:child_process";
import { gunzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gzipBound, ParallelGzip, SEGMENT_BYTES } from "./gzip-members.js";

/** Text that compresses about as code does, the same on every run. */
function sample(bytes: number): Buffer {
  const words = ["def", "return", "self", "value", "import", "async", "await", "config", "deploy", "agent"];
  let state = 26;
  const parts: string[] = [];
  let length = 0;
  while (length < bytes) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const word = `${words[state % words.length]}${state % 97} `;
    parts.push(word);
    length += word.length;
  }
  return Buffer.from(parts.join("")).subarray(0, bytes);
}

async function compressAll(data: Buffer, inFlight: number): Promise<{ members: Buffer[]; whole: Buffer }> {
  const members: Buffer[] = [];
  const gzip = new ParallelGzip((member) => members.push(member), inFlight);
  for (let offset = 0; offset < data.length; offset += SEGMENT_BYTES) {
    const segment = gzip.segment();
    const length = data.copy(segment, 0, offset, Math.min(data.length, offset + SEGMENT_BYTES));
    await gzip.add(segment, length);
  }
  await gzip.finish();
  return { members, whole: Buffer.concat(members) };
}

describe("ParallelGzip", () => {
  const data = sample(5 * SEGMENT_BYTES + 12_345);

  it("one member a segment, in order, each a complete gzip stream with a fixed header", async () => {
    const { members } = await compressAll(data, 4);
    expect(members).toHaveLength(6);
    for (const [i, member] of members.entries()) {
      // Magic, deflate, no flags, mtime 0, OS 3 (Unix), whatever the build of zlib.
      expect([...member.subarray(0, 4), ...member.subarray(4, 8), member[9]]).toEqual([
        0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 3,
      ]);
      expect(gunzipSync(member).equals(data.subarray(i * SEGMENT_BYTES, (i + 1) * SEGMENT_BYTES))).toBe(true);
    }
  });

  it("the members together are one gzip file: Node and the system's gzip read it whole", async () => {
    const { whole } = await compressAll(data, 4);
    expect(gunzipSync(whole).equals(data)).toBe(true);
    expect(execFileSync("gzip", ["-dc"], { input: whole, maxBuffer: 64 << 20 }).equals(data)).toBe(true);
  });

  it("the same bytes however many are compressed at once, and however the answers interleave", async () => {
    const one = await compressAll(data, 1);
    const four = await compressAll(data, 4);
    const eight = await compressAll(data, 8);
    expect(four.whole.equals(one.whole)).toBe(true);
    expect(eight.whole.equals(one.whole)).toBe(true);
  });
});

describe("gzipBound", () => {
  /** Bytes that do not compress (a seeded xorshift), with a stretch that does, `text` long. */
  function mixed(bytes: number, text: number, seed: number): Buffer {
    const data = Buffer.alloc(bytes);
    let state = seed | 1;
    for (let i = 0; i < bytes; i++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      data[i] = state & 0xff;
    }
    sample(Math.min(text, bytes)).copy(data);
    return data;
  }

  it("no stream's members are longer, incompressible ones included", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 * SEGMENT_BYTES + 4096 }),
        fc.integer({ min: 0, max: SEGMENT_BYTES }),
        fc.integer(),
        async (bytes, text, seed) => {
          const { whole } = await compressAll(mixed(bytes, text, seed), 3);
          expect(whole.length).toBeLessThanOrEqual(gzipBound(bytes));
        },
      ),
      { numRuns: 25 },
    );
  });

  it("is close: random bytes come within a few hundred bytes of it", async () => {
    const bytes = SEGMENT_BYTES + 1000;
    const { whole } = await compressAll(mixed(bytes, 0, 7), 3);
    expect(gzipBound(bytes) - whole.length).toBeLessThan(200);
  });
});
