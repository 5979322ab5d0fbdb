// `deploy create` with missing values: on a terminal it asks (driven here through a real
// pseudo-terminal with the built binary, answers typed in, the request checked at the
// emulator); in CI or with --no-input it never waits for input and exits 2 at once,
// naming every missing flag and the command to run again.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { freshDir } from "../helpers/run-cli.js";
import { BIN, plain, python3Available, runOnPty, SGR, terminalEnv, WAIT_MS } from "./helpers/pty.js";

const DOWN = "\x1b[B";
const ENTER = "\r";
const CTRL_C = "\x03";

let em: TestEmulator;
beforeEach(async () => {
  em = await startTestEmulator({ stageMs: 0 });
});
afterEach(async () => {
  await em.close();
});

const envFor = (extra: Record<string, string> = {}) =>
  terminalEnv({ CPCTL_BASE_URL: em.url, CPCTL_API_KEY: em.apiKey, ...extra });

async function deploymentsNamed(name: string) {
  const response = await em.get(`/v2/deployments?name=${encodeURIComponent(name)}`);
  expect(response.status).toBe(200);
  // biome-ignore lint/suspicious/noExplicitAny: checked field by field
  return response.json.resources as any[];
}

describe("on a terminal", () => {
  beforeEach((t) => {
    if (!python3Available()) t.skip("python3 with its pty module is not installed");
  });

  test("asks for every missing value, shows the request with secrets masked, and creates on yes", async () => {
    const seed = em.emulator.seed(em.tenantId);
    const t = runOnPty(["deploy", "create", "--secret", "API_TOKEN=s3cr3t-value"], { env: envFor() });
    await t.waitFor("Deployment name");
    t.type(`pty-agent${ENTER}`);
    await t.waitFor("Source");
    t.type(ENTER); // gitrepo, the first choice
    await t.waitFor("Git integration");
    await t.waitFor(seed.integrations[1]!.name); // both listings are offered
    t.type(`${DOWN}${ENTER}`); // the second integration
    // The integration's repositories are offered: the third, whose default branch is trunk.
    await t.waitFor("Git repository");
    await t.waitFor(`${seed.integrations[1]!.name}/research-assistant`);
    t.type(`${DOWN}${DOWN}${ENTER}`);
    await t.waitFor("Git ref");
    t.type(ENTER); // its default branch
    await t.waitFor("Path of the agent configuration file");
    t.type(ENTER); // the default, agent.json
    await t.waitFor("The request (POST /v2/deployments)");
    await t.waitFor("Create deployment 'pty-agent'?");
    t.type(`y${ENTER}`);
    const { code, output } = await t.finished();

    expect(code, plain(output)).toBe(0);
    expect(output).not.toContain("s3cr3t-value");
    expect(plain(output)).toMatch(/"value": "\*\*\*\*"/);
    const [created] = await deploymentsNamed("pty-agent");
    expect(created).toMatchObject({
      name: "pty-agent",
      source: "gitrepo",
      source_config: {
        integration_id: seed.integrations[1]!.id,
        repo_url: `https://github.com/${seed.integrations[1]!.name}/research-assistant`,
      },
      source_revision_config: { repo_ref: "trunk", agent_config_path: "agent.json" },
    });
    expect(created.secrets.map((secret: { name: string }) => secret.name)).toEqual(["API_TOKEN"]);
  });

  test("asks only for what the chosen source needs, after the flags given", async () => {
    const t = runOnPty(["deploy", "create", "--name", "pty-image", "--source", "external_container"], {
      env: envFor(),
    });
    await t.waitFor("Container image URI");
    t.type(`registry.example.com/agent:2.0${ENTER}`);
    await t.waitFor("Create deployment 'pty-image'?");
    t.type(ENTER); // yes is the default
    const { code, output } = await t.finished();
    expect(code, plain(output)).toBe(0);
    for (const question of ["Deployment name", "Source", "Git integration", "Git repository"]) {
      expect(plain(output)).not.toContain(question);
    }
    const [created] = await deploymentsNamed("pty-image");
    expect(created.source_revision_config.image_uri).toBe("registry.example.com/agent:2.0");
  });

  test("a profile with confirm: true asks once, naming the profile", async () => {
    const cwd = freshDir("project");
    writeFileSync(
      join(cwd, ".cpctlrc.yaml"),
      `profiles:\n  guarded:\n    baseUrl: ${em.url}\n    confirm: true\n`,
    );
    const t = runOnPty(["deploy", "create", "--profile", "guarded", "--source", "internal_container"], {
      env: envFor(),
      cwd,
    });
    await t.waitFor("Deployment name");
    t.type(`pty-guarded${ENTER}`);
    await t.waitFor("The request (POST /v2/deployments)");
    await t.waitFor("profile guarded");
    await t.waitFor("?");
    t.type(`y${ENTER}`);
    const { code, output } = await t.finished();
    expect(code, plain(output)).toBe(0);
    expect(plain(output)).not.toContain("Create deployment 'pty-guarded'?");
    expect(await deploymentsNamed("pty-guarded")).toHaveLength(1);
  });

  test("declining the confirmation creates nothing and exits 1", async () => {
    const t = runOnPty(
      ["deploy", "create", "--source", "internal_source", "--agent-config-path", "agent.json"],
      {
        env: envFor(),
      },
    );
    await t.waitFor("Deployment name");
    t.type(`pty-declined${ENTER}`);
    await t.waitFor("Create deployment 'pty-declined'?");
    t.type(`n${ENTER}`);
    const { code, output } = await t.finished();
    expect(code).toBe(1);
    expect(plain(output)).toContain("cancelled: nothing was created");
    expect(await deploymentsNamed("pty-declined")).toEqual([]);
  });

  test("Ctrl-C at a prompt exits 130 saying 'cancelled': no stack trace, nothing created", async () => {
    const t = runOnPty(["deploy", "create", "--source", "internal_container"], { env: envFor() });
    await t.waitFor("Deployment name");
    t.type(CTRL_C);
    const { code, output } = await t.finished();
    expect(code).toBe(130);
    const text = plain(output);
    expect(text).toMatch(/\nerror: cancelled: nothing was changed\n/);
    expect(text).not.toMatch(/\n\s+at /);
    expect(text).not.toContain("ExitPromptError");
    const list = await em.get("/v2/deployments");
    expect(list.json.resources).toEqual([]);
  });

  test("no colour in the prompts under NO_COLOR", async () => {
    const t = runOnPty(["deploy", "create", "--name", "pty-plain", "--source", "external_container"], {
      env: envFor({ NO_COLOR: "1" }),
    });
    await t.waitFor("Container image URI");
    t.type(`registry.example.com/agent:3.0${ENTER}`);
    await t.waitFor("Create deployment 'pty-plain'?");
    t.type(`y${ENTER}`);
    const { code, output } = await t.finished();
    expect(code, plain(output)).toBe(0);
    expect(output).not.toMatch(SGR);
  });

  test("prompts are in colour on a terminal otherwise", async () => {
    const t = runOnPty(["deploy", "create", "--source", "internal_container"], { env: envFor() });
    await t.waitFor("Deployment name");
    expect(t.raw()).toMatch(SGR);
    t.type(CTRL_C);
    expect((await t.finished()).code).toBe(130);
  });

  test("with CI set, even on a terminal, nothing is asked: exit 2 naming the missing flags", async () => {
    const t = runOnPty(["deploy", "create", "--source", "gitrepo"], { env: envFor({ CI: "true" }) });
    const { code, output } = await t.finished();
    expect(code).toBe(2);
    const text = plain(output);
    expect(text).toContain(
      "missing required values: --name, --integration-id, --repo-url, --agent-config-path",
    );
    expect(text).toContain("Not prompting: CI is set");
    expect(text).not.toContain("Deployment name");
  });
});

/** Runs the built binary on pipes; stdin is left open, so a prompt would wait for ever. */
function runOnPipes(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(`still running after ${WAIT_MS} ms: it is waiting for input. stderr so far:\n${stderr}`),
      );
    }, WAIT_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("off a terminal", () => {
  test("in CI with stdin open it never waits: exit 2 naming every missing flag and the command to run", async () => {
    const result = await runOnPipes(["deploy", "create", "--deployment-type", "dev"], envFor({ CI: "true" }));
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("error: missing required values: --name, --source");
    // Without a source the flags each source needs are listed too.
    expect(result.stderr).toContain("gitrepo: --integration-id --repo-url --agent-config-path");
    expect(result.stderr).toContain("external_container: --image-uri");
    expect(result.stderr).toContain(
      "cpctl deploy create --deployment-type dev --name <name> --source <gitrepo|external_container|internal_container|internal_source>",
    );
    expect(await em.get("/v2/deployments").then((r) => r.json.resources)).toEqual([]);
  });

  test("with --no-input the missing flags of the source are named, and the re-run keeps the arguments quoted", async () => {
    const result = await runOnPipes(
      ["deploy", "create", "--source", "gitrepo", "--name", "my agent", "--no-input"],
      envFor(),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "missing required values: --integration-id, --repo-url, --agent-config-path",
    );
    expect(result.stderr).toContain("Not prompting: --no-input was given");
    expect(result.stderr).toContain(
      "cpctl deploy create --source gitrepo --name 'my agent' --no-input --integration-id <integration-uuid> --repo-url <git-url> --agent-config-path <path/to/agent.json>",
    );
  });

  test("in JSON mode the error is one JSON object that lists the missing flags", async () => {
    const result = await runOnPipes(
      ["deploy", "create", "--source", "external_container", "-o", "json"],
      envFor({ CI: "1" }),
    );
    expect(result.code).toBe(2);
    const error = JSON.parse(result.stderr).error;
    expect(error.code).toBe("usage");
    expect(error.details.missing).toEqual([
      { flag: "--name", field: "name" },
      { flag: "--image-uri", field: "source_revision_config.image_uri" },
    ]);
  });
});
