// Flag parsing alone, through the program's own parsers and argv pre-parsing: no server, no
// context, nothing run (program.ts parseOnly, as gh's runF). A table of command lines and what
// each parses to.
import { describe, expect, it } from "vitest";
import { commandWords } from "../../src/argv.js";
import { GLOBAL_VALUE_OPTIONS } from "../../src/global-options.js";
import { commandTree, parseOnly } from "../../src/program.js";

const MINUTE = 60_000;

describe("what a command line parses to", () => {
  it.each([
    [
      "patch: repeatable flags collect, typed numbers, the wait defaults",
      [
        "deploy",
        "patch",
        "svc",
        "--cpu",
        "2",
        "--secret",
        "A=1",
        "--secret",
        "B",
        "--unset-secret",
        "C",
        "--replace-secrets",
      ],
      {
        cpu: 2,
        secret: ["A=1", "B"],
        unsetSecret: ["C"],
        replaceSecrets: true,
        timeout: 30 * MINUTE,
        interval: 3000,
      },
    ],
    [
      "list: an enum in another case, a bounded integer",
      ["deploy", "list", "--status", "ready", "--limit", "5"],
      { status: "READY", limit: 5 },
    ],
    [
      "wait: durations in any unit",
      ["deploy", "wait", "svc", "--timeout", "15m", "--interval", "500ms"],
      { timeout: 15 * MINUTE, interval: 500 },
    ],
    [
      "logs: --since as a duration, --level in any case",
      ["deploy", "logs", "svc", "--since", "15m", "--level", "warning", "--build"],
      { since: { ago: 15 * MINUTE }, level: "WARNING", build: true },
    ],
    [
      "create: a value that looks like a global option is the option's value",
      ["deploy", "create", "--name", "-V", "--source", "INTERNAL_CONTAINER"],
      { name: "-V", source: "internal_container" },
    ],
    [
      "rollback: --to a revision, --dry-run",
      ["deploy", "rollback", "svc", "--to", "0b7f3c1e-1111-4222-8333-444455556666", "--dry-run"],
      { to: "0b7f3c1e-1111-4222-8333-444455556666", dryRun: true },
    ],
  ])("%s", async (_title, argv, expected) => {
    const parsed = await parseOnly(argv);
    expect(parsed.options).toMatchObject(expected);
  });

  it("global flags anywhere on the line, -o in any case", async () => {
    const parsed = await parseOnly(["deploy", "get", "svc", "-o", "JSON", "--profile", "prod", "--yes"]);
    expect(parsed.args).toEqual(["svc"]);
    expect(parsed.flags).toMatchObject({ output: "json", profile: "prod", yes: true });
  });

  it("a value its parser refuses is a usage error, with nothing run", async () => {
    await expect(parseOnly(["deploy", "list", "--limit", "500"])).rejects.toMatchObject({
      code: "commander.invalidArgument",
    });
    await expect(parseOnly(["deploy", "rollback", "svc", "--to", "not-a-uuid"])).rejects.toMatchObject({
      code: "commander.invalidArgument",
    });
  });
});

describe("argv pre-parsing knows every global option that takes a value", () => {
  it("from the program's own option definitions", async () => {
    const tree = await commandTree();
    const takesValue = tree.options
      .filter((option) => option.required || option.optional)
      .flatMap((option) => [option.short, option.long])
      .filter((flag) => flag !== undefined);
    expect([...GLOBAL_VALUE_OPTIONS.keys()].sort()).toEqual(takesValue.sort());
    expect(GLOBAL_VALUE_OPTIONS.get("-o")).toBe("--output");
  });

  // Before the command, a global option's value is not the command's name: the command found
  // is the one run (parseOnly throws when none ran).
  it.each([
    ["--profile", "prod", { profile: "prod" }],
    ["--base-url", "http://127.0.0.1:8124", { baseUrl: "http://127.0.0.1:8124" }],
    [
      "--tenant-id",
      "0b7f3c1e-1111-4222-8333-444455556666",
      { tenantId: "0b7f3c1e-1111-4222-8333-444455556666" },
    ],
    ["--api-key-file", "key.txt", { apiKeyFile: "key.txt" }],
    ["-o", "yaml", { output: "yaml" }],
    ["--output", "ndjson", { output: "ndjson" }],
    ["--request-timeout", "5s", { requestTimeout: "5s" }],
  ])("%s %s deploy list", async (flag, value, flags) => {
    expect(commandWords([flag, value, "deploy", "list"])).toEqual(["deploy", "list"]);
    const parsed = await parseOnly([flag, value, "deploy", "list"]);
    expect(parsed.flags).toMatchObject(flags);
  });
});
