// Help: `cpctl --help` lists every command under its group without loading any command
// module; every command's --help has its one-line summary, every flag with its default and
// allowed values, and an example.
import { type CommandUnknownOpts, Help } from "@commander-js/extra-typings";
import { afterEach, describe, expect, test, vi } from "vitest";
import { COMMANDS } from "../../src/commands/registry.js";
import { helpHeading } from "../../src/help.js";
import { commandTree } from "../../src/program.js";
import { runCli } from "../helpers/run-cli.js";

const squash = (text: string) => text.replace(/\s+/g, " ").trim();

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
  const helper = new Help();

  for (const entry of COMMANDS) {
    const name = entry.path.join(" ");
    test(`cpctl ${name} --help`, async () => {
      const result = await runCli([...entry.path, "--help"]);
      expect(result.code, result.stderr).toBe(0);
      const help = result.stdout;
      // Usage and the one-line summary.
      expect(help.startsWith(`Usage: cpctl ${name}`)).toBe(true);
      expect(help.split("\n")[2]).toBe(entry.summary);
      // Every flag, with its allowed values and its default.
      const command = find(entry.path);
      for (const option of command.options.filter((o) => !o.hidden)) {
        expect(help, option.flags).toContain(option.flags);
        expect(squash(help), option.flags).toContain(squash(helper.optionDescription(option)));
        if (option.argChoices) expect(help, option.flags).toContain("choices:");
        if (option.defaultValue !== undefined && (option.required || option.optional)) {
          expect(squash(helper.optionDescription(option)), option.flags).toContain("default:");
        }
      }
      for (const argument of command.registeredArguments) expect(help).toContain(argument.name());
      // At least one example of this very command.
      expect(help).toMatch(/\nExamples?:\n/);
      expect(help).toContain(`  cpctl ${name}`);
      // And a pointer to the global options.
      expect(help).toContain("Global options");
    });
  }
});
