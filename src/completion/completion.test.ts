// The generators on a small synthetic program: what is read from commander, and that
// descriptions full of shell metacharacters cannot break any of the scripts.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Argument, Command, Option } from "@commander-js/extra-typings";
import { describe, expect, test } from "vitest";
import { completionScript, SHELLS } from "./index.js";
import { treeFromProgram } from "./tree.js";
import { completes } from "./values.js";

const NASTY = `it's "quoted" [bracketed] a:b \\back $HOME \`tick\` (paren) 100%`;

function program(): Command {
  const root = new Command("cpctl")
    .option("-o, --output <format>", "output format")
    .option("--profile <name>", NASTY)
    .version("1.0.0", "-V, --version");
  const group = new Command("things").description(NASTY);
  group.addCommand(
    new Command("make")
      .description(`${NASTY}\nsecond line`)
      .addOption(new Option("--kind <kind>", NASTY).choices(["a", "b'c", "d e"]))
      .option("-f, --file <file>", "a file")
      .option("--set <path=value>", "not a file")
      .option("--flag", NASTY)
      .addOption(new Option("--secret-thing <x>", "hidden").hideHelp())
      .addArgument(new Argument("<mode>").choices(["fast", "slow"]))
      .argument("[source]", "a directory"),
  );
  // Values a parser of its own checks (case aside, say): completed all the same.
  group.addCommand(
    new Command("tune")
      .addOption(
        completes(
          new Option("--level <level>", "a level").argParser((v) => v.toUpperCase()),
          ["LOW", "HIGH"],
        ),
      )
      .addArgument(completes(new Argument("<key>", "a key"), ["alpha", "beta"])),
  );
  root.addCommand(group);
  root.addCommand(new Command("solo").description("alone"));
  return root;
}

describe("treeFromProgram", () => {
  const tree = treeFromProgram(program());
  const make = tree.children[0]!.children[0]!;

  test("reads the values a flag or an argument completes with, where no choices restrict them", () => {
    const tune = tree.children[0]!.children[1]!;
    expect(tune.flags.find((f) => f.long === "--level")).toMatchObject({
      values: ["LOW", "HIGH"],
      files: false,
    });
    expect(tune.args).toEqual([{ name: "key", values: ["alpha", "beta"], files: false, variadic: false }]);
  });

  test("reads flags, values, files and arguments; leaves hidden flags out", () => {
    expect(tree.children.map((c) => c.name)).toEqual(["things", "solo"]);
    expect(make.path).toEqual(["things", "make"]);
    expect(make.description).toBe(NASTY);
    const byName = Object.fromEntries(make.flags.map((f) => [f.long, f]));
    expect(byName["--kind"]).toMatchObject({ takesValue: true, values: ["a", "b'c", "d e"], files: false });
    expect(byName["--file"]).toMatchObject({ short: "-f", takesValue: true, values: null, files: true });
    expect(byName["--set"]).toMatchObject({ takesValue: true, files: false });
    expect(byName["--flag"]).toMatchObject({ takesValue: false });
    expect(byName["--help"]).toMatchObject({ short: "-h", takesValue: false });
    expect(byName["--secret-thing"]).toBeUndefined();
    expect(make.args).toEqual([
      { name: "mode", values: ["fast", "slow"], files: false, variadic: false },
      { name: "source", values: null, files: true, variadic: false },
    ]);
  });
});

const installed = (shell: string) => spawnSync(shell, ["-c", "exit 0"], { stdio: "ignore" }).status === 0;
/** A test's name says when it is skipped, and why (test/terminal/completion.test.ts says it in the output). */
const needs = (shell: string) => (installed(shell) ? "" : ` (skipped: ${shell} is not installed)`);

describe.each(SHELLS)("the %s script of a program with awkward text", (shell) => {
  const script = completionScript(shell, treeFromProgram(program()));

  test.skipIf(!installed(shell))(`parses${needs(shell)}`, () => {
    const file = join(mkdtempSync(join(tmpdir(), "cpctl-gen-")), `script.${shell}`);
    writeFileSync(file, script);
    const result = spawnSync(shell, ["-n", file], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });
});

test.skipIf(!installed("bash"))(
  `bash still completes values with quotes and spaces in the definitions${needs("bash")}`,
  () => {
    const script = completionScript("bash", treeFromProgram(program()));
    const run = (...words: string[]) => {
      const body = `${script}\nCOMP_WORDS=("$@"); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); _cpctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const result = spawnSync("bash", ["--norc", "-c", body, "bash", ...words], { encoding: "utf8" });
      expect(result.stderr).toBe("");
      return result.stdout.split("\n").filter(Boolean);
    };
    expect(run("cpctl", "things", "make", "--kind", "a")).toEqual(["a"]);
    expect(run("cpctl", "things", "make", "--")).toContain("--profile");
    expect(run("cpctl", "things", "make", "--")).not.toContain("--version");
    expect(run("cpctl", "things", "make", "")).toEqual(["fast", "slow"]);
    expect(run("cpctl", "-")).toContain("--version");
  },
);
