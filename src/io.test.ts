// readTextFile: a regular file at once, anything else on libuv's thread pool, counted while
// it waits (src/cli.ts ends a Ctrl-C'd run by the signal then, rather than wait for it).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readsWaiting, readTextFile } from "./io.js";

const dir = mkdtempSync(join(tmpdir(), "cpctl-io-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fifo = join(dir, "pipe");
const hasFifo = process.platform !== "win32" && spawnSync("mkfifo", [fifo]).status === 0;

/** Whether `reading` settled before the event loop turned once. */
async function settledAtOnce(reading: Promise<unknown>): Promise<boolean> {
  let settled = false;
  reading.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe("readTextFile", () => {
  it("reads a regular file as UTF-8, at once (no thread pool, no turn of the event loop)", async () => {
    const path = join(dir, "deployment.yaml");
    writeFileSync(path, "name: ünïcödé\n");
    const reading = readTextFile(path);
    expect(await settledAtOnce(reading)).toBe(true);
    await expect(reading).resolves.toBe("name: ünïcödé\n");
    expect(readsWaiting()).toBe(0);
  });

  it("fails with Node's error codes, which the callers name in their messages", async () => {
    await expect(readTextFile(join(dir, "missing.yaml"))).rejects.toMatchObject({ code: "ENOENT" });
    mkdirSync(join(dir, "a-directory"));
    await expect(readTextFile(join(dir, "a-directory"))).rejects.toMatchObject({ code: "EISDIR" });
  });

  it.skipIf(!hasFifo)("reads a FIFO off the main thread, counted as waiting until it is done", async () => {
    // Another process writes, so that a blocking read would finish too rather than hang.
    const writer = spawn("sh", ["-c", 'printf "name: from-a-pipe\\n" > "$0"', fifo], { stdio: "ignore" });
    try {
      const reading = readTextFile(fifo);
      expect(readsWaiting()).toBe(1);
      // A synchronous read would have finished before the event loop turned.
      expect(await settledAtOnce(reading)).toBe(false);
      await expect(reading).resolves.toBe("name: from-a-pipe\n");
      expect(readsWaiting()).toBe(0);
    } finally {
      writer.kill();
    }
  });
});
