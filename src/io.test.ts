// readTextFile: regular files at once, anything else through the event loop.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTextFile } from "./io.js";

const dir = mkdtempSync(join(tmpdir(), "cpctl-io-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hasMkfifo = process.platform !== "win32" && spawnSync("mkfifo", ["--version"]).status === 0;

describe("readTextFile", () => {
  it("reads a regular file as UTF-8", async () => {
    const path = join(dir, "deployment.yaml");
    writeFileSync(path, "name: ünïcödé\n");
    await expect(readTextFile(path)).resolves.toBe("name: ünïcödé\n");
  });

  it("fails with Node's error codes, which the callers name in their messages", async () => {
    await expect(readTextFile(join(dir, "missing.yaml"))).rejects.toMatchObject({ code: "ENOENT" });
    mkdirSync(join(dir, "a-directory"));
    await expect(readTextFile(join(dir, "a-directory"))).rejects.toMatchObject({ code: "EISDIR" });
  });

  it.skipIf(!hasMkfifo)(
    "reads a FIFO without blocking the event loop (so Ctrl-C is still handled)",
    async () => {
      const fifo = join(dir, "pipe");
      expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
      // Another process writes, so that a blocking read would finish too rather than hang.
      spawn("sh", ["-c", 'printf "name: from-a-pipe\\n" > "$0"', fifo], { stdio: "ignore" });
      let readFirst: boolean | undefined;
      const reading = readTextFile(fifo).then((text) => {
        readFirst ??= true;
        return text;
      });
      // Through the event loop, the read is still waiting when the loop turns; a blocking read
      // would have finished before.
      await new Promise((resolve) => setImmediate(resolve));
      readFirst ??= false;
      await expect(reading).resolves.toBe("name: from-a-pipe\n");
      expect(readFirst).toBe(false);
    },
  );
});
