// A newcomer's profiles: the README's own `config set apiKey '${env:...}'` then `config show`
// works when the variable is not exported (it shows it as not set, with its name, and only the
// commands that need it stop); `cpctl config use PROFILE` makes a profile the default and says
// so, and what still wins over it; and every error about a missing setting says which profile
// was chosen and why.
import { readFileSync, statSync } from "node:fs";
import { afterEach, describe, expect, test } from "vitest";
import { parse as parseYaml } from "yaml";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { runCli } from "../helpers/run-cli.js";
import { type Sandbox, sandbox } from "./fixtures.js";

afterEach(closeTestEmulators);

function run(s: Sandbox, args: string[], env: Record<string, string> = {}) {
  return runCli(args, { homeDir: s.home, cwd: s.cwd, env });
}

describe("a ${env:...} reference whose variable is not set", () => {
  test("config show shows it as not set, with its name; a command that needs it stops", async () => {
    const s = sandbox();
    expect(
      (await run(s, ["config", "set", "baseUrl", "https://cp.example.com", "--profile", "prod"])).code,
    ).toBe(0);
    expect(
      (await run(s, ["config", "set", "apiKey", "${env:CPCTL_PROD_API_KEY}", "--profile", "prod"])).code,
    ).toBe(0);

    const shown = await run(s, ["config", "show", "--profile", "prod"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(
      `apiKey\t(not set: \${env:CPCTL_PROD_API_KEY})\tprofiles.prod.apiKey in ${s.userFile}\n`,
    );
    expect(shown.stdout).toContain("baseUrl\thttps://cp.example.com\t");
    const json = JSON.parse((await run(s, ["config", "show", "--profile", "prod", "-o", "json"])).stdout);
    expect(json.apiKey).toEqual({
      value: null,
      source: `profiles.prod.apiKey in ${s.userFile}`,
      unset: "CPCTL_PROD_API_KEY",
    });
    // What does not need the key works.
    expect((await run(s, ["config", "get", "baseUrl", "--profile", "prod"])).stdout).toBe(
      "https://cp.example.com\n",
    );

    for (const args of [
      ["deploy", "list", "--profile", "prod"],
      ["config", "get", "apiKey", "--profile", "prod"],
    ]) {
      const needs = await run(s, args);
      expect(needs.code, args.join(" ")).toBe(2);
      expect(needs.stderr).toContain(
        `${s.userFile}: profiles.prod.apiKey (profile prod, chosen by --profile): the environment variable CPCTL_PROD_API_KEY is not set`,
      );
    }
  });
});

describe("cpctl config use PROFILE", () => {
  test("sets the user file's default, says so, and config show says what chose the profile", async () => {
    const s = sandbox();
    s.user("# mine\nprofiles:\n  prod:\n    baseUrl: https://cp.example.com\n");
    const r = await run(s, ["config", "use", "prod"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`the default profile is now prod (defaultProfile in ${s.userFile})\n`);
    const text = readFileSync(s.userFile, "utf8");
    expect(text).toContain("# mine");
    expect(parseYaml(text)).toMatchObject({ defaultProfile: "prod", profiles: { prod: {} } });

    const shown = await run(s, ["config", "show"]);
    expect(shown.stdout.split("\n")[0]).toBe(`profile\tprod\tdefaultProfile in the user file ${s.userFile}`);
    const again = await run(s, ["config", "use", "prod", "-o", "json"]);
    expect(JSON.parse(again.stdout)).toMatchObject({ default_profile: "prod", changed: false });
    expect((await run(s, ["config", "use", "local"])).code).toBe(0);
    expect(parseYaml(readFileSync(s.userFile, "utf8")).defaultProfile).toBe("local");
  });

  test("says what wins over it: CPCTL_PROFILE in this shell, a project file's defaultProfile", async () => {
    const s = sandbox();
    s.user("profiles:\n  prod:\n    baseUrl: https://cp.example.com\n");
    s.project(".cpctlrc.yaml", "defaultProfile: local\n");
    const r = await run(s, ["config", "use", "prod"], { CPCTL_PROFILE: "local" });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      "warning: CPCTL_PROFILE=local (set in this shell; `unset CPCTL_PROFILE` to use the default) wins over it",
    );
    expect(r.stderr).toContain("warning: the project file's defaultProfile local");
    const shown = await run(s, ["config", "show"], { CPCTL_PROFILE: "local" });
    expect(shown.stdout.split("\n")[0]).toBe("profile\tlocal\tenvironment variable CPCTL_PROFILE");
  });

  test("creates the user file (readable by you only) when there is none", async () => {
    const s = sandbox();
    const r = await run(s, ["config", "use", "local"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("(defaultProfile in");
    expect(r.stderr).toContain("created, mode 0600");
    expect(parseYaml(readFileSync(s.userFile, "utf8"))).toEqual({ defaultProfile: "local" });
    expect(statSync(s.userFile).mode & 0o777).toBe(0o600);
  });

  test("an unknown profile is refused, naming the known ones; nothing is written", async () => {
    const s = sandbox();
    const r = await run(s, ["config", "use", "prdo"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown profile 'prdo'; known profiles: local");
    expect(r.stderr).toContain("cpctl config set baseUrl URL --profile prdo");
  });
});

describe("an error about a missing setting says which profile was chosen and why", () => {
  test("no address: the profile of CPCTL_PROFILE, or why there is none", async () => {
    const s = sandbox();
    s.user("profiles:\n  team:\n    tenantId: 3f2b0c1e-7d4a-4b8e-9a61-0c2d3e4f5a6b\n");
    const none = await run(s, ["deploy", "list"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no control plane address");
    expect(none.stderr).toContain("No profile in use: no --profile, CPCTL_PROFILE or defaultProfile");
    const team = await run(s, ["deploy", "list"], { CPCTL_PROFILE: "team" });
    expect(team.stderr).toContain("Profile team, chosen by environment variable CPCTL_PROFILE;");
    await run(s, ["config", "use", "team"]);
    const byDefault = await run(s, ["deploy", "list"]);
    expect(byDefault.stderr).toContain(
      `Profile team, chosen by defaultProfile in the user file ${s.userFile};`,
    );
  });

  test("no credentials: the server's refusal says the profile too", async () => {
    const em = await startTestEmulator();
    const s = sandbox();
    s.user(`profiles:\n  bare:\n    baseUrl: ${em.url}\n`);
    const r = await run(s, ["deploy", "list", "--profile", "bare"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("no credentials were sent");
    expect(r.stderr).toContain("Profile bare, chosen by --profile;");
  });
});
