// readTextFile: a regular file at once, a FIFO or a terminal through the event loop, any other
// device on libuv's thread pool, counted while it reads (src/cli.ts ends a Ctrl-C'd run by the
// signal then, rather than wait for it). readRegularFile: regular files only, capped.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { failure } from "../test/helpers/failure.js";
import { InterruptedError } from "./errors.js";
import {
  FileTooLargeError,
  InputTooLargeError,
  NotRegularFileError,
  type ReadLimit,
  readAll,
  readRegularFile,
  readsWaiting,
  readTextFile,
} from "./io.js";

const LIMIT: ReadLimit = { maxBytes: 1024, what: "a test file" };
const options = { limit: LIMIT, label: "-f test" };

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
    const reading = readTextFile(path, options);
    expect(await settledAtOnce(reading)).toBe(true);
    await expect(reading).resolves.toBe("name: ünïcödé\n");
    expect(readsWaiting()).toBe(0);
  });

  it("fails with Node's error codes, which the callers name in their messages", async () => {
    await expect(readTextFile(join(dir, "missing.yaml"), options)).rejects.toMatchObject({ code: "ENOENT" });
    mkdirSync(join(dir, "a-directory"));
    await expect(readTextFile(join(dir, "a-directory"), options)).rejects.toMatchObject({ code: "EISDIR" });
  });

  it.skipIf(!hasFifo)("reads a FIFO through the event loop: no thread waits for its writer", async () => {
    const reading = readTextFile(fifo, options);
    // Opened without waiting for a writer, and polled: nothing is blocked in a thread.
    expect(readsWaiting()).toBe(0);
    expect(await settledAtOnce(reading)).toBe(false);
    // The writer comes later; what it writes is read whole.
    const writer = spawn("sh", ["-c", 'printf "name: from-a-pipe\\n" > "$0"', fifo], { stdio: "ignore" });
    try {
      await expect(reading).resolves.toBe("name: from-a-pipe\n");
    } finally {
      writer.kill();
    }
  });

  it.skipIf(!hasFifo)(
    "a FIFO nobody writes to: the signal ends the read, and nothing is left open",
    async () => {
      const controller = new AbortController();
      const reading = readTextFile(fifo, { ...options, signal: controller.signal });
      expect(await settledAtOnce(reading)).toBe(false);
      controller.abort();
      await failure(reading, InterruptedError);
      expect(readsWaiting()).toBe(0);
    },
  );
});

/** A stream that never ends: `chunk` bytes at every read, or nothing at all (a silent pipe). */
function endless(chunk: number): Readable & { pulls: number } {
  const stream = new Readable({
    read() {
      stream.pulls++;
      if (chunk > 0) this.push(Buffer.alloc(chunk, 0x61));
    },
  }) as Readable & { pulls: number };
  stream.pulls = 0;
  return stream;
}

describe("reads are bounded", () => {
  it("a regular file over the limit is refused, naming the input, the limit and what it is", async () => {
    const path = join(dir, "big.yaml");
    writeFileSync(path, "x".repeat(LIMIT.maxBytes + 1));
    const error = await failure(readTextFile(path, options), InputTooLargeError);
    expect(error.message).toBe(
      "-f test: larger than 1 KiB, the most cpctl reads from a test file; nothing was sent",
    );
    writeFileSync(path, "x".repeat(LIMIT.maxBytes));
    await expect(readTextFile(path, options)).resolves.toHaveLength(LIMIT.maxBytes);
  });

  it("an endless stream stops at the limit: it is not read to its end, and is destroyed", async () => {
    const stream = endless(100);
    await expect(readAll({ isTTY: false, stream }, options)).rejects.toBeInstanceOf(InputTooLargeError);
    expect(stream.pulls).toBeLessThanOrEqual(LIMIT.maxBytes / 100 + 2);
    expect(stream.destroyed).toBe(true);
  });

  it.skipIf(process.platform === "win32")(
    "a device that never ends (/dev/zero) stops at the limit",
    async () => {
      await expect(readTextFile("/dev/zero", options)).rejects.toBeInstanceOf(InputTooLargeError);
      // Counted until the device is closed, which the refusal set going: a few turns of the loop.
      for (let turn = 0; turn < 1000 && readsWaiting() > 0; turn++) await new Promise(setImmediate);
      expect(readsWaiting()).toBe(0);
    },
  );

  it("the signal ends a read that waits for input that never comes", async () => {
    const stream = endless(0);
    const controller = new AbortController();
    const reading = readAll({ isTTY: false, stream }, { ...options, signal: controller.signal });
    expect(await settledAtOnce(reading)).toBe(false);
    controller.abort();
    await expect(reading).rejects.toBeInstanceOf(InterruptedError);
    expect(stream.destroyed).toBe(true);
  });
});

describe("readRegularFile: what cpctl finds by itself", () => {
  it("reads a regular file, through a symbolic link too", () => {
    writeFileSync(join(dir, "config.yaml"), "profiles: {}\n");
    symlinkSync(join(dir, "config.yaml"), join(dir, "linked.yaml"));
    expect(readRegularFile(join(dir, "linked.yaml"), 100).toString()).toBe("profiles: {}\n");
  });

  it("refuses, without reading or waiting, a FIFO, a device, a link to one, or a directory", () => {
    const kinds: [string, string][] = [
      ["/dev/zero", "a device"],
      [dir, "a directory"],
    ];
    if (hasFifo) kinds.push([fifo, "a FIFO"]);
    symlinkSync("/dev/urandom", join(dir, "package.json"));
    kinds.push([join(dir, "package.json"), "a device"]);
    for (const [path, kind] of kinds) {
      let error: unknown;
      try {
        readRegularFile(path, 100);
      } catch (caught) {
        error = caught;
      }
      expect(error, path).toBeInstanceOf(NotRegularFileError);
      expect(error).toMatchObject({
        code: "ENOTREG",
        kind,
        message: `${path}: not a regular file (${kind})`,
      });
    }
  });

  it("refuses a file over the size, by its size, without reading it", () => {
    const path = join(dir, "big.json");
    writeFileSync(path, "x".repeat(101));
    expect(() => readRegularFile(path, 100)).toThrow(FileTooLargeError);
    expect(() => readRegularFile(path, 100)).toThrow(`${path}: 101 bytes`);
  });
});
