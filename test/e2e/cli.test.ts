// The built binary, as users run it: real process, real streams, real exit codes.
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProxy } from "../helpers/proxy.js";
import { type SpawnedEmulator, spawnEmulator } from "../helpers/spawn-emulator.js";

const bin = fileURLToPath(new URL("../../bin/cpctl.cjs", import.meta.url));
const baseEnv = { PATH: process.env.PATH ?? "", HOME: "/nonexistent-home-for-tests", CI: "true" };
const cpctl = (args: string[], env: Record<string, string> = {}, input?: string) =>
  execa(process.execPath, [bin, ...args], {
    env: { ...baseEnv, ...env },
    extendEnv: false,
    reject: false,
    input,
    timeout: 15_000,
  });

let emulator: SpawnedEmulator;
let url = "";

beforeAll(async () => {
  emulator = await spawnEmulator(bin, ["--stage-ms", "5"], baseEnv);
  expect(emulator.firstLine).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
  url = emulator.url;
});

afterAll(async () => {
  expect(await emulator.stop(), emulator.stderr()).toBe(0);
});

describe("the built cpctl", () => {
  it("goes through HTTP_PROXY with the bundled proxy transport, and loads none without it", async () => {
    const proxy = await startProxy();
    const env = { CPCTL_BASE_URL: url, CPCTL_API_KEY: "e2e-key-1234" };
    const viaProxy = await cpctl(["deploy", "list", "-o", "json"], { ...env, HTTP_PROXY: proxy.url });
    expect(viaProxy.exitCode, viaProxy.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(viaProxy.stdout))).toBe(true);
    expect(proxy.forwarded).toHaveLength(1);
  });

  it("prints its version and help with exit 0", async () => {
    const version = await cpctl(["--version"]);
    expect(version.exitCode).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+$/);
    const help = await cpctl(["--help"]);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain("deploy");
    expect(help.stderr).toBe("");
  });

  it("runs the typical flow with results on stdout and progress on stderr", async () => {
    const env = { CPCTL_BASE_URL: url, CPCTL_API_KEY: "e2e-key-1234" };
    const integration = (await cpctl(["integrations", "list", "-o", "id"], env)).stdout.split("\n")[0]!;
    const create = await cpctl(
      [
        "deploy",
        "create",
        "--name",
        "e2e",
        "--source",
        "gitrepo",
        "--integration-id",
        integration,
        "--repo-url",
        "https://github.com/acme/e2e",
        "--agent-config-path",
        "agent.json",
        "--secret",
        "TOKEN=e2e-secret-value",
        "--wait",
        "--interval",
        "100ms",
        "-o",
        "json",
      ],
      env,
    );
    expect(create.exitCode, create.stderr).toBe(0);
    const deployment = JSON.parse(create.stdout);
    expect(deployment.name).toBe("e2e");
    expect(create.stderr).toContain("DEPLOYED");
    expect(create.stdout + create.stderr).not.toContain("e2e-secret-value");
    expect(create.stdout + create.stderr).not.toContain("e2e-key-1234");

    const list = await cpctl(["deploy", "list", "-o", "ndjson"], env);
    expect(
      list.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).id),
    ).toContain(deployment.id);
    const missing = await cpctl(["deploy", "get", "nope"], env);
    expect(missing.exitCode).toBe(4);
    expect(missing.stdout).toBe("");
    const invalid = await cpctl(
      ["deploy", "create", "--name", "x", "--source", "gitrepo", "--no-input"],
      env,
    );
    expect(invalid.exitCode).toBe(2);
    expect(invalid.stderr).not.toMatch(/\n\s+at /);
  });

  it("reads a deployment file from stdin and exits 2 on an invalid one", async () => {
    const env = { CPCTL_BASE_URL: url, CPCTL_API_KEY: "e2e-key-1234" };
    const ok = await cpctl(
      ["deploy", "create", "-f", "-", "--dry-run"],
      env,
      "name: piped\nsource: internal_container\n",
    );
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ name: "piped", source: "internal_container" });
    const bad = await cpctl(["deploy", "create", "-f", "-", "--dry-run"], env, "name: [unclosed\n");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/^error: stdin:\d+: not valid YAML/);
  });

  it("stays quiet when stdout is closed early (| head -1)", async () => {
    const env = { CPCTL_BASE_URL: url, CPCTL_API_KEY: "e2e-key-1234" };
    const result = await execa("sh", ["-c", `"${process.execPath}" "${bin}" schema | head -c 10`], {
      env: { ...baseEnv, ...env },
      reject: false,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
  });
});
