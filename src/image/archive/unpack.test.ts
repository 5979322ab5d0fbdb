// A gzipped archive is unpacked up to its bound and no further: what reaches the disk stays
// under it, however far the gzip stream would inflate.
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { failure } from "../../../test/helpers/failure.js";
import { INFLATE_RATIO, InflateLimitError, inflateLimit, MIN_INFLATE_BYTES, unpackGzip } from "./unpack.js";

describe("unpacking a gzipped archive", () => {
  it("stops at the bound, having written no more than it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cpctl-unpack-test-"));
    const bomb = join(dir, "bomb.gz");
    writeFileSync(bomb, gzipSync(Buffer.alloc(16 * 1024 * 1024)));
    const target = join(dir, "out.tar");
    const error = await failure(unpackGzip(bomb, target, { limit: 1024 * 1024 }), InflateLimitError);
    expect(error.limit).toBe(1024 * 1024);
    expect(statSync(target).size).toBeLessThanOrEqual(1024 * 1024);

    const fine = join(dir, "fine.gz");
    writeFileSync(fine, gzipSync(Buffer.alloc(1000, 7)));
    await unpackGzip(fine, target, { limit: 1000 });
    expect(statSync(target).size).toBe(1000);
  });

  it("allows INFLATE_RATIO times the gzipped size, and MIN_INFLATE_BYTES at least", () => {
    expect(inflateLimit(1000)).toBe(MIN_INFLATE_BYTES);
    expect(inflateLimit(1024 * 1024 * 1024)).toBe(INFLATE_RATIO * 1024 * 1024 * 1024);
  });
});
