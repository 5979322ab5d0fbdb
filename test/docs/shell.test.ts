// The examples test's own machinery: the shell subset it reads, where examples are found, and
// that a broken example fails (a runner that passes everything would prove nothing).
import { describe, expect, test } from "vitest";
import { examplesSection, markdownExamples } from "./collect.js";
import { runExample } from "./run-example.js";
import { literal, parseShell, ShellSyntaxError } from "./shell.js";

describe("parseShell", () => {
  test("lists, pipelines, assignments, redirections, quotes and substitutions", () => {
    const [first, second] = parseShell(
      "A=1 cpctl deploy diff -f 'a b.yaml' --exit-code >/dev/null 2>&1 || echo drifted # note\n" +
        'x=$(cpctl config path -o id | head -1) && cpctl get "$x" \\\n  --json &',
    );
    expect(first!.first[0]!.assignments.map((a) => a.name)).toEqual(["A"]);
    expect(first!.first[0]!.words.map(literal)).toEqual([
      "cpctl",
      "deploy",
      "diff",
      "-f",
      "a b.yaml",
      "--exit-code",
    ]);
    expect(first!.first[0]!.redirects.map((r) => r.op)).toEqual([">", "2>&"]);
    expect(first!.rest.map((r) => r.op)).toEqual(["||"]);
    expect(second!.background).toBe(true);
    const subst = second!.first[0]!.assignments[0]!.value.parts[0]!;
    expect(subst.kind).toBe("subst");
    expect(second!.rest[0]!.pipeline[0]!.words.map(literal)).toEqual(["cpctl", "get", null, "--json"]);
  });

  test("what it does not read is an error, not a guess", () => {
    expect(() => parseShell("cpctl 'open")).toThrow(ShellSyntaxError);
    expect(() => parseShell("echo `date`")).toThrow(ShellSyntaxError);
    expect(() => parseShell("echo $((1 + 2))")).toThrow(ShellSyntaxError);
  });
});

describe("collecting", () => {
  test("the help's Examples section, continuation lines joined", () => {
    const help = "Usage: x\n\nExamples:\n  cpctl a \\\n      --b\n  cpctl c\n\nGlobal options...\n";
    expect(examplesSection(help)).toEqual(["cpctl a \\\n    --b", "cpctl c"]);
  });

  test("fenced blocks with cpctl in them, their markers, console and CI lines", () => {
    const md = [
      "```sh",
      "cpctl deploy list",
      "```",
      "<!-- not-run: needs a hosted control plane -->",
      "```sh",
      "cpctl deploy get x",
      "```",
      "<!-- exit: 2 -->",
      "```console",
      "$ cpctl deploy create",
      "error: ...",
      "```",
      "```yaml",
      "      - run: npx --no-install cpctl deploy diff -f deploy.yaml",
      "```",
      "```sh",
      "npm test",
      "```",
    ].join("\n");
    expect(markdownExamples("x.md", md)).toEqual([
      { where: "x.md:1", script: "cpctl deploy list" },
      { where: "x.md:5", script: "cpctl deploy get x", notRun: "needs a hosted control plane" },
      { where: "x.md:9", script: "cpctl deploy create", exit: 2 },
      { where: "x.md:13", script: "npx --no-install cpctl deploy diff -f deploy.yaml" },
    ]);
  });
});

describe("running", () => {
  test("an example that fails, or names what the fixture lacks, is reported", async () => {
    expect(await runExample({ where: "t", script: "cpctl deploy get no-such-agent" })).toEqual([
      expect.stringMatching(/^cpctl deploy get no-such-agent: exit 4, expected 0/),
    ]);
    expect(await runExample({ where: "t", script: "cpctl deploy list --bogus" })).toEqual([
      expect.stringMatching(/exit 2, expected 0/),
    ]);
    expect(await runExample({ where: "t", script: "cpctl deploy get $NOPE" })).toEqual([
      expect.stringContaining("the fixture has no $NOPE"),
    ]);
  });

  test("a command before || may exit 1; the fixtures exist; a substitution's output is used", async () => {
    const script =
      "cpctl deploy diff -f deploy.yaml --set source_revision_config.repo_ref=v2 --exit-code || echo drifted\n" +
      'cpctl deploy get "$(cpctl deploy list -o id --name my-api)"';
    expect(await runExample({ where: "t", script })).toEqual([]);
  });

  test("a not-run example is parsed: a wrong flag still fails it", async () => {
    expect(await runExample({ where: "t", script: "cpctl deploy get x --bogus", notRun: "r" })).toEqual([
      expect.stringContaining("does not parse"),
    ]);
    expect(await runExample({ where: "t", script: "cpctl deploy get $X -o json", notRun: "r" })).toEqual([]);
  });
});
