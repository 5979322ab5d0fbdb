// action.yml run as a GitHub runner runs a composite action: each step's `${{ }}` expressions
// evaluated (inputs, the action's path, earlier steps' outputs), its environment layered as
// the runner layers it (the runner's own variables, then the caller's `env:` of the job and of
// the `uses:` step, then the step's own `env:`), its `run:` script run by
// `bash --noprofile --norc -eo pipefail`, with GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files,
// and the action's outputs read from the step's. GITHUB_ACTION_PATH is this checkout, whose
// dist/ the global setup built: the action runs the CLI of its own source, against a test
// emulator. Settings are given both ways, by inputs and by the caller's `env:`.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { startGitHubFake } from "../helpers/github-fake.js";
import { freshDir } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const root = fileURLToPath(new URL("../..", import.meta.url));
const action = parse(readFileSync(join(root, "action.yml"), "utf8")) as {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: { id?: string; shell: string; env?: Record<string, string>; run: string }[] };
};

interface ActionRun {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

interface Context {
  inputs: Record<string, string>;
  steps: Record<string, Record<string, string>>;
  actionPath: string;
  runnerTemp: string;
  /** The workflow's token (github.token) and event (github.event). */
  github: { token: string; event: Record<string, unknown> };
}

/** `github.event.a.b` of the event, as an expression gives it (an absent field is empty). */
function eventField(event: Record<string, unknown>, path: string): string {
  let value: unknown = event;
  for (const key of path.split(".")) value = (value as Record<string, unknown> | undefined)?.[key];
  return value === undefined || value === null ? "" : String(value);
}

/**
 * The expressions this action uses: inputs, steps' outputs, github.action_path, github.token,
 * github.event.*, runner.temp.
 */
function evaluate(text: string, context: Context) {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(expression);
    if (input) return context.inputs[input[1]!] ?? "";
    const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
    if (output) return context.steps[output[1]!]?.[output[2]!] ?? "";
    if (expression === "github.action_path") return context.actionPath;
    if (expression === "github.token") return context.github.token;
    if (expression.startsWith("github.event.")) return eventField(context.github.event, expression.slice(13));
    if (expression === "runner.temp") return context.runnerTemp;
    throw new Error(`expression not understood by this test runner: ${expression}`);
  });
}

/** GITHUB_OUTPUT's two forms: NAME=VALUE, and NAME<<DELIMITER ... DELIMITER. */
function readOutputs(file: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  if (!existsSync(file)) return outputs;
  const lines = readFileSync(file, "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([\w-]+)<<(.+)$/.exec(lines[i]!);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      outputs[heredoc[1]!] = lines.slice(i + 1, end).join("\n");
      i = end;
      continue;
    }
    const eq = lines[i]!.indexOf("=");
    if (eq > 0) outputs[lines[i]!.slice(0, eq)] = lines[i]!.slice(eq + 1);
  }
  return outputs;
}

interface RunOptions {
  /** The `with:` of the `uses:` step. */
  with?: Record<string, string>;
  /** The caller's `env:` (the job's and the `uses:` step's, merged). */
  env?: Record<string, string>;
  cwd: string;
  /** GITHUB_ACTION_PATH: default this checkout. */
  actionPath?: string;
  /** Directories put first on PATH (stand-ins for npm). */
  path?: string[];
  home?: string;
  /** The workflow's token and the event it runs for (written to GITHUB_EVENT_PATH). */
  github?: { token?: string; event?: Record<string, unknown> };
}

async function runAction(options: RunOptions): Promise<ActionRun> {
  const work = freshDir("runner");
  const inputs = Object.fromEntries(
    Object.entries(action.inputs).map(([name, spec]) => [name, options.with?.[name] ?? spec.default ?? ""]),
  );
  const summary = join(work, "summary.md");
  const runnerTemp = join(work, "temp");
  mkdirSync(runnerTemp);
  const github = { token: options.github?.token ?? "", event: options.github?.event ?? {} };
  const context: Context = { inputs, steps: {}, actionPath: options.actionPath ?? root, runnerTemp, github };
  const eventPath = join(work, "event.json");
  writeFileSync(eventPath, JSON.stringify(github.event));
  let stdout = "";
  let stderr = "";
  let code = 0;
  for (const [index, step] of action.runs.steps.entries()) {
    const outputFile = join(work, `output-${index}`);
    const script = join(work, `step-${index}.sh`);
    writeFileSync(script, step.run);
    const env: Record<string, string> = {
      // The runner's own variables...
      PATH: [...(options.path ?? []), dirname(process.execPath), process.env.PATH].join(":"),
      HOME: options.home ?? work,
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_ACTION_PATH: context.actionPath,
      RUNNER_TEMP: runnerTemp,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_EVENT_PATH: eventPath,
      // ...then the caller's env:, then the step's own.
      ...options.env,
    };
    for (const [name, value] of Object.entries(step.env ?? {})) env[name] = evaluate(value, context);
    expect(step.shell).toBe("bash");
    // Not spawnSync: the emulator answers from this process's event loop.
    const result = await execa("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
      cwd: options.cwd,
      env,
      extendEnv: false,
      reject: false,
      timeout: 60_000,
    });
    stdout += result.stdout;
    stderr += result.stderr;
    if (step.id) context.steps[step.id] = readOutputs(outputFile);
    code = result.exitCode ?? 1;
    if (code !== 0) break;
  }
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, spec]) => [name, evaluate(spec.value, context)]),
  );
  return { code, stdout, stderr, outputs, summary: existsSync(summary) ? readFileSync(summary, "utf8") : "" };
}

function deploymentFile(em: TestEmulator, dir: string, image: string, file = "deploy.yaml") {
  const body = em.createBody("external_container", "web") as { source_config: object };
  writeFileSync(
    join(dir, file),
    JSON.stringify({
      name: "web",
      source: "external_container",
      source_config: body.source_config,
      source_revision_config: { image_uri: image },
      secrets: [{ name: "API_TOKEN", value: "action-secret-value" }],
    }),
  );
}

/** The control plane's address and key, given either way. */
const WAYS = {
  "by inputs": (em: TestEmulator) => ({ with: { "base-url": em.url, "api-key": em.apiKey }, env: {} }),
  "by the caller's env:": (em: TestEmulator) => ({
    with: {},
    env: { CPCTL_BASE_URL: em.url, CPCTL_API_KEY: em.apiKey },
  }),
};

/** A stand-in for npm on PATH: records its arguments, and does what `make` says. */
function fakeNpm(make: string): { dir: string; calls: () => string[] } {
  const dir = freshDir("npm");
  const log = join(dir, "calls");
  writeFileSync(join(dir, "npm"), `#!/bin/bash\necho "$PWD: $*" >> "${log}"\n${make}\n`);
  chmodSync(join(dir, "npm"), 0o755);
  return {
    dir,
    calls: () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []),
  };
}

describe("action.yml", () => {
  it("never pastes an input into a script: inputs reach `run:` only as environment variables", () => {
    expect(action.runs.using).toBe("composite");
    for (const step of action.runs.steps) expect(step.run).not.toContain("${{");
  });

  it("never sets a CPCTL_ variable in a step's env: (an empty input would hide the caller's)", () => {
    for (const step of action.runs.steps)
      expect(Object.keys(step.env ?? {}).filter((name) => name.startsWith("CPCTL_"))).toEqual([]);
  });

  for (const [way, settings] of Object.entries(WAYS)) {
    it(`applies a file and waits, settings given ${way}: step outputs, a summary, no secret anywhere`, async () => {
      const em = await startTestEmulator();
      const dir = freshDir("action");
      deploymentFile(em, dir, "ghcr.io/acme/web:1");
      const given = settings(em);
      const run = await runAction({
        with: { command: "deploy apply", file: "deploy.yaml", ...given.with },
        env: given.env,
        cwd: dir,
      });
      expect(run.code, run.stderr).toBe(0);
      const [made] = (await em.get("/v2/deployments?name=web")).json.resources;
      expect(run.outputs).toMatchObject({
        deployment_id: made.id,
        deployment_name: "web",
        revision_id: made.latest_revision_id,
        status: "DEPLOYED",
        result: "deployed",
      });
      expect(run.summary).toContain("### cpctl deploy apply: web ✅ deployed");
      expect(run.summary).toContain("+ secrets.API_TOKEN: ****");
      expect(run.stderr).toContain("::group::Waiting for revision");
      expect(run.stderr).toContain("::endgroup::");
      for (const text of [run.stdout, run.stderr, run.summary, JSON.stringify(run.outputs)]) {
        expect(text).not.toContain("action-secret-value");
        expect(text).not.toContain(em.apiKey);
      }

      // A second apply that changes the image: a patch, "started" then deployed.
      deploymentFile(em, dir, "ghcr.io/acme/web:2");
      const again = await runAction({
        with: { command: "deploy apply", file: "deploy.yaml", ...given.with },
        env: given.env,
        cwd: dir,
      });
      expect(again.code, again.stderr).toBe(0);
      expect(again.outputs.result).toBe("deployed");
      expect(again.outputs.revision_id).not.toBe(made.latest_revision_id);
      expect(again.summary).toContain(
        '~ source_revision_config.image_uri: "ghcr.io/acme/web:1" -> "ghcr.io/acme/web:2"',
      );
    });
  }

  it("an input, when given, wins over the caller's env:", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("action");
    deploymentFile(em, dir, "ghcr.io/acme/web:1");
    const run = await runAction({
      with: { command: "deploy apply", file: "deploy.yaml", "base-url": em.url },
      env: { CPCTL_BASE_URL: "http://127.0.0.1:9", CPCTL_API_KEY: em.apiKey },
      cwd: dir,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.outputs.result).toBe("deployed");
  });

  it("a failed revision fails the step (exit 5) with result=failed and an error annotation", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("action");
    deploymentFile(em, dir, "ghcr.io/acme/web:1");
    em.emulator.failNextRevision({ stage: "DEPLOYING" });
    const run = await runAction({
      with: { command: "deploy apply", file: "deploy.yaml", "base-url": em.url, "api-key": em.apiKey },
      cwd: dir,
    });
    expect(run.code).toBe(5);
    expect(run.outputs).toMatchObject({ deployment_name: "web", status: "DEPLOY_FAILED", result: "failed" });
    expect(run.summary).toContain("❌ failed");
    expect(run.stderr).toMatch(/^::error title=cpctl deploy apply failed::revision .* ended DEPLOY_FAILED/m);
  });

  it("runs the CLI of its own source, built there once when it is not built yet; never cpctl@latest", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("action");
    // A checkout of the action at some ref, not built: its bin/ is this one's.
    const checkout = freshDir("checkout");
    symlinkSync(join(root, "bin"), join(checkout, "bin"));
    writeFileSync(join(checkout, "package.json"), readFileSync(join(root, "package.json")));
    const npm = fakeNpm('if [ "$*" = "run build" ]; then mkdir -p dist && touch dist/cli.js; fi');
    const settings = { "base-url": em.url, "api-key": em.apiKey };
    for (let i = 0; i < 2; i++) {
      const run = await runAction({
        with: { command: "integrations list", wait: "false", ...settings },
        cwd: dir,
        actionPath: checkout,
        path: [npm.dir],
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain("emulated-org");
    }
    // Built once, in the checkout, from its lockfile; the second run found it built.
    expect(npm.calls()).toEqual([
      `${realpathSync(checkout)}: ci --no-audit --no-fund`,
      `${realpathSync(checkout)}: run build`,
    ]);
    expect(npm.calls().join("\n")).not.toContain("latest");
  });

  it("`version:` installs that version from the registry, pinned, into the runner's temp", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("action");
    const npm = fakeNpm(
      'if [ "$1" = install ]; then mkdir -p "$3/node_modules" && ln -sfn "' +
        root +
        '" "$3/node_modules/cpctl"; fi',
    );
    const run = await runAction({
      with: { command: "integrations list", version: "0.1.0", "base-url": em.url, "api-key": em.apiKey },
      cwd: dir,
      path: [npm.dir],
    });
    expect(run.code, run.stderr).toBe(0);
    const [call] = npm.calls();
    expect(call).toMatch(
      /: install --prefix \S+\/temp\/cpctl-0\.1\.0 --no-save --no-audit --no-fund cpctl@0\.1\.0$/,
    );
  });

  it("`deploy upload` gets --wait only with --patch", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "src");
    const dir = freshDir("action");
    mkdirSync(join(dir, "agent"));
    writeFileSync(join(dir, "agent", "agent.json"), "{}\n");
    const settings = { "base-url": em.url, "api-key": em.apiKey };
    const plain = await runAction({ with: { command: "deploy upload src agent", ...settings }, cwd: dir });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/\.tar\.gz|uploads\//);
    const patched = await runAction({
      with: { command: "deploy upload src agent --patch", ...settings },
      cwd: dir,
    });
    expect(patched.code, patched.stderr).toBe(0);
    expect(patched.outputs.result).toBe("deployed");
  });

  it("`deploy push` waits by default; wait: false stops it once the revision has started", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("action");
    mkdirSync(join(dir, "agent"));
    writeFileSync(join(dir, "agent", "agent.json"), '{"graphs":{"agent":"./agent.py:graph"}}');
    writeFileSync(join(dir, "agent", "agent.py"), "graph = None\n");
    const settings = { "base-url": em.url, "api-key": em.apiKey };
    const waited = await runAction({
      with: { command: "deploy push agent --name pushed", ...settings },
      cwd: dir,
    });
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.outputs.result).toBe("deployed");
    writeFileSync(join(dir, "agent", "agent.py"), "graph = 'v2'\n");
    const started = await runAction({
      with: { command: "deploy push agent --name pushed", wait: "false", timeout: "5m", ...settings },
      cwd: dir,
    });
    expect(started.code, started.stderr).toBe(0);
    expect(started.stderr).not.toContain("::group::Waiting");
  });

  it("a --timeout written in the command wins over the timeout input", async () => {
    const em = await startTestEmulator({ stageMs: 600_000 });
    const made = await em.createDeployment("external_container", "slow");
    const dir = freshDir("action");
    const started = Date.now();
    const run = await runAction({
      with: {
        command: `deploy wait ${made.id} --timeout 1s --interval 200ms`,
        timeout: "30m",
        "base-url": em.url,
        "api-key": em.apiKey,
      },
      cwd: dir,
    });
    expect(run.code, run.stderr).toBe(6);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("`args`: one argument a line, spaces kept (a file name with a space)", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("action");
    deploymentFile(em, dir, "ghcr.io/acme/web:1", "deploy file.yaml");
    const run = await runAction({
      with: {
        command: "deploy apply",
        args: "-f\ndeploy file.yaml\n",
        "base-url": em.url,
        "api-key": em.apiKey,
      },
      cwd: dir,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.outputs).toMatchObject({ deployment_name: "web", result: "deployed" });
  });

  it("`yes: true` passes --yes, for a profile with confirm: true", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("action");
    const home = freshDir("home");
    mkdirSync(join(home, ".config", "cpctl"), { recursive: true });
    writeFileSync(
      join(home, ".config", "cpctl", "config.yaml"),
      `profiles:\n  prod:\n    baseUrl: ${em.url}\n    confirm: true\n`,
    );
    deploymentFile(em, dir, "ghcr.io/acme/web:1");
    const given = { command: "deploy apply", file: "deploy.yaml", profile: "prod", "api-key": em.apiKey };
    const refused = await runAction({ with: given, cwd: dir, home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("pass --yes");
    const confirmed = await runAction({ with: { ...given, yes: "true" }, cwd: dir, home });
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(confirmed.outputs.result).toBe("deployed");
  });

  describe("previews: preview, comment, github-token, prune", () => {
    const TOKEN = "ghs_workflow_token_1";
    function agentDir(): string {
      const dir = freshDir("action");
      mkdirSync(join(dir, "agent"));
      writeFileSync(join(dir, "agent", "agent.json"), '{"graphs":{"agent":"./agent.py:graph"}}');
      writeFileSync(join(dir, "agent", "agent.py"), "graph = None\n");
      return dir;
    }
    const pullRequest = (number: number, action = "synchronize") => ({
      token: TOKEN,
      event: { action, pull_request: { number } },
    });

    it("preview: true and comment: true ship to NAME-pr-N and comment with the workflow's token", async () => {
      const em = await startTestEmulator();
      const github = await startGitHubFake({ token: TOKEN });
      const dir = agentDir();
      const run = await runAction({
        with: {
          command: "deploy push agent --name my-agent",
          preview: "true",
          comment: "true",
          "base-url": em.url,
          "api-key": em.apiKey,
        },
        env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: "acme/agent" },
        github: pullRequest(12),
        cwd: dir,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.outputs).toMatchObject({
        deployment_name: "my-agent-pr-12",
        preview_number: "12",
        result: "deployed",
      });
      expect(github.comments(12)).toHaveLength(1);
      expect(github.comments(12)[0]!.body).toContain("<!-- cpctl-preview:my-agent -->");
      for (const text of [run.stdout, run.stderr, run.summary, JSON.stringify(run.outputs)])
        expect(text).not.toContain(TOKEN);
    });

    it("github-token wins over the caller's GITHUB_TOKEN, which wins over the workflow's", async () => {
      const em = await startTestEmulator();
      const dir = agentDir();
      const base = {
        command: "deploy push agent --name app",
        preview: "3",
        comment: "true",
        "base-url": em.url,
        "api-key": em.apiKey,
      };
      for (const [given, callers, used] of [
        ["ghs_input_token_1", "ghs_caller_token_1", "ghs_input_token_1"],
        ["", "ghs_caller_token_1", "ghs_caller_token_1"],
        ["", "", TOKEN],
      ] as const) {
        const github = await startGitHubFake({ token: used });
        const run = await runAction({
          with: { ...base, "github-token": given },
          env: {
            GITHUB_API_URL: github.url,
            GITHUB_REPOSITORY: "acme/agent",
            ...(callers ? { GITHUB_TOKEN: callers } : {}),
          },
          github: { token: TOKEN, event: {} },
          cwd: dir,
        });
        expect(run.code, run.stderr).toBe(0);
        expect(run.outputs.preview_number).toBe("3");
        expect(github.comments(3), `${given}/${callers}`).toHaveLength(1);
      }
    });

    it("preview and comment go with deploy push only; preview takes true, false or a number", async () => {
      const em = await startTestEmulator();
      const settings = { "base-url": em.url, "api-key": em.apiKey };
      const wrongCommand = await runAction({
        with: { command: "deploy apply", file: "x.yaml", preview: "true", ...settings },
        cwd: freshDir("action"),
      });
      expect(wrongCommand.code).toBe(2);
      expect(wrongCommand.stdout + wrongCommand.stderr).toContain(
        "preview and comment go with the command deploy push",
      );
      const badValue = await runAction({
        with: { command: "deploy push", preview: "07", ...settings },
        cwd: freshDir("action"),
      });
      expect(badValue.code).toBe(2);
      expect(badValue.stdout + badValue.stderr).toContain(
        "preview: expected true, false or a pull request's number",
      );
    });

    it("prune: NAME deletes that pull request's preview on its event, and wants yes: true", async () => {
      const em = await startTestEmulator();
      for (const name of ["my-agent", "my-agent-pr-4", "my-agent-pr-5"])
        await em.createDeployment("internal_container", name);
      const settings = { "base-url": em.url, "api-key": em.apiKey };
      const refused = await runAction({
        with: { prune: "my-agent", ...settings },
        github: pullRequest(4, "closed"),
        cwd: freshDir("action"),
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("--yes");
      const run = await runAction({
        with: { prune: "my-agent", yes: "true", ...settings },
        github: pullRequest(4, "closed"),
        cwd: freshDir("action"),
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/my-agent-pr-4$/);
      // A schedule: no pull request; the filter comes from args.
      const nightly = await runAction({
        with: { prune: "my-agent", yes: "true", args: "--older-than=7d", ...settings },
        cwd: freshDir("action"),
      });
      expect(nightly.code, nightly.stderr).toBe(0);
      expect(nightly.stderr).toContain(
        "nothing to prune: none of the 1 preview deployment of my-agent matches --older-than 7d00h",
      );
      const names = (await em.get("/v2/deployments")).json.resources
        .map((d: { name: string }) => d.name)
        .sort();
      expect(names).toEqual(["my-agent", "my-agent-pr-5"]);
      const mixed = await runAction({
        with: { prune: "my-agent", command: "deploy list", ...settings },
        cwd: freshDir("action"),
      });
      expect(mixed.code).toBe(2);
    });
  });

  it("CPCTL_GITHUB=0 turns it all off", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("action");
    deploymentFile(em, dir, "ghcr.io/acme/web:1");
    const run = await execa(
      process.execPath,
      [join(root, "bin", "cpctl.cjs"), "deploy", "apply", "-f", "deploy.yaml"],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH,
          HOME: dir,
          CI: "true",
          GITHUB_ACTIONS: "true",
          CPCTL_GITHUB: "0",
          GITHUB_OUTPUT: join(dir, "out"),
          CPCTL_BASE_URL: em.url,
          CPCTL_API_KEY: em.apiKey,
        },
        extendEnv: false,
        reject: false,
      },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(existsSync(join(dir, "out"))).toBe(false);
    expect(run.stderr).not.toContain("::");
  });
});
