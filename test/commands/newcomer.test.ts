// What a newcomer trips on: a mistyped command, `cpctl help CMD`, flag values refused in plain
// words and all at once, a directory or an empty name where a file or a deployment belongs,
// enum values in another case, and a base URL that ends in the API version.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { cliEnv, freshDir, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

describe("mistyped commands", () => {
  it("suggest the nearest command, at the level it was typed", async () => {
    const top = await runCli(["deploi"]);
    expect(top.code).toBe(2);
    expect(top.stderr).toContain("unknown command 'deploi'; did you mean 'deploy'?");
    const sub = await runCli(["deploy", "revisons", "x"]);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain("unknown command 'deploy revisons'; did you mean 'deploy revisions'?");
  });

  it("`cpctl help CMD` is `cpctl CMD --help`", async () => {
    for (const command of [["deploy", "list"], ["deploy"], []]) {
      const help = await runCli(["help", ...command]);
      expect(help.code, command.join(" ")).toBe(0);
      expect(help.stdout.split("\n")[0]).toContain(["cpctl", ...command].join(" "));
      expect(help.stdout, command.join(" ")).toBe((await runCli([...command, "--help"])).stdout);
    }
  });
});

describe("flag values", () => {
  it("are refused in plain words, every bad one at once", async () => {
    const r = await runCli([
      "deploy",
      "create",
      "--name",
      "x",
      "--memory-mb",
      "abc",
      "--cpu",
      "lots",
      "-o",
      "xml",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--memory-mb 'abc': expected a whole number\n");
    expect(r.stderr).toContain("--cpu 'lots': expected a number, e.g. 0.5");
    expect(r.stderr).toContain("--output 'xml': expected one of table, json, yaml, ndjson, id");
    expect(r.stderr).not.toContain("9007199254740991");
    expect(r.stderr).not.toContain("is invalid");
  });

  it("enum values in another case are taken where that leaves one choice", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_container", "svc");
    const r = await runCli(["deploy", "list", "--status", "ready", "-o", "JSON"], { env: cliEnv(em) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((d: { name: string }) => d.name)).toEqual(["svc"]);
    const awaiting = await runCli(["deploy", "list", "--status", "awaiting_database", "-o", "json"], {
      env: cliEnv(em),
    });
    expect(awaiting.code, awaiting.stderr).toBe(0);
    expect(JSON.parse(awaiting.stdout)).toEqual([]);
  });
});

describe("what is named is checked before anything else", () => {
  it("a directory given as -f, and an empty deployment name, are usage errors", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("dir");
    const file = await runCli(["deploy", "create", "-f", dir], { env: cliEnv(em) });
    expect(file.code).toBe(2);
    expect(file.stderr).toContain(`-f ${dir}: cannot read it (it is a directory, not a file)`);
    const empty = await runCli(["deploy", "get", ""], { env: cliEnv(em) });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("the deployment argument is empty");
    expect(em.emulator.stats().total).toBe(0);
  });

  it("a base URL that ends in /v2 gets a hint", async () => {
    const em = await startTestEmulator();
    const r = await runCli(["deploy", "list"], { env: cliEnv(em, { CPCTL_BASE_URL: `${em.url}/v2` }) });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("GET /v2/v2/deployments: Not Found (HTTP 404)");
    expect(r.stderr).toContain(
      `ends in /v2, and cpctl adds the version to every path itself: give the address without it (${em.url})`,
    );
  });
});

describe("a YAML file with an unclosed bracket", () => {
  it.each([
    [
      "name: my-agent\nsecrets: [a, b\nsource: gitrepo\n",
      "stdin:2: not valid YAML (column 10: a [ that is never closed with ])",
    ],
    [
      "name: x\nsource_config:\n  labels: {team: ml\n",
      "stdin:3: not valid YAML (column 11: a { that is never closed with })",
    ],
    ["name: [unclosed\n", "stdin:1: not valid YAML (column 7: a [ that is never closed with ])"],
  ])("is reported where the bracket opens, not as indentation: %j", async (file, message) => {
    const r = await runCli(["deploy", "create", "-f", "-", "--dry-run"], { stdin: file });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: ${message}`);
    expect(r.stderr).not.toContain("indentation");
  });
});
