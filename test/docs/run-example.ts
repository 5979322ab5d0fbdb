// Runs one documentation example against a fresh in-process emulator with the fixtures it
// names, and returns what went wrong (nothing, when it runs).
//
// - Only cpctl runs: `cpctl ...`, `npx [--flags] cpctl ...`, also inside `$(...)` and `<(...)`
//   of any command. Other commands (curl, jq, mkdir, alias, npm) are not run, except `head`,
//   whose lines a `$(... | head -1)` uses, and `export` and `NAME=VALUE`, which set variables.
// - Every cpctl command must exit 0; one followed by `||` may exit 1 (the example handles it);
//   an `<!-- exit: N -->` block's commands must exit N; `--follow`, which runs until Ctrl-C,
//   is stopped by the test (exit 130). For an `exit: 5` block (a failed revision) the
//   fixture's emulator fails the next revision, as the block before it arranged.
// - The test's emulator stands in for every control plane an example names: CPCTL_BASE_URL
//   and CPCTL_API_KEY always point at it, whatever an example exports. Its key is `dev`, as in
//   the examples, so the seeded integration is 0e7880cf-835f-56f2-9d2c-37d4af5797c9.
// - `cpctl emulator` (its controls apart) runs as a child process (the built bin/cpctl.cjs) in the example's
//   directory, on a free port (`--port 0` is added), and is stopped with SIGTERM once it is
//   listening: it must exit 0. A trailing `&` runs a command the same way as without it.
// - A not-run example is only parsed, through the program's own parser (parseOnly).
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { parseOnly } from "../../src/program.js";
import { packDirectory } from "../../src/upload/pack.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { makeStandIns } from "../helpers/engine-standin.js";
import { dockerArchive, makeTestImage, ociLayout, writeTree } from "../helpers/images.js";
import { freshDir, instantClock, runCli } from "../helpers/run-cli.js";
import { tarballBytes } from "../helpers/tarball.js";
import { type Example, ROOT } from "./collect.js";
import {
  literal,
  type Part,
  type Pipeline,
  parseShell,
  type Script,
  type SimpleCommand,
  type Word,
} from "./shell.js";

/** The API key of the examples (`CPCTL_API_KEY=dev`), and so of the test's emulator. */
const EXAMPLE_KEY = "dev";
/** Polls a command may make before the test stops it as Ctrl-C would. */
const SLEEP_BUDGET = 200;

export async function runExample(example: Example): Promise<string[]> {
  let script: Script;
  try {
    script = parseShell(example.script);
  } catch (error) {
    return [`cannot read the example as shell: ${(error as Error).message}`];
  }
  if (example.notRun !== undefined) return parseCommands(script);
  const fixture = await createFixture(cpctlCommands(script));
  // A block that shows a failed revision (exit 5) follows one that made the next revision fail
  // (`cpctl emulator fail-next`, in the README): its fixture stands in for that.
  if (example.exit === 5) fixture.emulator.emulator.failNextRevision({ stage: "BUILDING" });
  // A block that shows a release failing its check (exit 7) follows `cpctl emulator health
  // DEPLOYMENT failing` (in the README): the fixture makes the next revision of my-agent unhealthy.
  if (example.exit === 7) fixture.emulator.emulator.setHealth(fixture.env.DEPLOYMENT_ID!, false);
  try {
    // Variables an example may not point elsewhere: the test's emulator stands in for every one.
    const shell = new ExampleShell(fixture, {
      CPCTL_BASE_URL: fixture.emulator.url,
      CPCTL_API_KEY: EXAMPLE_KEY,
    });
    await shell.run(script, example.exit);
    return [];
  } catch (error) {
    if (error instanceof ExampleProblem) return [error.message];
    throw error;
  } finally {
    await fixture.emulator.close();
  }
}

// ---------------------------------------------------------------------------------------
// What an example names, read before it runs: the fixtures depend on it.

/** Every cpctl command in the script, as the words written (expansions as null). */
function cpctlCommands(script: Script): (string | null)[][] {
  const found: (string | null)[][] = [];
  const visitWord = (word: Word) => {
    for (const part of word.parts) {
      if (part.kind === "subst" || part.kind === "procsubst") visitScript(part.script);
    }
  };
  const visitCommand = (command: SimpleCommand) => {
    for (const word of command.words) visitWord(word);
    for (const a of command.assignments) visitWord(a.value);
    const args = cpctlArgs(command.words);
    if (args) found.push(args.map(literal));
  };
  const visitScript = (s: Script) => {
    for (const item of s)
      for (const p of [item.first, ...item.rest.map((r) => r.pipeline)]) p.forEach(visitCommand);
  };
  visitScript(script);
  return found;
}

/** The arguments after `cpctl` (or `npx ... cpctl`), or null for another command. */
function cpctlArgs(words: Word[]): Word[] | null {
  const names = words.map(literal);
  if (names[0] === "cpctl") return words.slice(1);
  if (names[0] !== "npx") return null;
  let i = 1;
  while (names[i]?.startsWith("-")) i++;
  return names[i] === "cpctl" ? words.slice(i + 1) : null;
}

/** A not-run example: each cpctl command must parse (variables and substitutions as placeholders). */
async function parseCommands(script: Script): Promise<string[]> {
  const problems: string[] = [];
  for (const args of cpctlCommands(script)) {
    const argv = args.map((arg) => arg ?? "PLACEHOLDER");
    try {
      await parseOnly(argv);
    } catch (error) {
      problems.push(`cpctl ${argv.join(" ")}: does not parse: ${(error as Error).message}`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------
// The fixtures: what the examples name exists, unless the example creates it itself.

export interface Fixture {
  emulator: TestEmulator;
  cwd: string;
  home: string;
  env: Record<string, string>;
}

/** deploy.yaml: the file of the README's CI recipe (and `deploy apply`/`diff` examples). */
const DEPLOY_YAML = `name: my-agent
source: gitrepo
source_config:
  integration_id: \${env:GIT_INTEGRATION_ID}
  repo_url: https://github.com/acme/agent
  deployment_type: prod
  build_on_push: false
source_revision_config:
  repo_ref: main
  agent_config_path: agent.json
secrets:
  - name: OPENAI_API_KEY
    value: \${env:OPENAI_API_KEY}
`;

/** deployment.yaml: a deployment no example has made yet (`deploy create -f deployment.yaml`). */
const DEPLOYMENT_YAML = `name: support-agent
source: gitrepo
source_config:
  integration_id: \${env:GIT_INTEGRATION_ID}
  repo_url: https://github.com/acme/support-agent
  deployment_type: prod
  build_on_push: true
source_revision_config:
  repo_ref: main
  agent_config_path: agent.json
secrets:
  - name: OPENAI_API_KEY
    value: \${env:OPENAI_API_KEY}
`;

/** api.yaml: the container deployment my-api, as created below. */
const API_YAML = `name: my-api
source: external_container
source_config:
  listener_id: \${env:LISTENER_ID}
  listener_config:
    k8s_namespace: default
source_revision_config:
  image_uri: ghcr.io/acme/api:1.2
`;

/** The user config: the profiles of docs/configuration.md's example. */
const USER_CONFIG = `profiles:
  staging:
    baseUrl: https://cp.staging.example.com
    apiKey: \${env:CPCTL_STAGING_API_KEY}
  prod:
    baseUrl: https://cp.example.com
    bearerToken: \${env:CPCTL_PROD_TOKEN}
    tenantId: 3f2b0c1e-7d4a-4b8e-9a61-0c2d3e4f5a6b
    confirm: true
`;

async function createFixture(commands: (string | null)[][]): Promise<Fixture> {
  const emulator = await startTestEmulator({ apiKey: EXAMPLE_KEY });
  const cwd = freshDir("example");
  const home = freshDir("example-home");
  const seed = emulator.emulator.seed(emulator.tenantId);
  const env: Record<string, string> = {
    OPENAI_API_KEY: "sk-example",
    GIT_INTEGRATION_ID: seed.integrations[0]!.id,
    INTEGRATION_ID: seed.integrations[0]!.id,
    LISTENER_ID: seed.listeners[0]!.id,
    SHA: "3f9c2ab",
    EDITOR: "true",
    CPCTL_PROD_TOKEN: "prod-token",
    CPCTL_PROD_API_KEY: "prod-key",
    CPCTL_STAGING_API_KEY: "staging-key",
  };

  for (const [name, text] of [
    ["deploy.yaml", DEPLOY_YAML],
    ["deployment.yaml", DEPLOYMENT_YAML],
    ["api.yaml", API_YAML],
    ["agent.json", '{"graphs": {"agent": "./agent.py:graph"}}\n'],
    // The dotenv file of `secrets import` (and `--secrets-file`) examples.
    [".env", "OPENAI_API_KEY=sk-example\nLOG_LEVEL=debug\n"],
  ] as const) {
    writeFileSync(join(cwd, name), text);
  }
  // The reader's own check of a release (`--verify-cmd './smoke-test.sh "$CPCTL_DEPLOYMENT_URL"'`).
  writeFileSync(
    join(cwd, "smoke-test.sh"),
    '#!/bin/sh\n# stands in for the reader\'s check\ntest -n "$1"\n',
    {
      mode: 0o755,
    },
  );
  mkdirSync(join(cwd, "agent"));
  writeFileSync(join(cwd, "agent", "agent.json"), '{"graphs": {"agent": "./agent.py:graph"}}\n');
  writeFileSync(join(cwd, "agent", "agent.py"), "graph = None\n");
  // The README runs at the repository's root, where examples/agent is the project it pushes.
  cpSync(join(ROOT, "examples"), join(cwd, "examples"), { recursive: true });
  mkdirSync(join(cwd, "build"));
  writeFileSync(
    join(cwd, "build", "agent.tgz"),
    await tarballBytes((await packDirectory(join(cwd, "agent"), 1 << 20)).tarball),
  );
  // An image as `docker save` writes it, and the same as an OCI layout (`--image-archive`).
  const image = makeTestImage("example");
  writeFileSync(join(cwd, "image.tar"), dockerArchive(image));
  writeTree(join(cwd, "oci"), ociLayout(image, { gzip: true }).files);
  // `--image` goes through docker: a stand-in that pushes a small image (test/helpers/engine-standin.ts).
  if (commands.some((args) => args.includes("--image"))) {
    const standIns = makeStandIns(image);
    Object.assign(env, standIns.env, { PATH: `${standIns.dir}${delimiter}${process.env.PATH ?? ""}` });
  }
  mkdirSync(join(home, ".config", "cpctl"), { recursive: true });
  writeFileSync(join(home, ".config", "cpctl", "config.yaml"), USER_CONFIG, { mode: 0o600 });

  // Names the example creates itself are left for it to create.
  const created = new Set<string>();
  const createdListeners = new Set<string>();
  const uploadedTo = new Set<string>();
  for (const args of commands) {
    if (args[0] === "deploy" && args[1] === "create") {
      const at = args.indexOf("--name");
      if (at !== -1 && args[at + 1]) created.add(args[at + 1]!);
    }
    if (args[0] === "listeners" && args[1] === "create") {
      const at = args.indexOf("--compute-id");
      if (at !== -1 && args[at + 1]) createdListeners.add(args[at + 1]!);
    }
    if (args[0] === "deploy" && args[1] === "upload" && args[2]) uploadedTo.add(args[2]);
    if (args[0] === "deploy" && args[1] === "push" && args.includes("--name")) {
      uploadedTo.add(args[args.indexOf("--name") + 1] ?? "");
    }
  }

  if (!created.has("my-agent")) {
    if (uploadedTo.has("my-agent")) {
      const agent = await emulator.createDeployment("internal_source", "my-agent");
      env.DEPLOYMENT_ID = agent.id;
    } else {
      // As deploy.yaml says, then a second revision, so that there is one to roll back to.
      const agent = await emulator.createDeployment("gitrepo", "my-agent", {
        source_config: {
          integration_id: env.GIT_INTEGRATION_ID,
          repo_url: "https://github.com/acme/agent",
          deployment_type: "prod",
          build_on_push: false,
        },
        secrets: [
          { name: "OPENAI_API_KEY", value: env.OPENAI_API_KEY },
          { name: "OLD_TOKEN", value: "old" },
        ],
      });
      const first = agent.latest_revision_id as string;
      emulator.advance(60_000);
      const patched = await emulator.patch(`/v2/deployments/${agent.id}`, {
        source_revision_config: { repo_ref: "release-1" },
      });
      if (patched.status !== 200) throw new Error(`fixture patch: ${patched.status} ${patched.text}`);
      env.DEPLOYMENT_ID = agent.id;
      env.REVISION_ID = first;
    }
  }
  if (!created.has("my-api")) {
    await emulator.createDeployment("external_container", "my-api", {
      source_config: {
        listener_id: env.LISTENER_ID,
        listener_config: { k8s_namespace: "default" },
        resource_spec: { cpu: 1, memory_mb: 2048, labels: { team: "ml" } },
      },
      source_revision_config: { image_uri: "ghcr.io/acme/api:1.2" },
      secrets: [
        { name: "OPENAI_API_KEY", value: env.OPENAI_API_KEY },
        { name: "OLD_TOKEN", value: "old" },
      ],
    });
  }
  // The listener the `listeners` examples name, which no deployment uses.
  if (!createdListeners.has("my-cluster")) {
    const listener = await emulator.post("/v2/listeners", {
      compute_type: "k8s",
      compute_id: "my-cluster",
      compute_config: { k8s_namespaces: ["agents", "tools"] },
    });
    if (listener.status !== 201) throw new Error(`fixture listener: ${listener.status} ${listener.text}`);
  }
  emulator.settle();
  return { emulator, cwd, home, env };
}

// ---------------------------------------------------------------------------------------
// Running: the shell, as far as the examples need it.

interface Result {
  status: number;
  stdout: string;
  /** Whether stdout is what the command would print (false for commands not run). */
  known: boolean;
}

export class ExampleProblem extends Error {}

/**
 * Runs examples as a shell would (see the top of this file), keeping its variables from one
 * script to the next. `pinned`: variables no example may set, given to every cpctl command.
 */
export class ExampleShell {
  private readonly vars = new Map<string, string>();
  private readonly env: Record<string, string>;
  private expectedExit: number | undefined;

  /** `onCpctl`: told of every cpctl command run, with what it printed (a test checks claims). */
  constructor(
    private readonly fixture: Fixture,
    private readonly pinned: Record<string, string>,
    private readonly onCpctl?: (argv: string[], run: Run) => void,
  ) {
    this.env = { ...fixture.env };
  }

  /** One example: its cpctl commands must exit 0 (or `expectedExit`), else ExampleProblem. */
  async run(script: Script, expectedExit?: number): Promise<void> {
    this.expectedExit = expectedExit;
    await this.script(script);
  }

  private async script(script: Script): Promise<Result> {
    let stdout = "";
    let status = 0;
    for (const item of script) {
      const steps = [
        { op: null as string | null, pipeline: item.first },
        ...item.rest.map((r) => ({ op: r.op as string | null, pipeline: r.pipeline })),
      ];
      for (let i = 0; i < steps.length; i++) {
        const { op, pipeline } = steps[i]!;
        if ((op === "&&" && status !== 0) || (op === "||" && status === 0)) continue;
        const result = await this.pipeline(pipeline, steps[i + 1]?.op === "||");
        status = result.status;
        stdout += result.stdout;
      }
    }
    return { status, stdout, known: true };
  }

  private async pipeline(pipeline: Pipeline, guarded: boolean): Promise<Result> {
    let input: Result = { status: 0, stdout: "", known: false };
    let cpctlStatus: number | null = null;
    for (const command of pipeline) {
      const result = await this.command(command, input, guarded);
      if (result.known && cpctlArgs(command.words)) cpctlStatus = result.status;
      input = result;
    }
    return {
      status: cpctlStatus ?? input.status,
      stdout: input.known ? input.stdout : "",
      known: input.known,
    };
  }

  private async command(command: SimpleCommand, input: Result, guarded: boolean): Promise<Result> {
    if (command.words.length === 0) {
      for (const { name, value } of command.assignments) this.vars.set(name, await this.expand(value));
      return { status: 0, stdout: "", known: false };
    }
    const args = cpctlArgs(command.words);
    if (args) return this.cpctl(command, args, input, guarded);
    const name = literal(command.words[0]!);
    if (name === "export") {
      for (const word of command.words.slice(1)) await this.export(word);
      return { status: 0, stdout: "", known: false };
    }
    // Not run; what it would run inside $(...) or <(...) is.
    const words: string[] = [];
    for (const word of command.words) words.push(await this.expand(word, true));
    for (const redirect of command.redirects) await this.expand(redirect.target, true);
    if (name === "head" && input.known)
      return { status: 0, stdout: head(input.stdout, words.slice(1)), known: true };
    return { status: 0, stdout: "", known: false };
  }

  private async export(word: Word): Promise<void> {
    const first = word.parts[0];
    const match = first?.kind === "text" ? /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(first.text) : null;
    if (!match) return;
    const name = match[1]!;
    if (name in this.pinned) return;
    const rest: Part[] = [{ kind: "text", text: (first as { text: string }).text.slice(match[0].length) }];
    const value = await this.expand({ parts: [...rest, ...word.parts.slice(1)], source: word.source });
    this.env[name] = value;
    this.vars.set(name, value);
  }

  private async cpctl(
    command: SimpleCommand,
    args: Word[],
    input: Result,
    guarded: boolean,
  ): Promise<Result> {
    const argv: string[] = [];
    for (const word of args) argv.push(await this.expand(word));
    const env = { ...this.env };
    for (const { name, value } of command.assignments) {
      if (!(name in this.pinned)) env[name] = await this.expand(value);
    }
    Object.assign(env, this.pinned);
    let stdin = input.known ? input.stdout : undefined;
    for (const redirect of command.redirects) {
      const target = await this.expand(redirect.target);
      if (redirect.op === "<") stdin = readFileSync(join(this.fixture.cwd, target), "utf8");
    }
    const shown = `cpctl ${argv.join(" ")}`;
    // `cpctl emulator [--flags]` runs one; `cpctl emulator CONTROL` is a command like any other.
    const runsEmulator = argv[0] === "emulator" && (argv[1] === undefined || argv[1].startsWith("-"));
    const own: Record<string, string> = {};
    for (const { name } of command.assignments) if (env[name] !== undefined) own[name] = env[name];
    const result = runsEmulator ? await this.emulator(argv, own) : await this.inProcess(argv, env, stdin);
    this.onCpctl?.(argv, result);
    const expected =
      this.expectedExit !== undefined
        ? [this.expectedExit]
        : result.stopped && argv.includes("--follow")
          ? [130]
          : guarded
            ? [0, 1]
            : [0];
    if (!expected.includes(result.code)) {
      const why = result.stopped ? " (it did not finish: stopped by the test)" : "";
      throw new ExampleProblem(
        `${shown}: exit ${result.code}${why}, expected ${expected.join(" or ")}\n${result.stderr.trim()}`,
      );
    }
    return { status: result.code, stdout: result.stdout, known: true };
  }

  private async inProcess(
    argv: string[],
    env: Record<string, string>,
    stdin: string | undefined,
  ): Promise<Run> {
    const controller = new AbortController();
    let sleeps = 0;
    const clock = instantClock(undefined, () => {
      if (++sleeps === SLEEP_BUDGET) controller.abort();
    });
    // `deploy delete` and `emulator reset` always ask: on a terminal, and the answer is yes.
    const asks =
      ((argv[0] === "deploy" && argv[1] === "delete") || (argv[0] === "emulator" && argv[1] === "reset")) &&
      !argv.includes("--yes") &&
      !argv.includes("-y");
    const result = await runCli(argv, {
      env: asks ? { ...env, NO_COLOR: "1" } : env,
      cwd: this.fixture.cwd,
      homeDir: this.fixture.home,
      clock,
      signal: controller.signal,
      ...(asks ? { tty: true, stdin: "y\n" } : stdin === undefined ? {} : { stdin }),
    });
    return { ...result, stopped: controller.signal.aborted };
  }

  /** `assignments`: the line's own `NAME=VALUE ... cpctl emulator` (CPCTL_EMULATOR_API_KEYS, say). */
  private emulator(argv: string[], assignments: Record<string, string>): Promise<Run> {
    return runEmulatorChild([...argv, "--port", "0"], this.fixture.cwd, this.fixture.home, assignments);
  }

  /** A word's value: text, variables, and the output of what `$(...)` runs. */
  private async expand(word: Word, lenient = false): Promise<string> {
    let value = "";
    for (const part of word.parts) {
      if (part.kind === "text") value += part.text;
      else if (part.kind === "var") {
        const known = this.vars.get(part.name) ?? this.env[part.name];
        if (known === undefined && !lenient) {
          throw new ExampleProblem(
            `${word.source}: the fixture has no $${part.name} (define it in test/docs/run-example.ts, or mark the block not-run)`,
          );
        }
        value += known ?? "";
      } else {
        const result = await this.script(part.script);
        value += part.kind === "subst" ? result.stdout.replace(/\n+$/, "") : "/dev/fd/63";
      }
    }
    return value;
  }
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** The test stopped it (as Ctrl-C would): it ran past the sleep budget. */
  stopped: boolean;
}

/** `head -1`, `head -n 2`, `head` of text. */
function head(text: string, args: string[]): string {
  let count = 10;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "-n") count = Number(args[++i]);
    else if (/^-\d+$/.test(args[i]!)) count = Number(args[i]!.slice(1));
  }
  const lines = text.split("\n");
  const complete = text.endsWith("\n") ? lines.slice(0, -1) : lines;
  return complete
    .slice(0, count)
    .map((line) => `${line}\n`)
    .join("");
}

const BIN = join(ROOT, "bin", "cpctl.cjs");

/** The built emulator in `cwd` until it says it listens, then SIGTERM: its exit code and output. */
function runEmulatorChild(
  argv: string[],
  cwd: string,
  home: string,
  assignments: Record<string, string>,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      cwd,
      env: { ...assignments, PATH: process.env.PATH ?? "", HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let stopped = false;
    const stop = () => {
      if (!stopped && child.pid !== undefined) child.kill("SIGTERM");
      stopped = true;
    };
    const timer = setTimeout(stop, 10_000);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (/^listening on http:\/\/\S+\n/.test(stdout)) stop();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const exit = code ?? (signal ? 128 : 1);
      if (/^listening on http:\/\/\S+\n/.test(stdout))
        resolve({ code: exit, stdout, stderr, stopped: false });
      else
        resolve({
          code: exit || 1,
          stdout,
          stderr: `${stderr}(it never said \`listening on\`)`,
          stopped: false,
        });
    });
  });
}
