// A cpctl.config.mjs is code: importing it runs it. It runs only in a directory the user
// config trusts (CLI.md); a data file (.cpctlrc.yaml, .json, package.json) works anywhere.
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { type Sandbox, sandbox } from "./fixtures.js";

/** A module that leaves a file behind when it runs, and gives profile `dev` an address. */
function codeConfig(box: Sandbox): { marker: string } {
  const marker = join(box.home, "the-module-ran");
  box.project(
    "cpctl.config.mjs",
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\nexport default { profiles: { dev: { baseUrl: "https://dev.example.com" } } };\n`,
  );
  return { marker };
}

const getBaseUrl = (box: Sandbox) =>
  runCli(["config", "get", "baseUrl", "--profile", "dev"], { homeDir: box.home, cwd: box.cwd });

describe("cpctl.config.mjs", () => {
  it("does not run in a directory the user has not trusted: exit 2, naming the directory and how to trust it", async () => {
    const box = sandbox();
    const { marker } = codeConfig(box);
    const r = await runCli(["deploy", "list", "--profile", "dev", "--base-url", "http://127.0.0.1:9"], {
      homeDir: box.home,
      cwd: box.cwd,
    });
    expect(r.code).toBe(2);
    expect(existsSync(marker)).toBe(false);
    expect(r.stderr).toContain(
      `error: ${join(box.cwd, "cpctl.config.mjs")} is code, and ${box.cwd} is not a directory you have trusted`,
    );
    expect(r.stderr).toContain(`cpctl config set trustedDirectories ${box.cwd}`);
    expect(r.stderr).toContain(`under trustedDirectories: in ${box.userFile}`);
  });

  it("runs once the user trusts the directory with `config set trustedDirectories .`, run from inside it", async () => {
    const box = sandbox();
    const { marker } = codeConfig(box);
    const trust = await runCli(["config", "set", "trustedDirectories", "."], {
      homeDir: box.home,
      cwd: box.cwd,
    });
    expect(trust.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(trust.stderr).toContain(`added ${realpathSync(box.cwd)} to trustedDirectories`);
    const r = await getBaseUrl(box);
    expect(r).toMatchObject({ code: 0, stdout: "https://dev.example.com\n" });
    expect(existsSync(marker)).toBe(true);
  });

  it("a trusted directory covers the directories below it, not the ones beside it", async () => {
    const box = sandbox();
    const parent = join(box.home, "work");
    box.user(`trustedDirectories: [${JSON.stringify(parent)}]\n`);
    codeConfig(box);
    expect((await getBaseUrl(box)).code).toBe(0);
    const beside = sandbox();
    beside.user(`trustedDirectories: [${JSON.stringify(join(beside.home, "work", "proj"))}]\n`);
    const { marker } = codeConfig(beside);
    expect((await getBaseUrl(beside)).code).toBe(2);
    expect(existsSync(marker)).toBe(false);
  });

  it("config path still answers in an untrusted directory, with the reason as a warning", async () => {
    const box = sandbox();
    codeConfig(box);
    const r = await runCli(["config", "path", "-o", "json"], { homeDir: box.home, cwd: box.cwd });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).project.path).toBe(join(box.cwd, "cpctl.config.mjs"));
    expect(r.stderr).toContain("is not a directory you have trusted");
  });

  it("a data file needs no trust", async () => {
    const box = sandbox();
    box.project(
      ".cpctlrc.json",
      JSON.stringify({ profiles: { dev: { baseUrl: "https://dev.example.com" } } }),
    );
    expect(await getBaseUrl(box)).toMatchObject({ code: 0, stdout: "https://dev.example.com\n" });
  });

  it("a trust list that is not a list of absolute paths is refused with the file and key", async () => {
    const box = sandbox();
    box.user("trustedDirectories: [relative/dir]\n");
    const r = await getBaseUrl(box);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${box.userFile}: trustedDirectories[0]: 'relative/dir' is not an absolute directory path`,
    );
  });
});
