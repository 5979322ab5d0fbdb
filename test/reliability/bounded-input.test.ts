import { openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { DEPLOYMENT_FILE_LIMIT, KEY_FILE_LIMIT, SECRETS_FILE_LIMIT } from "../../src/io.js";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { freshDir, runCli } from "../helpers/run-cli.js";
import { expectCleanOutput, killSpawnedClis, report, spawnBuiltCli } from "./helpers.js";

const DRY_CREATE = ["deploy", "create", "--dry-run", "--base-url", "http://127.0.0.1:9"];
const FLAGS = ["--name", "n", "--source", "internal_container", "--image-uri", "r.example.com/a:1"];

afterEach(async () => {
  killSpawnedClis();
  await closeTestEmulators();
});

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

/** A YAML file whose anchor (a string of `anchorBytes`) is repeated by `aliases` aliases. */
function aliasBomb(anchorBytes: number, aliases: number): string {
  const lines = [
    "name: bomb",
    "source: external_container",
    "source_revision_config:",
    "  image_uri: r.example.com/a:1",
    "source_config:",
    "  resource_spec:",
    "    annotations:",
    `      a0: &big "${"x".repeat(anchorBytes)}"`,
  ];
  for (let i = 1; i <= aliases; i++) lines.push(`      a${i}: *big`);
  return `${lines.join("\n")}\n`;
}

describe("YAML aliases: what a file expands to is bounded too", () => {
  it("the issue's file: 4 MB with 99 aliases (390 MB once expanded) is exit 2 at once, nothing sent", async () => {
    const dir = freshDir("aliases");
    const bomb = aliasBomb(DEPLOYMENT_FILE_LIMIT.maxBytes - 4096, 99);
    writeFileSync(join(dir, "bomb.yaml"), bomb);
    const r = await runCli([...DRY_CREATE, "-f", "bomb.yaml"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: bomb.yaml: expands to more than 4 MiB once its YAML aliases are repeated (each alias stands for a copy of its anchor), the most cpctl reads from a deployment file; nothing was sent\n",
    );
    expect(r.stdout).toBe("");
  });

  it("a small file whose aliases expand past the limit: refused the same way; one within it is fine", async () => {
    const dir = freshDir("aliases-small");
    writeFileSync(join(dir, "small.yaml"), aliasBomb(60_000, 80));
    const r = await runCli([...DRY_CREATE, "-f", "small.yaml"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("small.yaml: expands to more than 4 MiB once its YAML aliases are repeated");
    writeFileSync(join(dir, "fine.yaml"), aliasBomb(1_000, 20));
    const fine = await runCli([...DRY_CREATE, "-f", "fine.yaml", "-o", "json"], { cwd: dir });
    expect(fine.code, fine.stderr).toBe(0);
    expect(Object.keys(JSON.parse(fine.stdout).source_config.resource_spec.annotations)).toHaveLength(21);
  });
});

describe("YAML aliases, fuzzed (seeded in CI)", () => {
  it("40 files of random anchor size and alias count: what they expand to decides, never more output than the limit", async () => {
    const dir = freshDir("aliases-fuzz");
    const MiB = 1024 * 1024;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 400_000 }),
        fc.integer({ min: 0, max: 99 }),
        async (anchor, aliases) => {
          writeFileSync(join(dir, "f.yaml"), aliasBomb(anchor, aliases));
          const r = await runCli([...DRY_CREATE, "-f", "f.yaml", "-o", "json"], { cwd: dir });
          const expanded = anchor * (aliases + 1);
          // Clearly within the limit: accepted; clearly past it: refused; near it, either.
          if (expanded < 3.5 * MiB) expect(r.code, r.stderr.slice(0, 300)).toBe(0);
          if (expanded > 4.5 * MiB) expect(r.code).toBe(2);
          if (r.code === 2) refused++;
          expect(r.stdout.length).toBeLessThan(5 * MiB);
        },
      ),
      { numRuns: 40 },
    );
    report("YAML alias files", { files: 40, refused });
  }, 120_000);
});

describe("the built binary", () => {
  it("-f - < /dev/zero: exit 2 at the limit, not gigabytes later", async () => {
    const { out, exited } = spawnBuiltCli([...DRY_CREATE, "-f", "-"], { stdin: openSync("/dev/zero", "r") });
    const [code] = await exited;
    expect(code).toBe(2);
    expect(out.stderr).toContain("-f - (stdin): larger than 4 MiB");
    expectCleanOutput({ code: code ?? -1, ...out });
  });

  it("-f /dev/zero: the same", async () => {
    const { out, exited } = spawnBuiltCli([...DRY_CREATE, "-f", "/dev/zero"], { stdin: "pipe" });
    const [code] = await exited;
    expect(code).toBe(2);
    expect(out.stderr).toContain("-f /dev/zero: larger than 4 MiB");
  });

  it("one SIGTERM ends a run that is reading stdin", async () => {
    const { child, out, exited } = spawnBuiltCli([...DRY_CREATE, "-f", "-"], { stdin: "pipe" });
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
