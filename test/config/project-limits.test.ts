// A project file can add safety but never take it away (issue 22 items 8 and 12): it comes
// with a checkout that anyone may have written. Its `confirm: false` does not undo the user's
// `confirm: true`; its defaultProfile does not choose which of the user's credentials a
// command uses; a credential written in it does not act on the user's own control plane; and
// a host the user trusts is trusted for its scheme only (a bare entry is https://).
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { runCli } from "../helpers/run-cli.js";
import { type Sandbox, sandbox } from "./fixtures.js";

afterEach(closeTestEmulators);

const CREATE = [
  "deploy",
  "create",
  "--name",
  "n",
  "--source",
  "internal_container",
  "--image-uri",
  "r.example.com/a:1",
];
const created = (em: TestEmulator) => em.emulator.stats().requests["POST /v2/deployments"] ?? 0;

/** The user's prod profile (its address, its key from the environment, confirm: true). */
function userProd(em: TestEmulator, extra = ""): Sandbox {
  const box = sandbox();
  box.user(
    `${extra}profiles:\n  staging:\n    baseUrl: http://127.0.0.1:9\n    apiKey: \${env:K}\n  prod:\n    baseUrl: ${em.url}\n    apiKey: \${env:K}\n    confirm: true\n`,
  );
  return box;
}

describe("confirm: a project file can turn it on, never off", () => {
  it("the issue's clone: defaultProfile prod and prod.confirm false do not undo the user's confirm: true", async () => {
    const em = await startTestEmulator();
    const box = userProd(em, "defaultProfile: prod\n");
    box.project(".cpctlrc.yaml", "defaultProfile: prod\nprofiles:\n  prod:\n    confirm: false\n");
    for (const args of [CREATE, [...CREATE, "--profile", "prod"]]) {
      const r = await runCli(args, { homeDir: box.home, cwd: box.cwd, env: { K: em.apiKey } });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain("requires confirmation");
    }
    expect(created(em)).toBe(0);
    const shown = await runCli(["config", "get", "confirm", "-o", "json"], {
      homeDir: box.home,
      cwd: box.cwd,
      env: { K: em.apiKey },
    });
    expect(JSON.parse(shown.stdout)).toMatchObject({
      value: true,
      source: `profiles.prod.confirm in ${box.userFile}`,
    });
    const listed = await runCli(["config", "list", "-o", "json"], {
      homeDir: box.home,
      cwd: box.cwd,
      env: { K: em.apiKey },
    });
    expect(JSON.parse(listed.stdout).find((p: { name: string }) => p.name === "prod")).toMatchObject({
      confirm: true,
    });
  });

  it('"false" written as a string, or with the user file silent: the same, and a project may add it', async () => {
    const em = await startTestEmulator();
    const box = userProd(em, "defaultProfile: prod\n");
    box.project(".cpctlrc.yaml", 'profiles:\n  prod:\n    confirm: "false"\n');
    const r = await runCli(CREATE, { homeDir: box.home, cwd: box.cwd, env: { K: em.apiKey } });
    expect(r.code).toBe(2);
    // A project file asking for confirmation where the user did not: asked for.
    box.project(".cpctlrc.yaml", "profiles:\n  staging:\n    confirm: true\n");
    const added = await runCli([...CREATE, "--profile", "staging"], {
      homeDir: box.home,
      cwd: box.cwd,
      env: { K: em.apiKey },
    });
    expect(added.code).toBe(2);
    expect(added.stderr).toContain("requires confirmation");
    expect(created(em)).toBe(0);
  });
});

describe("a project's defaultProfile does not choose which of your credentials are used", () => {
  it("picking a profile with your key other than your own default: exit 2, nothing sent, how to choose it", async () => {
    const em = await startTestEmulator();
    const box = userProd(em, "defaultProfile: staging\n");
    const project = box.project(".cpctlrc.yaml", "defaultProfile: prod\n");
    const r = await runCli(["deploy", "list"], { homeDir: box.home, cwd: box.cwd, env: { K: em.apiKey } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error: the profile prod was chosen by a project file (defaultProfile in ${project}), and its credentials are yours (apiKey: profiles.prod.apiKey in ${box.userFile} (from \${env:K})): a project file does not choose which of your credentials a command uses`,
    );
    expect(r.stderr).toContain("--profile prod");
    expect(em.emulator.stats().total).toBe(0);
    // Chosen by the user: fine.
    for (const chosen of [{ args: ["--profile", "prod"] }, { env: { CPCTL_PROFILE: "prod" } }]) {
      const ok = await runCli(["deploy", "list", ...(chosen.args ?? [])], {
        homeDir: box.home,
        cwd: box.cwd,
        env: { K: em.apiKey, ...chosen.env },
      });
      expect(ok.code, ok.stderr).toBe(0);
    }
  });

  it("allowed when it is your own default too, or the project's directory is one you trust", async () => {
    const em = await startTestEmulator();
    const box = userProd(em, "defaultProfile: prod\n");
    box.project(".cpctlrc.yaml", "defaultProfile: prod\n");
    const own = await runCli(["deploy", "list"], { homeDir: box.home, cwd: box.cwd, env: { K: em.apiKey } });
    expect(own.code, own.stderr).toBe(0);
    // Your default is staging, but you trust the directory above the project (its code may run anyway).
    const trusting = userProd(em, "defaultProfile: staging\n");
    trusting.project(".cpctlrc.yaml", "defaultProfile: prod\n");
    const before = await runCli(["deploy", "list"], {
      homeDir: trusting.home,
      cwd: trusting.cwd,
      env: { K: em.apiKey },
    });
    expect(before.code).toBe(2);
    const trust = await runCli(["config", "set", "trustedDirectories", join(trusting.home, "work")], {
      homeDir: trusting.home,
      cwd: trusting.cwd,
    });
    expect(trust.code, trust.stderr).toBe(0);
    const after = await runCli(["deploy", "list"], {
      homeDir: trusting.home,
      cwd: trusting.cwd,
      env: { K: em.apiKey },
    });
    expect(after.code, after.stderr).toBe(0);
  });

  it("a profile of the project's own, with no credential of yours, may be its default", async () => {
    const em = await startTestEmulator();
    const box = userProd(em, "defaultProfile: staging\n");
    box.project(
      ".cpctlrc.yaml",
      `defaultProfile: dev\nprofiles:\n  dev:\n    baseUrl: ${em.url}\n    apiKey: ${em.apiKey}\n`,
    );
    const r = await runCli(["deploy", "list"], { homeDir: box.home, cwd: box.cwd });
    expect(r.code, r.stderr).toBe(0);
  });

  it("a key written in the project file does not act on your address: exit 2", async () => {
    const em = await startTestEmulator();
    const box = userProd(em, "defaultProfile: prod\n");
    const project = box.project(".cpctlrc.yaml", "profiles:\n  prod:\n    apiKey: the-projects-own-key\n");
    const r = await runCli(["deploy", "list"], { homeDir: box.home, cwd: box.cwd, env: { K: em.apiKey } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error: apiKey comes from a project file (profiles.prod.apiKey in ${project}), but the address ${em.url} is yours (profiles.prod.baseUrl in ${box.userFile}): a project file does not choose the account your commands act in on your control plane`,
    );
    expect(r.stderr).not.toContain("the-projects-own-key");
    expect(em.emulator.stats().total).toBe(0);
  });
});

describe("a project file's $import", () => {
  it("is not followed (it could pull the user file's literal key in as the project's own): an unknown key", async () => {
    const em = await startTestEmulator();
    const box = sandbox();
    box.user(`profiles:\n  prod:\n    baseUrl: http://127.0.0.1:9\n    apiKey: users-literal-key-0123\n`);
    const project = box.project(
      ".cpctlrc.yaml",
      `$import: ${JSON.stringify(box.userFile)}\nprofiles:\n  prod:\n    baseUrl: ${em.url}\n`,
    );
    const r = await runCli(["deploy", "list", "--profile", "prod"], { homeDir: box.home, cwd: box.cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${project}: $import: unknown key`);
    expect(em.emulator.stats().total).toBe(0);
  });
});

describe("trustedHosts carry their scheme", () => {
  function pointed(em: TestEmulator, trusted: string): Sandbox {
    const box = sandbox();
    box.user(`trustedHosts: [${JSON.stringify(trusted)}]\nprofiles:\n  work:\n    apiKey: \${env:K}\n`);
    box.project(".cpctlrc.yaml", `profiles:\n  work:\n    baseUrl: ${em.url}\n`);
    return box;
  }

  it("a bare entry trusts https:// only: a project file cannot point it at http://", async () => {
    const em = await startTestEmulator();
    const host = new URL(em.url).host;
    for (const entry of [host, "127.0.0.1", `https://${host}`]) {
      const box = pointed(em, entry);
      const r = await runCli(["deploy", "list", "--profile", "work"], {
        homeDir: box.home,
        cwd: box.cwd,
        env: { K: em.apiKey },
      });
      expect(r.code, entry).toBe(2);
      expect(r.stderr).toContain(`your user config does not trust http://${host} (plain http://`);
      expect(r.stderr).toContain(`cpctl config set trustedHosts http://${host}`);
    }
    expect(em.emulator.stats().total).toBe(0);
  });

  it("an http:// entry trusts plain http on that host (and port); `config set` keeps the scheme", async () => {
    const em = await startTestEmulator();
    const host = new URL(em.url).host;
    const box = pointed(em, `http://${host}`);
    const r = await runCli(["deploy", "list", "--profile", "work"], {
      homeDir: box.home,
      cwd: box.cwd,
      env: { K: em.apiKey },
    });
    expect(r.code, r.stderr).toBe(0);
    const set = await runCli(["config", "set", "trustedHosts", `${em.url}/some/path`], {
      homeDir: box.home,
      cwd: box.cwd,
    });
    expect(set.stderr).toContain(`http://${host} is already in trustedHosts`);
  });
});
