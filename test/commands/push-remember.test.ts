// A directory remembers its deployment (issue 36, point 2): after a push from a terminal,
// `deploy push` offers to write `deployment: NAME` into the directory's project file, and reads
// it when --name is absent, in CI too, saying where the name came from. cpctl's own project
// files never go into the tarball, so remembering changes nothing that is pushed.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { cliEnv, freshDir, instantClock, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

function project(files: Record<string, string> = {}, root = freshDir("remember")): string {
  const all = {
    "agent.json": '{"graphs":{"agent":"./agent.py:graph"}}',
    "agent.py": "graph = None\n",
    ...files,
  };
  mkdirSync(root, { recursive: true });
  for (const [path, content] of Object.entries(all)) writeFileSync(join(root, path), content);
  return root;
}

function push(em: TestEmulator, args: string[], extra: Parameters<typeof runCli>[1] = {}) {
  return runCli(["deploy", "push", ...args, "--interval", "1s"], {
    clock: instantClock(Date.now(), (ms) => em.advance(ms)),
    ...extra,
    env: cliEnv(em, { NO_COLOR: "1", ...(extra.env as Record<string, string>) }),
  });
}

const read = (path: string) => readFileSync(path, "utf8");

describe("deploy push remembers the directory's deployment", () => {
  it("on a terminal: offers (default yes) to write .cpctlrc.yaml; the next push, in CI with no --name, uses it and has nothing to push", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    const dir = project();
    const first = await push(em, ["--name", "weather"], { cwd: dir, tty: true, stdin: "\n" });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("Remember deployment weather for . in ./.cpctlrc.yaml? (Y/n)");
    expect(first.stderr).toContain(
      "created ./.cpctlrc.yaml: deployment: weather (deploy push in . reads it when --name is absent)",
    );
    expect(read(join(dir, ".cpctlrc.yaml"))).toBe("deployment: weather\n");

    const again = await push(em, ["-o", "json"], { cwd: dir, env: { CI: "true" } });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("deployment weather (from ./.cpctlrc.yaml)");
    // The file is not packed: the tarball is the one the active revision was built from.
    expect(JSON.parse(again.stdout)).toMatchObject({
      result: "unchanged",
      created: false,
      deployment: { name: "weather" },
    });
    expect(again.stderr).not.toContain("Remember");
  });

  it("writes into the project file the directory has, keeping its comments and keys", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    const yaml = "# the team's settings\nprofiles:\n  local:\n    confirm: false # no questions\n";
    const dir = project({ ".cpctlrc.yaml": yaml });
    const r = await push(em, [dir, "--name", "weather"], { tty: true, stdin: "y\n" });
    expect(r.code, r.stderr).toBe(0);
    expect(read(join(dir, ".cpctlrc.yaml"))).toBe(`deployment: weather\n${yaml}`);

    const json = project({ ".cpctlrc.json": '{\n    "defaultProfile": "local"\n}\n' });
    const j = await push(em, [json, "--name", "forecast"], { tty: true, stdin: "y\n" });
    expect(j.code, j.stderr).toBe(0);
    expect(read(join(json, ".cpctlrc.json"))).toBe(
      '{\n    "deployment": "forecast",\n    "defaultProfile": "local"\n}\n',
    );
  });

  it("no writes nothing; CI, --no-input, a pipe, --yes and --dry-run never ask", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    const dir = project();
    const no = await push(em, [dir, "--name", "weather"], { tty: true, stdin: "n\n" });
    expect(no.code, no.stderr).toBe(0);
    expect(no.stderr).toContain("Remember deployment weather");
    for (const [args, extra] of [
      [[], { env: { CI: "true" } }],
      [["--no-input"], { tty: true }],
      [[], {}],
      [["--yes"], { tty: true }],
      [["--dry-run"], { tty: true }],
    ] as const) {
      const r = await push(em, [dir, "--name", "weather", ...args], extra);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain("Remember deployment");
    }
    expect(existsSync(join(dir, ".cpctlrc.yaml"))).toBe(false);
  });

  it("--preview N with a remembered name ships to NAME-pr-N", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    const dir = project({ ".cpctlrc.yaml": "deployment: weather\n" });
    const r = await push(em, [dir, "--preview", "3", "-o", "json"], { env: { CI: "true" } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/deployment weather \(from .*\.cpctlrc\.yaml\)/);
    expect(JSON.parse(r.stdout)).toMatchObject({ deployment: { name: "weather-pr-3" }, preview_number: 3 });
  });

  it("the dry run lists cpctl's project files as left out, and the name's source", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    const dir = project({
      ".cpctlrc.yaml": "deployment: weather\n",
      "cpctl.config.mjs": "export default {}\n",
    });
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "sub", ".cpctlrc.yaml"), "# a file of the project's own, deeper down\n");
    const r = await push(em, ["--dry-run", "-o", "json"], { cwd: dir, env: { CI: "true" } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("deployment weather (from ./.cpctlrc.yaml)");
    const shown = JSON.parse(r.stdout);
    expect(shown.name).toBe("weather");
    expect(shown.left_out.always).toEqual([".cpctlrc.yaml", "cpctl.config.mjs"]);
    expect(shown.files).toEqual(["agent.json", "agent.py", "sub/.cpctlrc.yaml"]);
  });

  it("says why it does not offer: a package.json's field, or a project file above that a new one would hide", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    const pkg = project({ "package.json": '{"name":"agent","cpctl":{"defaultProfile":"local"}}\n' });
    const r = await push(em, [pkg, "--name", "weather"], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("is packed with the project");
    expect(r.stderr).not.toContain("Remember deployment");

    const parent = freshDir("remember-parent");
    writeFileSync(join(parent, ".cpctlrc.yaml"), "defaultProfile: local\n");
    const below = project({}, join(parent, "agent"));
    const b = await push(em, ["--name", "forecast"], { cwd: below, tty: true });
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).toContain(
      "not offering to remember deployment forecast for .: a project file there would hide ../.cpctlrc.yaml",
    );
    expect(existsSync(join(below, ".cpctlrc.yaml"))).toBe(false);
  });

  it("a project file it cannot read does not stop a push that names its deployment, only the offer", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    const dir = project({ ".cpctlrc.yaml": "profiles: [\n" });
    const r = await push(em, [dir, "--name", "weather"], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /not offering to remember the deployment: .*\.cpctlrc\.yaml: cannot read this config file/,
    );
    const nameless = await push(em, [dir], { env: { CI: "true" } });
    expect(nameless.code).toBe(2);
    expect(nameless.stderr).toContain(".cpctlrc.yaml: cannot read this config file");
  });

  it("without --name or a remembered name off a terminal: exit 2 naming both ways", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    const r = await push(em, [project()], { env: { CI: "true" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--name is required here");
    expect(r.stderr).toContain("deployment: NAME in its .cpctlrc.yaml");
  });
});

describe("the deployment key of a config file", () => {
  it("config show and config get name the working directory's, with its file", async () => {
    const cwd = project({ ".cpctlrc.yaml": "deployment: weather\n" });
    const shown = await runCli(["config", "show", "-o", "json"], { cwd });
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).deployment).toEqual({
      value: "weather",
      source: `deployment in ${join(cwd, ".cpctlrc.yaml")}`,
    });
    expect((await runCli(["config", "get", "deployment"], { cwd })).stdout).toBe("weather\n");
  });

  it("is refused in the user file, and when it is no name", async () => {
    const home = freshDir("remember-home");
    mkdirSync(join(home, ".config", "cpctl"), { recursive: true });
    writeFileSync(join(home, ".config", "cpctl", "config.yaml"), "deployment: weather\n");
    const user = await runCli(["config", "show"], { homeDir: home });
    expect(user.code).toBe(2);
    expect(user.stderr).toContain("deployment: a deployment belongs to a project's own file");

    const cwd = project({ ".cpctlrc.yaml": "deployment: 7\n" });
    const number = await runCli(["config", "show"], { cwd });
    expect(number.code).toBe(2);
    expect(number.stderr).toContain("deployment: must be a deployment name, not a number");
  });
});
