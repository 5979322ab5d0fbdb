// Commands at any depth (issue 34, point 6): the registry nests every command under the one its
// path's first words name, so a three-word command needs nothing but its registry entry.
import { Command } from "@commander-js/extra-typings";
import { describe, expect, it } from "vitest";
import { runCli } from "../test/helpers/run-cli.js";
import { COMMANDS } from "./commands/registry.js";
import { helpHeading } from "./help.js";
import { commandNester, parseOnly } from "./program.js";

describe("commands at any depth", () => {
  it("nests by the full path, a command that is also a parent included", () => {
    const root = new Command("cpctl");
    const nest = commandNester(root);
    nest(["a"], new Command("a"));
    nest(["a", "b"], new Command("b"));
    nest(["a", "b", "c"], new Command("c"));
    nest(["a", "d"], new Command("d"));
    const a = root.commands[0]!;
    expect(a.commands.map((c) => c.name())).toEqual(["b", "d"]);
    expect(a.commands[0]!.commands.map((c) => c.name())).toEqual(["c"]);
    expect(() => nest(["x", "y"], new Command("y"))).toThrow("registry: x y comes before its parent x");
  });

  it("every registry entry has a heading, from its top-level group or command", () => {
    for (const entry of COMMANDS) expect(() => helpHeading(entry), entry.path.join(" ")).not.toThrow();
  });

  it("what users of other tools type is pointed to what cpctl calls it (issue 36)", async () => {
    for (const [argv, expected] of [
      [["version"], "unknown command 'version'; cpctl calls it: cpctl --version"],
      [["deploy", "restart", "x"], "unknown command 'deploy restart'; cpctl calls it: cpctl deploy redeploy"],
      [["deploy", "history", "x"], "cpctl calls it: cpctl deploy revisions <deployment>"],
      [
        ["deploy", "scale", "x"],
        "cpctl calls it: cpctl deploy patch <deployment> --min-scale N --max-scale N",
      ],
      [["deploy", "logs", "x", "--tail", "3"], "unknown option '--tail'; cpctl deploy logs has --limit N"],
    ] as const) {
      const r = await runCli([...argv]);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr).toContain(expected);
    }
  });

  it("deploy rm is deploy delete, and deploy logs -f is --follow", async () => {
    const rm = await parseOnly(["deploy", "rm", "my-agent", "--yes"]);
    // <deployment...>: one or several.
    expect(rm.args).toEqual([["my-agent"]]);
    const follow = await parseOnly(["deploy", "logs", "my-agent", "-f"]);
    expect(follow.options.follow).toBe(true);
  });

  it("a mistyped word is answered at the level it was typed at", async () => {
    for (const [argv, expected] of [
      [["deploi"], "unknown command 'deploi'; did you mean 'deploy'?"],
      [["deploy", "creat"], "unknown command 'deploy creat'; did you mean 'deploy create'?"],
      [["emulator", "cloc"], "unknown command 'emulator cloc'; did you mean 'emulator clock'?"],
      [["integrations", "repo"], "unknown command 'integrations repo'; did you mean 'integrations repos'?"],
    ] as const) {
      const r = await runCli([...argv]);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr).toContain(expected);
    }
  });
});
