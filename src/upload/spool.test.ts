// Where a tarball waits: a small one in memory, a larger one in a temporary file that is
// private and gone from the directory at once; its digest that of its bytes either way.
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { IN_FILE_FROM, Spool, type Tarball } from "./spool.js";

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

async function readBack(tarball: Tarball): Promise<Buffer> {
  const out = Buffer.alloc(tarball.bytes);
  for (let position = 0; position < tarball.bytes; )
    position += await tarball.readAt(out.subarray(position, position + 100_000), position);
  return out;
}

function spooled(chunks: Buffer[], parent?: string): Tarball {
  const spool = new Spool(parent);
  for (const chunk of chunks) spool.write(chunk);
  return spool.finish();
}

describe("Spool", () => {
  it("a small tarball makes no temporary file at all", () => {
    const parent = mkdtempSync(join(tmpdir(), "spool-test-"));
    const tarball = spooled([randomBytes(IN_FILE_FROM - 1)], parent);
    expect(tarball.bytes).toBe(IN_FILE_FROM - 1);
    expect(readdirSync(parent)).toEqual([]);
    tarball.dispose();
  });

  it.skipIf(process.platform === "win32")(
    "a large one's file leaves nothing in the temporary directory, even while it is in use",
    () => {
      const parent = mkdtempSync(join(tmpdir(), "spool-test-"));
      const spool = new Spool(parent);
      spool.write(randomBytes(IN_FILE_FROM - 1));
      expect(readdirSync(parent)).toEqual([]);
      // The file is made here, and removed from the directory at once.
      spool.write(Buffer.from("x"));
      expect(readdirSync(parent)).toEqual([]);
      const tarball = spool.finish();
      expect(tarball.bytes).toBe(IN_FILE_FROM);
      tarball.dispose();
      expect(readdirSync(parent)).toEqual([]);
    },
  );

  it("a small tarball: its digest, computed when asked for, is that of its bytes", async () => {
    const chunks = [randomBytes(1000), randomBytes(70_000), randomBytes(3)];
    const tarball = spooled(chunks);
    try {
      expect(tarball.bytes).toBe(71_003);
      expect(tarball.sha256).toBe(sha256(Buffer.concat(chunks)));
      expect(tarball.sha256).toBe(sha256(Buffer.concat(chunks)));
      expect((await readBack(tarball)).equals(Buffer.concat(chunks))).toBe(true);
      // Past the end, as a file read there: nothing.
      expect(await tarball.readAt(Buffer.alloc(10), 71_003)).toBe(0);
      expect(await tarball.readAt(Buffer.alloc(10), 80_000)).toBe(0);
    } finally {
      tarball.dispose();
    }
  });

  it("a tarball past the threshold goes to the file, hashed as written, the bytes kept before it first: the same digest", async () => {
    for (const sizes of [
      [IN_FILE_FROM - 1, 1, 5],
      [IN_FILE_FROM - 10, 20, 300_000, 7],
      [IN_FILE_FROM * 2 + 3],
    ]) {
      const chunks = sizes.map((size) => randomBytes(size));
      const tarball = spooled(chunks);
      try {
        expect(tarball.sha256, sizes.join("+")).toBe(sha256(Buffer.concat(chunks)));
        expect((await readBack(tarball)).equals(Buffer.concat(chunks))).toBe(true);
      } finally {
        tarball.dispose();
      }
    }
  });

  it("an empty spool has the digest of no bytes", () => {
    const tarball = spooled([]);
    expect(tarball.sha256).toBe(sha256(Buffer.alloc(0)));
    tarball.dispose();
  });
});
