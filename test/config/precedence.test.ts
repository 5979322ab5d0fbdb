// Precedence, case by case: flag > environment > project config > user config > built-in
// default (CLI.md), for baseUrl, output and tenantId, and the order that chooses the profile.
import { afterEach, describe, expect, test } from "vitest";
import { parse as parseYaml } from "yaml";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { runCli } from "../helpers/run-cli.js";
import { type Sandbox, sandbox, TENANT_A, TENANT_B, TENANT_C } from "./fixtures.js";

afterEach(closeTestEmulators);

const TENANT_D = "44444444-4444-4444-8444-444444444444";

function configs(s: Sandbox, levels: { user?: boolean; project?: boolean }) {
  if (levels.user) {
    s.user(
      `profiles:\n  p:\n    baseUrl: https://user.example.com\n    output: yaml\n    tenantId: ${TENANT_A}\n  local:\n    baseUrl: http://127.0.0.1:7000\n`,
    );
  }
  if (levels.project) {
    s.project(
      ".cpctlrc.yaml",
      `profiles:\n  p:\n    baseUrl: https://project.example.com\n    output: json\n    tenantId: ${TENANT_B}\n  local:\n    baseUrl: http://127.0.0.1:7001\n`,
    );
  }
}

async function get(s: Sandbox, key: string, args: string[] = [], env: Record<string, string> = {}) {
  const r = await runCli(["config", "get", key, "-o", "id", ...args], { homeDir: s.home, cwd: s.cwd, env });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

async function source(s: Sandbox, key: string, args: string[] = [], env: Record<string, string> = {}) {
  const r = await runCli(["config", "show", "--json", ...args], { homeDir: s.home, cwd: s.cwd, env });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout)[key].source as string;
}

describe("baseUrl", () => {
  test("built-in default: the local profile is the emulator's address", async () => {
    const s = sandbox();
    expect(await get(s, "baseUrl", ["--profile", "local"])).toBe("http://127.0.0.1:8124");
    expect(await source(s, "baseUrl", ["--profile", "local"])).toBe("built-in profile local");
  });

  test("user config beats the built-in default", async () => {
    const s = sandbox();
    configs(s, { user: true });
    expect(await get(s, "baseUrl", ["--profile", "local"])).toBe("http://127.0.0.1:7000");
    expect(await source(s, "baseUrl", ["--profile", "local"])).toBe(
      `profiles.local.baseUrl in ${s.userFile}`,
    );
  });

  test("project config beats user config", async () => {
    const s = sandbox();
    configs(s, { user: true, project: true });
    expect(await get(s, "baseUrl", ["--profile", "p"])).toBe("https://project.example.com");
    expect(await source(s, "baseUrl", ["--profile", "p"])).toBe(
      `profiles.p.baseUrl in ${s.cwd}/.cpctlrc.yaml`,
    );
  });

  test("environment beats project config", async () => {
    const s = sandbox();
    configs(s, { user: true, project: true });
    const env = { CPCTL_BASE_URL: "https://env.example.com" };
    expect(await get(s, "baseUrl", ["--profile", "p"], env)).toBe("https://env.example.com");
    expect(await source(s, "baseUrl", ["--profile", "p"], env)).toBe("environment variable CPCTL_BASE_URL");
  });

  test("flag beats environment", async () => {
    const s = sandbox();
    configs(s, { user: true, project: true });
    const env = { CPCTL_BASE_URL: "https://env.example.com" };
    const args = ["--profile", "p", "--base-url", "https://flag.example.com"];
    expect(await get(s, "baseUrl", args, env)).toBe("https://flag.example.com");
    expect(await source(s, "baseUrl", args, env)).toBe("--base-url");
  });
});

describe("tenantId", () => {
  test("no default", async () => {
    const s = sandbox();
    const r = await runCli(["config", "get", "tenantId"], { homeDir: s.home, cwd: s.cwd });
    expect(r).toMatchObject({ code: 1, stdout: "" });
    expect(r.stderr).toContain("tenantId is not set");
  });

  test("user, then project, then environment, then flag", async () => {
    const s = sandbox();
    configs(s, { user: true });
    expect(await get(s, "tenantId", ["--profile", "p"])).toBe(TENANT_A);
    configs(s, { project: true });
    expect(await get(s, "tenantId", ["--profile", "p"])).toBe(TENANT_B);
    const env = { CPCTL_TENANT_ID: TENANT_C };
    expect(await get(s, "tenantId", ["--profile", "p"], env)).toBe(TENANT_C);
    expect(await get(s, "tenantId", ["--profile", "p", "--tenant-id", TENANT_D], env)).toBe(TENANT_D);
    expect(await source(s, "tenantId", ["--profile", "p", "--tenant-id", TENANT_D], env)).toBe("--tenant-id");
  });
});

describe("output", () => {
  // The format is seen in what `config show` prints.
  async function show(s: Sandbox, args: string[], env: Record<string, string> = {}) {
    const r = await runCli(["config", "show", "--profile", "p", ...args], {
      homeDir: s.home,
      cwd: s.cwd,
      env,
    });
    expect(r.code).toBe(0);
    return r.stdout;
  }

  test("built-in default: table (tab-separated off a terminal)", async () => {
    const s = sandbox();
    s.user("profiles:\n  p: {}\n");
    expect(await show(s, [])).toContain("output\ttable\tbuilt-in default\n");
  });

  test("user config, then project config, then environment, then flag", async () => {
    const s = sandbox();
    configs(s, { user: true });
    expect(parseYaml(await show(s, [])).output).toEqual({
      value: "yaml",
      source: `profiles.p.output in ${s.userFile}`,
    });
    configs(s, { project: true });
    expect(JSON.parse(await show(s, [])).output.value).toBe("json");
    expect(await show(s, [], { CPCTL_OUTPUT: "table" })).toContain(
      "output\ttable\tenvironment variable CPCTL_OUTPUT\n",
    );
    expect(parseYaml(await show(s, ["-o", "yaml"], { CPCTL_OUTPUT: "table" })).output).toEqual({
      value: "yaml",
      source: "--output",
    });
    expect(JSON.parse(await show(s, ["--json"], { CPCTL_OUTPUT: "table" })).output).toEqual({
      value: "json",
      source: "--json",
    });
  });
});

describe("profile selection", () => {
  function profiles(s: Sandbox) {
    s.user("defaultProfile: u\nprofiles:\n  u: {}\n  pr: {}\n  e: {}\n  f: {}\n");
    s.project(".cpctlrc.yaml", "defaultProfile: pr\n");
  }

  test("--profile > CPCTL_PROFILE > project defaultProfile > user defaultProfile", async () => {
    const s = sandbox();
    s.user("defaultProfile: u\nprofiles:\n  u: {}\n");
    expect(await get(s, "profile")).toBe("u");
    profiles(s);
    expect(await get(s, "profile")).toBe("pr");
    expect(await get(s, "profile", [], { CPCTL_PROFILE: "e" })).toBe("e");
    expect(await get(s, "profile", ["--profile", "f"], { CPCTL_PROFILE: "e" })).toBe("f");
    expect(await source(s, "profile", ["--profile", "f"], { CPCTL_PROFILE: "e" })).toBe("--profile");
    expect(await source(s, "profile", [], { CPCTL_PROFILE: "e" })).toBe("environment variable CPCTL_PROFILE");
    expect(await source(s, "profile")).toBe(`defaultProfile in ${s.cwd}/.cpctlrc.yaml`);
  });

  test("no profile at all: nothing comes from the files", async () => {
    const s = sandbox();
    s.user("profiles:\n  p:\n    baseUrl: https://user.example.com\n");
    const r = await runCli(["config", "show", "--json"], { homeDir: s.home, cwd: s.cwd });
    expect(JSON.parse(r.stdout)).toMatchObject({ profile: { value: null }, baseUrl: { value: null } });
  });

  test("an unknown profile is a usage error listing the known ones", async () => {
    const s = sandbox();
    profiles(s);
    for (const [args, env, from] of [
      [["--profile", "nope"], {}, "--profile"],
      [[], { CPCTL_PROFILE: "nope" }, "CPCTL_PROFILE"],
    ] as const) {
      const r = await runCli(["deploy", "list", ...args], { homeDir: s.home, cwd: s.cwd, env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `error: unknown profile 'nope' (from ${from}); known profiles: u, pr, e, f, local\n`,
      );
    }
  });

  test("an unknown profile in JSON mode is a JSON error", async () => {
    const s = sandbox();
    const r = await runCli(["deploy", "list", "--profile", "nope", "-o", "json"], {
      homeDir: s.home,
      cwd: s.cwd,
    });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: "usage",
      message: expect.stringContaining("unknown profile 'nope'"),
    });
  });
});

describe("with the emulator", () => {
  test(`a project profile with \${env:} credentials is what requests use; the user file's address is overridden`, async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "from-config");
    const s = sandbox();
    // The user trusts the project's host: otherwise their key would not go there (redirect.test.ts).
    s.user(
      `defaultProfile: dev\ntrustedHosts: ["http://${new URL(em.url).host}"]\nprofiles:\n  dev:\n    baseUrl: http://127.0.0.1:9\n    apiKey: \${env:EMU_KEY}\n`,
    );
    s.project(".cpctlrc.json", JSON.stringify({ profiles: { dev: { baseUrl: em.url } } }));
    const r = await runCli(["deploy", "list", "-o", "json"], {
      homeDir: s.home,
      cwd: s.cwd,
      env: { EMU_KEY: em.apiKey },
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).map((d: { name: string }) => d.name)).toEqual(["from-config"]);
  });

  test("an unset variable stops the command before any request", async () => {
    const em = await startTestEmulator();
    const s = sandbox();
    s.user(`profiles:\n  dev:\n    baseUrl: ${em.url}\n    apiKey: \${env:EMU_KEY}\n`);
    const r = await runCli(["deploy", "list", "--profile", "dev"], { homeDir: s.home, cwd: s.cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: ${s.userFile}: profiles.dev.apiKey (profile dev): the environment variable EMU_KEY is not set (used as \${env:EMU_KEY}); export it, or change the file\n`,
    );
    expect(em.emulator.stats().total).toBe(0);
  });

  test("XDG_CONFIG_HOME moves the user file", async () => {
    const em = await startTestEmulator();
    const s = sandbox();
    const xdg = `${s.home}/xdg`;
    const { mkdirSync, writeFileSync } = await import("node:fs");
    mkdirSync(`${xdg}/cpctl`, { recursive: true });
    writeFileSync(
      `${xdg}/cpctl/config.yaml`,
      `profiles:\n  x:\n    baseUrl: ${em.url}\n    apiKey: ${em.apiKey}\n`,
      { mode: 0o600 },
    );
    const r = await runCli(["deploy", "list", "--profile", "x"], {
      homeDir: s.home,
      cwd: s.cwd,
      env: { XDG_CONFIG_HOME: xdg },
    });
    expect(r.code).toBe(0);
  });
});
