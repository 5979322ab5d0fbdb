// What a user names to be read (a deployment file, a secrets file, a key file, stdin) is read
// up to a documented limit, then refused with exit 2 (src/io.ts): `-f - < /dev/zero` and an
// endless pipe end at once, a multi-megabyte "key" never becomes a header. A read that waits
// for input ends on the first SIGTERM or Ctrl-C.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { DEPLOYMENT_FILE_LIMIT, KEY_FILE_LIMIT, SECRETS_FILE_LIMIT } from "../../src/io.js";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { freshDir, runCli } from "../helpers/run-cli.js";
import { expectCleanOutput } from "./helpers.js";

const bin = fileURLToPath(new URL("../../bin/cpctl.cjs", import.meta.url));
const DRY_CREATE = ["deploy", "create", "--dry-run", "--base-url", "http://127.0.0.1:9"];
const FLAGS = ["--name", "n", "--source", "internal_container", "--image-uri", "r.example.com/a:1"];

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  await closeTestEmulators();
});

function spawnCli(args: string[], stdin: "pipe" | number) {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: "/nonexistent-home-for-tests" },
    stdio: [stdin, "pipe", "pipe"],
  });
  children.push(child);
  const out = { stdout: "", stderr: "" };
  child.stdout!.on("data", (chunk: Buffer) => {
    out.stdout += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    out.stderr += chunk.toString();
  });
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, out, exited };
}

describe("in-process: each input over its limit is exit 2, and nothing is sent", () => {
  it("-f - (stdin) over the deployment file limit", async () => {
    const r = await runCli([...DRY_CREATE, "-f", "-"], {
      stdin: "#".repeat(DEPLOYMENT_FILE_LIMIT.maxBytes + 1),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: -f - (stdin): larger than 4 MiB, the most cpctl reads from a deployment file; nothing was sent\n",
    );
  });

  it("-f FILE and --secrets-file FILE over theirs", async () => {
    const dir = freshDir("big");
    const big = join(dir, "big");
    writeFileSync(big, "#".repeat(SECRETS_FILE_LIMIT.maxBytes + 1));
    const file = await runCli([...DRY_CREATE, "-f", big]);
    expect(file.code).toBe(2);
    expect(file.stderr).toContain(`-f ${big}: larger than 4 MiB`);
    const secrets = await runCli([...DRY_CREATE, ...FLAGS, "--secrets-file", big]);
    expect(secrets.code).toBe(2);
    expect(secrets.stderr).toContain(
      `--secrets-file ${big}: larger than 4 MiB, the most cpctl reads from a secrets file`,
    );
  });

  it("--api-key-file over 8 KiB: refused, never sent as a header", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("key");
    writeFileSync(join(dir, "key"), "k".repeat(KEY_FILE_LIMIT.maxBytes + 1));
    const env = { CPCTL_BASE_URL: em.url };
    const r = await runCli(["deploy", "list", "--api-key-file", "key"], { cwd: dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "--api-key-file key: larger than 8 KiB, the most cpctl reads from an API key file",
    );
    const stdin = await runCli(["deploy", "list", "--api-key-file", "-"], {
      env,
      stdin: "k".repeat(KEY_FILE_LIMIT.maxBytes + 1),
    });
    expect(stdin.code).toBe(2);
    expect(em.emulator.stats().total).toBe(0);
  });

  it("a read of stdin that waits for input ends when the run is interrupted: exit 130", async () => {
    const controller = new AbortController();
    let reading!: () => void;
    const started = new Promise<void>((resolve) => {
      reading = resolve;
    });
    // A pipe that stays open and silent, as `sleep infinity | cpctl ... -f -`.
    const silent = new Readable({ read: () => reading() });
    const run = runCli([...DRY_CREATE, "-f", "-"], { signal: controller.signal, stdinStream: silent });
    await started;
    controller.abort();
    const r = await run;
    expect(r.code).toBe(130);
    expect(silent.destroyed).toBe(true);
  });
});

describe("the built binary", () => {
  it("-f - < /dev/zero: exit 2 at the limit, not gigabytes later", async () => {
    const { out, exited } = spawnCli([...DRY_CREATE, "-f", "-"], openSync("/dev/zero", "r"));
    const [code] = await exited;
    expect(code).toBe(2);
    expect(out.stderr).toContain("-f - (stdin): larger than 4 MiB");
    expectCleanOutput({ code: code ?? -1, ...out });
  });

  it("-f /dev/zero: the same", async () => {
    const { out, exited } = spawnCli([...DRY_CREATE, "-f", "/dev/zero"], "pipe");
    const [code] = await exited;
    expect(code).toBe(2);
    expect(out.stderr).toContain("-f /dev/zero: larger than 4 MiB");
  });

  it("one SIGTERM ends a run that is reading stdin", async () => {
    const { child, out, exited } = spawnCli([...DRY_CREATE, "-f", "-"], "pipe");
    // A pipe holds 64 KiB: once 1 MiB has gone in, the child is reading, and reads on.
    await new Promise<void>((resolve, reject) =>
      child.stdin!.write(Buffer.alloc(1024 * 1024, 0x23), (error) => (error ? reject(error) : resolve())),
    );
    child.kill("SIGTERM");
    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: 130, signal: null });
    expect(out.stderr).toContain("interrupted");
  });
});
