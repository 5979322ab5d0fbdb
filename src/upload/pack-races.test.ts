// Packing while the directory changes (issue 22 item 9): a file swapped for a symbolic link to
// something outside the directory, after the walk listed it, is never followed. First each
// change at the worst moment (between the walk and the read), then a seeded race against a
// second process that keeps swapping, bounded in rounds and time.
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failure } from "../../test/helpers/failure.js";
import { tarballBytes } from "../../test/helpers/tarball.js";
import { readTarGz } from "../util/untar.js";
import { SourceError } from "./errors.js";
import { packWalk } from "./pack.js";
import { walkSource } from "./walk.js";

// Longer than the file it stands in for: a reader that stops at the listed size still gets some.
const SECRET = `-----BEGIN OPENSSH PRIVATE KEY-----\n${"b3BlbnNzaC1rZXktdjEAAAAA\n".repeat(100)}`;
const SECRET_START = Buffer.from(SECRET.slice(0, 60));

const LAST = "print('last')\n".repeat(20);

/**
 * A project of `files` files of `bytes` each in src/, app.py, and zz.py, which is packed last
 * (so that the time between its walk and its read is the time it takes to pack the others);
 * and a secret file outside it.
 */
function setUp(files = 3, bytes = 200) {
  const base = mkdtempSync(join(tmpdir(), "cpctl-pack-race-"));
  const secret = join(base, "id_outside");
  writeFileSync(secret, SECRET);
  const root = join(base, "project");
  mkdirSync(join(root, "src"), { recursive: true });
  for (let i = 0; i < files; i++)
    writeFileSync(join(root, "src", `f${i}.py`), `print(${i}, ${i * 7919})\n`.repeat(bytes / 16));
  writeFileSync(join(root, "app.py"), "print('app')\n");
  writeFileSync(join(root, "zz.py"), LAST);
  return { base, root, secret };
}

describe.skipIf(process.platform === "win32")("packing a directory that changes after the walk", () => {
  it("a file swapped for a link to a secret outside: refused, the secret not read", async () => {
    const { root, secret } = setUp();
    const walk = await walkSource(root);
    rmSync(join(root, "app.py"));
    symlinkSync(secret, join(root, "app.py"));
    const error = await failure(packWalk(root, walk, 1 << 20), SourceError);
    expect(error.message).toMatch(/app\.py became a symbolic link while it was being packed/);
  });

  it("a file replaced by another (a hard link to the secret, say): refused", async () => {
    const { root, secret } = setUp();
    const walk = await walkSource(root);
    const other = join(root, "app.py.tmp");
    writeFileSync(other, SECRET);
    renameSync(other, join(root, "app.py"));
    expect(secret).toBeTruthy();
    const error = await failure(packWalk(root, walk, 1 << 20), SourceError);
    expect(error.message).toMatch(/app\.py was replaced while it was being packed/);
  });

  it.skipIf(process.platform !== "linux")(
    "a directory on the way swapped for a link to elsewhere: refused",
    async () => {
      const { base, root } = setUp();
      const walk = await walkSource(root);
      // The same names elsewhere, where the link now leads.
      const elsewhere = join(base, "elsewhere");
      mkdirSync(elsewhere);
      renameSync(join(root, "src"), join(base, "src-moved"));
      renameSync(join(base, "src-moved"), join(elsewhere, "src"));
      symlinkSync(join(elsewhere, "src"), join(root, "src"));
      const error = await failure(packWalk(root, walk, 1 << 20), SourceError);
      expect(error.message).toMatch(/no longer inside the directory|was replaced/);
    },
  );

  it("a file that grew or shrank since the walk: refused, naming the sizes", async () => {
    const { root } = setUp();
    const walk = await walkSource(root);
    writeFileSync(join(root, "app.py"), "print('a longer app')\n");
    const error = await failure(packWalk(root, walk, 1 << 20), SourceError);
    expect(error.message).toMatch(/app\.py changed while it was being packed \(13 bytes listed, 22 now\)/);
  });

  it("race: swaps of a file and a link to a secret at seeded moments; no tarball ever holds the secret (bounded)", async () => {
    const { base, root, secret } = setUp(40, 256 * 1024);
    const target = join(root, "zz.py");
    // The swapper runs whenever packing lets the event loop run (between directories of the
    // walk, and while segments are compressed): at each turn it puts a link to the secret, or
    // a regular file, in place of zz.py (by rename: atomic), or leaves it, as a seeded
    // generator says. The same seed gives the same swaps at the same turns.
    let state = 0x2622;
    const random = () => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state / 4294967296;
    };
    let swaps = 0;
    let running = true;
    const swap = () => {
      if (!running) return;
      const roll = random();
      if (roll < 0.4) {
        const temp = `${target}.link`;
        symlinkSync(secret, temp);
        renameSync(temp, target);
        swaps++;
      } else if (roll < 0.8) {
        const temp = `${target}.file`;
        writeFileSync(temp, LAST);
        renameSync(temp, target);
        swaps++;
      }
      setImmediate(swap);
    };
    const outcomes = { packed: 0, refused: 0 };
    const started = Date.now();
    try {
      for (let round = 0; round < 30 && Date.now() - started < 15_000; round++) {
        // Each round starts from a regular zz.py, which the walk sees.
        writeFileSync(`${target}.file`, LAST);
        renameSync(`${target}.file`, target);
        const walk = await walkSource(root);
        setImmediate(swap);
        try {
          const packed = await packWalk(root, walk, 64 << 20);
          const data = await tarballBytes(packed.tarball);
          packed.tarball.dispose();
          expect(data.includes(SECRET_START)).toBe(false);
          const file = readTarGz(data).find((entry) => entry.path === "zz.py");
          expect(file?.content.toString()).toBe(LAST);
          outcomes.packed++;
        } catch (error) {
          if (!(error instanceof SourceError)) throw error;
          expect(error.message).toMatch(
            /zz\.py (became a symbolic link|was replaced|changed) while it was being packed/,
          );
          outcomes.refused++;
        }
        running = false;
        await new Promise((resolve) => setImmediate(resolve));
        running = true;
      }
    } finally {
      running = false;
      rmSync(base, { recursive: true, force: true });
    }
    // The race was run: files were swapped under the packer, and it refused some tarballs.
    expect(swaps).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
  }, 30_000);
});
