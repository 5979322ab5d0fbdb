// The README read top to bottom and run in order, in one shell, against one emulator: the
// Quick start creates `my-agent`, every common task works on what the ones before it left
// (a failed revision included, made with `cpctl emulator fail-next`), and the CI recipe's
// `deploy.yaml` (written from the README's own block) diffs and applies to that same
// deployment. examples.test.ts runs each block alone against fixtures; this runs the story.
//
// What the reader brings: an exported OPENAI_API_KEY (the README asks for it), this
// repository (the README runs at its root: `deploy push` ships examples/agent from it), and
// for `deploy push --image` an image: docker (a
// stand-in, test/helpers/engine-standin.ts) holding my-app:latest, and its `docker save`,
// image.tar. The emulator stands in for 127.0.0.1:8124 and for
// every other address (CPCTL_BASE_URL is pinned to it); the key is whatever the commands
// would send: the `local` profile's, after `export CPCTL_PROFILE=local`.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startTestEmulator } from "../helpers/emulator.js";
import { makeStandIns } from "../helpers/engine-standin.js";
import { dockerArchive, makeTestImage } from "../helpers/images.js";
import { freshDir, runCli } from "../helpers/run-cli.js";
import { markdownExamples, ROOT } from "./collect.js";
import { ExampleProblem, ExampleShell, type Fixture, type Run } from "./run-example.js";
import { parseShell } from "./shell.js";

const README = readFileSync(join(ROOT, "README.md"), "utf8");

/**
 * What the README says a push's `-o json | jq -r .result` prints: the comment after it, e.g.
 * `... -o json | jq -r .result   # unchanged`.
 */
function claimedPushResult(): string {
  const line = /^cpctl deploy push .* -o json \| jq -r \.result\s+# (\w+)/m.exec(README);
  if (!line)
    throw new Error("the README has no `cpctl deploy push ... -o json | jq -r .result   # RESULT` line");
  return line[1]!;
}

/** The README's deploy.yaml, as its block shows it. */
function deployYaml(): string {
  const block = /^```yaml\n(# deploy\.yaml\n[\s\S]*?)^```$/m.exec(README);
  if (!block) throw new Error("the README has no ```yaml block starting with '# deploy.yaml'");
  return block[1]!;
}

describe("the README, top to bottom, against one emulator", async () => {
  const emulator = await startTestEmulator();
  afterAll(() => emulator.close());
  const cwd = freshDir("readme");
  cpSync(join(ROOT, "examples"), join(cwd, "examples"), { recursive: true });
  writeFileSync(join(cwd, "deploy.yaml"), deployYaml());
  const image = makeTestImage("readme");
  writeFileSync(join(cwd, "image.tar"), dockerArchive(image));
  const docker = makeStandIns(image);
  const readerEnv = {
    OPENAI_API_KEY: "sk-readme",
    ...docker.env,
    PATH: `${docker.dir}${delimiter}${process.env.PATH ?? ""}`,
  };
  const fixture: Fixture = { emulator, cwd, home: freshDir("readme-home"), env: readerEnv };
  // Every `deploy push ... -o json` the story runs, with what it printed.
  const jsonPushes: Run[] = [];
  const shell = new ExampleShell(fixture, { CPCTL_BASE_URL: emulator.url }, (argv, run) => {
    if (argv[0] === "deploy" && argv[1] === "push" && argv.join(" ").includes("-o json"))
      jsonPushes.push(run);
  });
  const env = { CPCTL_PROFILE: "local", CPCTL_BASE_URL: emulator.url, OPENAI_API_KEY: "sk-readme" };
  const cli = (args: string[]) => runCli(args, { env, cwd, homeDir: fixture.home });

  const examples = markdownExamples("README.md", README);
  test("covers the Quick start, the common tasks, a failed revision and the CI recipe", () => {
    const cpctlLines = examples.map((example) => example.script).join("\n");
    for (const command of [
      "cpctl deploy create --name my-agent",
      "cpctl deploy push examples/agent",
      "cpctl deploy push --image",
      "cpctl emulator fail-next",
      "cpctl deploy rollback my-agent --wait",
      "cpctl deploy diff -f deploy.yaml",
      "cpctl deploy apply -f deploy.yaml",
    ])
      expect(cpctlLines).toContain(command);
    expect(examples.some((example) => example.exit === 5)).toBe(true);
  });

  // In order: each block is a step of the story, run in the same shell (variables carry over).
  test.sequential.each(
    examples.map((example) => [`${example.where}: ${example.script.split("\n")[0]}`, example]),
  )("%s", async (_name, example) => {
    if (example.notRun !== undefined) return;
    try {
      await shell.run(parseShell(example.script), example.exit);
    } catch (error) {
      if (error instanceof ExampleProblem) expect.fail(error.message);
      throw error;
    }
  });

  test.sequential("the push piped to jq prints what the README's comment says", () => {
    expect(jsonPushes).toHaveLength(1);
    expect(JSON.parse(jsonPushes[0]!.stdout).result).toBe(claimedPushResult());
  });

  test.sequential("ends where the story says: my-agent matches deploy.yaml, its failed revision kept", async () => {
    const diff = await cli(["deploy", "diff", "-f", "deploy.yaml", "--exit-code"]);
    expect(diff.code, diff.stdout + diff.stderr).toBe(0);
    const revisions = JSON.parse(
      (await cli(["deploy", "revisions", "my-agent", "--all", "-o", "json"])).stdout,
    );
    expect(revisions.map((r: { status: string }) => r.status)).toContain("BUILD_FAILED");
    const agent = JSON.parse((await cli(["deploy", "get", "my-agent", "-o", "json"])).stdout);
    expect(agent).toMatchObject({ status: "READY", source_config: { build_on_push: false } });
    expect(agent.secrets.map((s: { name: string }) => s.name)).toEqual(["OPENAI_API_KEY"]);
  });
});
