// action.yml run as a GitHub runner runs a composite action: each step's `env:` expressions
// evaluated from the inputs, its `run:` script run by bash with GITHUB_OUTPUT and
// GITHUB_STEP_SUMMARY files, the action's outputs read from the step's. cpctl is the built
// bin/cpctl.cjs, put on PATH as `cpctl` (so the install step finds it and installs nothing),
// against a test emulator.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
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

/** `${{ inputs.NAME }}` and `${{ steps.ID.outputs.NAME }}`: the expressions this action uses. */
function evaluate(
  text: string,
  inputs: Record<string, string>,
  steps: Record<string, Record<string, string>>,
) {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(expression);
    if (input) return inputs[input[1]!] ?? "";
    const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
    if (output) return steps[output[1]!]?.[output[2]!] ?? "";
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

async function runAction(given: Record<string, string>, cwd: string): Promise<ActionRun> {
  const work = freshDir("runner");
  const shims = join(work, "bin");
  mkdirSync(shims);
  writeFileSync(
    join(shims, "cpctl"),
    `#!/bin/sh\nexec "${process.execPath}" "${join(root, "bin", "cpctl.cjs")}" "$@"\n`,
  );
  chmodSync(join(shims, "cpctl"), 0o755);
  const inputs = Object.fromEntries(
    Object.entries(action.inputs).map(([name, spec]) => [name, given[name] ?? spec.default ?? ""]),
  );
  const summary = join(work, "summary.md");
  const steps: Record<string, Record<string, string>> = {};
  let stdout = "";
  let stderr = "";
  let code = 0;
  for (const [index, step] of action.runs.steps.entries()) {
    const outputFile = join(work, `output-${index}`);
    const script = join(work, `step-${index}.sh`);
    writeFileSync(script, step.run);
    const env: Record<string, string> = {
      PATH: `${shims}:${process.env.PATH}`,
      HOME: work,
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summary,
    };
    for (const [name, value] of Object.entries(step.env ?? {})) env[name] = evaluate(value, inputs, steps);
    expect(step.shell).toBe("bash");
    // Not spawnSync: the emulator answers from this process's event loop.
    const result = await execa("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
      cwd,
      env,
      extendEnv: false,
      reject: false,
      timeout: 60_000,
    });
    stdout += result.stdout;
    stderr += result.stderr;
    if (step.id) steps[step.id] = readOutputs(outputFile);
    code = result.exitCode ?? 1;
    if (code !== 0) break;
  }
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, spec]) => [name, evaluate(spec.value, inputs, steps)]),
  );
  return { code, stdout, stderr, outputs, summary: existsSync(summary) ? readFileSync(summary, "utf8") : "" };
}

function deploymentFile(em: TestEmulator, dir: string, image: string) {
  const body = em.createBody("external_container", "web") as { source_config: object };
  writeFileSync(
    join(dir, "deploy.yaml"),
    JSON.stringify({
      name: "web",
      source: "external_container",
      source_config: body.source_config,
      source_revision_config: { image_uri: image },
      secrets: [{ name: "API_TOKEN", value: "action-secret-value" }],
    }),
  );
}

describe("action.yml", () => {
  it("never pastes an input into a script: inputs reach `run:` only as environment variables", () => {
    expect(action.runs.using).toBe("composite");
    for (const step of action.runs.steps) expect(step.run).not.toContain("${{");
  });

  it("applies a file and waits: step outputs, a summary, and no secret anywhere", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("action");
    deploymentFile(em, dir, "ghcr.io/acme/web:1");
    const inputs = { command: "deploy apply", file: "deploy.yaml", "base-url": em.url, "api-key": em.apiKey };
    const run = await runAction(inputs, dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("is on PATH");
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
    const again = await runAction(inputs, dir);
    expect(again.code, again.stderr).toBe(0);
    expect(again.outputs.result).toBe("deployed");
    expect(again.outputs.revision_id).not.toBe(made.latest_revision_id);
    expect(again.summary).toContain(
      '~ source_revision_config.image_uri: "ghcr.io/acme/web:1" -> "ghcr.io/acme/web:2"',
    );
  });

  it("a failed revision fails the step (exit 5) with result=failed and an error annotation", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("action");
    deploymentFile(em, dir, "ghcr.io/acme/web:1");
    em.emulator.failNextRevision({ stage: "DEPLOYING" });
    const run = await runAction(
      { command: "deploy apply", file: "deploy.yaml", "base-url": em.url, "api-key": em.apiKey },
      dir,
    );
    expect(run.code).toBe(5);
    expect(run.outputs).toMatchObject({ deployment_name: "web", status: "DEPLOY_FAILED", result: "failed" });
    expect(run.summary).toContain("❌ failed");
    expect(run.stderr).toMatch(/^::error title=cpctl deploy apply failed::revision .* ended DEPLOY_FAILED/m);
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
