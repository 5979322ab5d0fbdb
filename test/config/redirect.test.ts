// A project file comes with a cloned repository: it may choose the address, but nothing of
// the user's (a credential from the user file, the environment or --api-key-file, a value it
// reads with ${env:NAME}) goes there unless the user config trusts that host (CLI.md).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { runCli } from "../helpers/run-cli.js";
import { type Sandbox, sandbox } from "./fixtures.js";

afterEach(closeTestEmulators);

const USER_KEY = "user-file-key-123456";

/** The project file points profile `work` at the emulator; the user file at a dead port. */
function redirected(em: TestEmulator, extra = "", user = `    apiKey: ${USER_KEY}\n`): Sandbox {
  const box = sandbox();
  box.user(`profiles:\n  work:\n    baseUrl: http://127.0.0.1:9\n${user}`);
  box.project(".cpctlrc.yaml", `profiles:\n  work:\n    baseUrl: ${em.url}\n${extra}`);
  return box;
}

/** The trustedHosts entry for the emulator: plain http:// must be trusted by name. */
const host = (em: TestEmulator) => `http://${new URL(em.url).host}`;

describe("a project file pointing a profile at its own address", () => {
  it("does not get the user file's key: exit 2, nothing sent, and how to trust the host", async () => {
    const em = await startTestEmulator();
    const box = redirected(em);
    const r = await runCli(["deploy", "list", "--profile", "work"], { homeDir: box.home, cwd: box.cwd });
    expect(r.code).toBe(2);
    expect(em.emulator.stats().total).toBe(0);
    expect(r.stderr).toContain(`error: the address ${em.url} comes from a project file`);
    expect(r.stderr).toContain(join(box.cwd, ".cpctlrc.yaml"));
    expect(r.stderr).toContain(`apiKey (profiles.work.apiKey in ${box.userFile})`);
    expect(r.stderr).toContain(`cpctl config set trustedHosts ${host(em)}`);
    expect(r.stderr).toContain(`under trustedHosts: in ${box.userFile}`);
    expect(r.stderr).not.toContain(USER_KEY);
  });

  it("does not get a key from the environment or from --api-key-file either", async () => {
    const em = await startTestEmulator();
    const box = redirected(em, "", "");
    const fromEnv = await runCli(["deploy", "list", "--profile", "work"], {
      homeDir: box.home,
      cwd: box.cwd,
      env: { CPCTL_API_KEY: em.apiKey },
    });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain("apiKey (environment variable CPCTL_API_KEY)");
    writeFileSync(join(box.cwd, "key.txt"), `${em.apiKey}\n`);
    const fromFile = await runCli(["deploy", "list", "--profile", "work", "--api-key-file", "key.txt"], {
      homeDir: box.home,
      cwd: box.cwd,
    });
    expect(fromFile.code).toBe(2);
    expect(fromFile.stderr).toContain("apiKey (--api-key-file)");
    expect(em.emulator.stats().total).toBe(0);
  });

  it("does not get what the project file itself reads from the environment with ${env:NAME}", async () => {
    const em = await startTestEmulator();
    const box = redirected(em, "    bearerToken: ${env:GITHUB_TOKEN}\n", "");
    const r = await runCli(["deploy", "list", "--profile", "work"], {
      homeDir: box.home,
      cwd: box.cwd,
      env: { GITHUB_TOKEN: "ghp_the_users_own_token_0123" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("bearerToken (profiles.work.bearerToken in");
    expect(r.stderr).not.toContain("ghp_the_users_own_token_0123");
    expect(em.emulator.stats().total).toBe(0);
  });

  it("may use a key written out in the project file itself: the project's own", async () => {
    const em = await startTestEmulator();
    const box = redirected(em, `    apiKey: ${em.apiKey}\n`, "");
    const r = await runCli(["deploy", "list", "--profile", "work", "-o", "json"], {
      homeDir: box.home,
      cwd: box.cwd,
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  it("gets the user's key once the user trusts the host with `config set trustedHosts`", async () => {
    const em = await startTestEmulator();
    const box = redirected(em, "", `    apiKey: \${env:K}\n`);
    const env = { K: em.apiKey };
    const trust = await runCli(["config", "set", "trustedHosts", em.url], {
      homeDir: box.home,
      cwd: box.cwd,
    });
    expect(trust.code).toBe(0);
    expect(trust.stderr).toContain(`added ${host(em)} to trustedHosts in ${box.userFile}`);
    const r = await runCli(["deploy", "list", "--profile", "work", "-o", "json"], {
      homeDir: box.home,
      cwd: box.cwd,
      env,
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(em.emulator.stats().total).toBe(1);
    // Trusting the same host again changes nothing.
    const again = await runCli(["config", "set", "trustedHosts", host(em)], {
      homeDir: box.home,
      cwd: box.cwd,
    });
    expect(again.stderr).toContain("is already in trustedHosts");
  });

  it("a host trusted on another port is not trusted on this one", async () => {
    const em = await startTestEmulator();
    const box = redirected(em, "", `    apiKey: ${USER_KEY}\n`);
    const other = Number(new URL(em.url).port) + 1;
    box.user(`trustedHosts: ["http://127.0.0.1:${other}"]\nprofiles:\n  work:\n    apiKey: ${USER_KEY}\n`);
    const r = await runCli(["deploy", "list", "--profile", "work"], { homeDir: box.home, cwd: box.cwd });
    expect(r.code).toBe(2);
    box.user(`trustedHosts: ["http://127.0.0.1"]\nprofiles:\n  work:\n    apiKey: ${em.apiKey}\n`);
    const any = await runCli(["deploy", "list", "--profile", "work"], { homeDir: box.home, cwd: box.cwd });
    expect(any.code).toBe(0);
  });

  it("--base-url chooses the address: the project file's is not used", async () => {
    const em = await startTestEmulator();
    const box = redirected(em);
    box.user(`profiles:\n  work:\n    apiKey: ${em.apiKey}\n`);
    const r = await runCli(["deploy", "list", "--profile", "work", "--base-url", em.url], {
      homeDir: box.home,
      cwd: box.cwd,
    });
    expect(r.code).toBe(0);
  });

  it("a project file cannot trust a host (or a directory) itself", async () => {
    const em = await startTestEmulator();
    const box = redirected(em, "");
    box.project(
      ".cpctlrc.yaml",
      `trustedHosts: ["${host(em)}"]\nprofiles:\n  work:\n    baseUrl: ${em.url}\n`,
    );
    const r = await runCli(["deploy", "list", "--profile", "work"], { homeDir: box.home, cwd: box.cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("trustedHosts: only your user config can say what to trust");
    expect(em.emulator.stats().total).toBe(0);
  });

  it("config commands still work, so the user can look before trusting", async () => {
    const em = await startTestEmulator();
    const box = redirected(em);
    const r = await runCli(["config", "get", "baseUrl", "--profile", "work"], {
      homeDir: box.home,
      cwd: box.cwd,
    });
    expect(r).toMatchObject({ code: 0, stdout: `${em.url}\n` });
  });
});
