// Help: `cpctl --help` lists every command under its group without loading any command
// module; every command's --help has its one-line summary, a description of every flag and
// argument (a default shown as a user writes it), an example and the pointer to the global
// options. How commander lays flags out is commander's to test.
import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { COMMANDS } from "../../src/commands/registry.js";
import { GLOBAL_OPTIONS_HINT, helpHeading } from "../../src/help.js";
import { commandTree } from "../../src/program.js";
import { runCli } from "../helpers/run-cli.js";
import { plain, python3Available, runOnPty, terminalEnv } from "./helpers/pty.js";

describe("cpctl --help", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  test("lists every command by its full name under its group, in the group order", async () => {
    const result = await runCli(["--help"]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    const headings = ["Deployments:", "Discovery:", "Setup:", "Local control plane:"];
    const at = headings.map((heading) => lines.indexOf(heading));
    for (const index of at) expect(index).toBeGreaterThan(0);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    for (const entry of COMMANDS) {
      const name = entry.path.join(" ");
      const line = lines.findIndex(
        (l) => l.startsWith(`  ${name} `) && l.includes(entry.summary.split(" ")[0]!),
      );
      expect(line, `${name} is listed`).toBeGreaterThan(0);
      // Under its own heading: the nearest heading above it.
      const heading = headings.filter((_, i) => at[i]! < line).at(-1);
      expect(heading, name).toBe(`${helpHeading(entry)}:`);
    }
    expect(result.stdout).not.toContain("help [command]");
    expect(result.stdout).toContain("Environment:");
    expect(result.stdout).toContain("CPCTL_API_KEY");
    expect(result.stdout).toContain("Exit codes:");
  });

  test("loads no command module", async () => {
    const loads = COMMANDS.map((entry) => vi.spyOn(entry as { load: () => unknown }, "load"));
    expect((await runCli(["--help"])).code).toBe(0);
    for (const load of loads) expect(load).not.toHaveBeenCalled();
  });

  test("a group's help lists its subcommands, without commander's `help` entry", async () => {
    const result = await runCli(["deploy", "--help"]);
    expect(result.code).toBe(0);
    for (const entry of COMMANDS.filter((e) => e.path[0] === "deploy"))
      expect(result.stdout).toContain(entry.path[1]);
    expect(result.stdout).not.toContain("help [command]");
  });
});

describe("every command's --help", async () => {
  const tree = await commandTree();
  const find = (path: readonly string[]): CommandUnknownOpts => {
    let command: CommandUnknownOpts = tree;
    for (const name of path) command = command.commands.find((c) => c.name() === name)!;
    return command;
  };

  for (const entry of COMMANDS) {
    const name = entry.path.join(" ");
    test(`cpctl ${name} --help`, async () => {
      const result = await runCli([...entry.path, "--help"]);
      expect(result.code, result.stderr).toBe(0);
      const help = result.stdout;
      // The one-line summary from the registry, under the usage line.
      expect(help.split("\n")[2]).toBe(entry.summary);
      // Every flag and argument is described; a default is shown as a user writes it (30m,
      // 100MiB), never as the milliseconds or bytes it parses to.
      const command = find(entry.path);
      for (const option of command.options.filter((o) => !o.hidden)) {
        expect(option.description, option.flags).not.toBe("");
        if (typeof option.defaultValue === "number") {
          expect(option.defaultValueDescription, option.flags).toMatch(/^\d+(\.\d+)?[a-zA-Z]+$/);
        }
      }
      for (const argument of command.registeredArguments) {
        expect(argument.description, argument.name()).not.toBe("");
      }
      // At least one example of this very command.
      expect(help).toMatch(/\nExamples?:\n/);
      expect(help).toContain(`  cpctl ${name}`);
      // And a pointer to the global options.
      const words = (text: string) => text.trim().replace(/\s+/g, " ");
      expect(words(help).endsWith(words(GLOBAL_OPTIONS_HINT))).toBe(true);
    });
  }
});

describe("help on a narrow terminal", () => {
  beforeEach((t) => {
    if (!python3Available()) t.skip("python3 with its pty module is not installed");
  });
  const runs = [
    ["--help"],
    ["deploy", "create", "--help"],
    ["deploy", "patch", "--help"],
    ["config", "set", "--help"],
    ["emulator", "--help"],
  ];

  test.each([70, 50])(
    "at %i columns every line fits: nothing for the terminal to break mid-word",
    async (columns) => {
      for (const args of runs) {
        const { code, output } = await runOnPty(args, { env: terminalEnv(), columns, rows: 200 }).finished();
        expect(code, plain(output)).toBe(0);
        const lines = plain(output).split("\n");
        for (const line of lines) {
          // Only a word too long for the terminal even under its option (a long URL) may stick
          // out: a shorter one (`source_config.resource_spec.queue_cpu=0.5` at 70 columns) is
          // not left indented past the width.
          if (line.length > columns) {
            expect(line.trim(), `${args.join(" ")}: ${line}`).toMatch(/^\S+( \\)?$/);
            expect(line.trim().length, `${args.join(" ")}: ${line}`).toBeGreaterThan(columns - 6);
          }
        }
        // Descriptions are wrapped, not left for the terminal: the option list is still there.
        expect(lines.some((line) => /^ {2}-/.test(line))).toBe(true);
      }
    },
  );

  test("an option's description goes under it where the column beside it would be too narrow", async () => {
    const { output } = await runOnPty(["--help"], { env: terminalEnv(), columns: 50, rows: 200 }).finished();
    const lines = plain(output).split("\n");
    const at = lines.indexOf("  --request-timeout <duration>");
    expect(at, plain(output)).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^ {6}\S/);
  });
});
