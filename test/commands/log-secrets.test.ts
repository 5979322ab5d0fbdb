// A secret value in a log line never reaches a person (issue 32, point 3): a build log that
// prints a secret of the run (a --secret, a secrets file, the deployment's own secrets once
// read) shows `****` in its place wherever its lines are shown: streamed while waiting
// (--logs), the failure's tail, the JSON error's details, -o ndjson's log events and
// `deploy logs`, read from the v2 endpoint or, once the service answered that 404, from /v1.
// Only --show-secrets shows them.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { cliEnv, freshDir, instantClock, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const GIVEN = "given-token-5821";
const FROM_FILE = "file-token-7734";
const KEPT = "kept-token-9946";

function run(em: TestEmulator, args: string[]) {
  const waits = args[1] === "push" || args.includes("--wait");
  return runCli(waits ? [...args, "--interval", "1s"] : args, {
    env: cliEnv(em),
    clock: instantClock(Date.now(), (ms) => em.advance(ms)),
  });
}

function project(): string {
  const root = freshDir("log-secrets");
  writeFileSync(join(root, "agent.json"), '{"graphs":{"agent":"./agent.py:graph"}}');
  writeFileSync(join(root, "agent.py"), "graph = None\n");
  return root;
}

/** A build that fails with a log line quoting each value. */
function failBuildQuoting(em: TestEmulator, ...values: string[]) {
  em.emulator.failNextRevision({
    stage: "BUILDING",
    message: `error: the registry refused ${values.map((value) => `'${value}'`).join(" and ")}`,
  });
}

function expectNone(text: string, ...values: string[]) {
  for (const value of values) {
    expect(text).not.toContain(value);
    // Nor a piece of it.
    expect(text).not.toContain(value.slice(0, 8));
  }
}

/** A deployment pushed once, holding the secret KEPT. */
async function pushedWithSecret(em: TestEmulator, dir: string): Promise<void> {
  const first = await run(em, ["deploy", "push", dir, "--name", "agent", "--secret", `KEPT=${KEPT}`]);
  expect(first.code, first.stderr).toBe(0);
}

describe("secret values in build logs", () => {
  it("deploy push --logs: masked streamed and in the failure's tail, a flag's, a file's and the deployment's own", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project();
    await pushedWithSecret(em, dir);
    writeFileSync(join(dir, "agent.py"), "graph = 'v2'\n");
    const secretsFile = join(freshDir("log-secrets-file"), "prod.env");
    writeFileSync(secretsFile, `FILE_TOKEN=${FROM_FILE}\n`);
    failBuildQuoting(em, GIVEN, FROM_FILE, KEPT);
    const r = await run(em, [
      "deploy",
      "push",
      dir,
      "--name",
      "agent",
      "--logs",
      "--secret",
      `GIVEN=${GIVEN}`,
      "--secrets-file",
      secretsFile,
    ]);
    expect(r.code).toBe(5);
    // Streamed (`  | ` lines) and in the tail, both with the mask in place of each value.
    expect(r.stderr).toMatch(/^ {2}\| .*the registry refused '\*\*\*\*' and '\*\*\*\*' and '\*\*\*\*'$/m);
    expect(r.stderr).toMatch(/^ {2}\S.*the registry refused '\*\*\*\*' and '\*\*\*\*' and '\*\*\*\*'$/m);
    expectNone(r.stdout + r.stderr, GIVEN, FROM_FILE, KEPT);
  });

  it("deploy push -o json and -o ndjson: the error's tail and the log events masked", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project();
    await pushedWithSecret(em, dir);
    for (const format of ["json", "ndjson"]) {
      writeFileSync(join(dir, "agent.py"), `graph = '${format}'\n`);
      failBuildQuoting(em, KEPT);
      const r = await run(em, ["deploy", "push", dir, "--name", "agent", "--logs", "-o", format]);
      expect(r.code).toBe(5);
      expect(r.stdout + r.stderr).toContain("the registry refused '****'");
      expectNone(r.stdout + r.stderr, KEPT);
    }
  });

  it("deploy patch --wait --logs: the secret it sets, and the deployment's, masked", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    await pushedWithSecret(em, project());
    failBuildQuoting(em, GIVEN, KEPT);
    const r = await run(em, ["deploy", "patch", "agent", "--secret", `GIVEN=${GIVEN}`, "--wait", "--logs"]);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^ {2}\| .*the registry refused '\*\*\*\*' and '\*\*\*\*'$/m);
    expect(r.stderr).toContain("The last");
    expectNone(r.stdout + r.stderr, GIVEN, KEPT);
  });

  it("deploy logs --build of a deployment read by name: its secrets masked; --show-secrets shows them", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project();
    await pushedWithSecret(em, dir);
    writeFileSync(join(dir, "agent.py"), "graph = 'v2'\n");
    failBuildQuoting(em, KEPT);
    expect((await run(em, ["deploy", "push", dir, "--name", "agent"])).code).toBe(5);

    for (const format of ["table", "json"]) {
      const r = await run(em, ["deploy", "logs", "agent", "--build", "-o", format]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("the registry refused '****'");
      expectNone(r.stdout + r.stderr, KEPT);
    }
    const shown = await run(em, ["deploy", "logs", "agent", "--build", "--show-secrets"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`the registry refused '${KEPT}'`);
  });

  it("read from /v1 after v2 answered 404: masked the same, streamed, in the tail and in deploy logs", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project();
    await pushedWithSecret(em, dir);
    em.emulator.addFault({ path: "/v2/deployments/*/revisions/*/logs", status: 404, count: 1000 });
    writeFileSync(join(dir, "agent.py"), "graph = 'v1'\n");
    failBuildQuoting(em, GIVEN, KEPT);
    const r = await run(em, [
      "deploy",
      "push",
      dir,
      "--name",
      "agent",
      "--logs",
      "--secret",
      `GIVEN=${GIVEN}`,
    ]);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^ {2}\| .*the registry refused '\*\*\*\*' and '\*\*\*\*'$/m);
    expect(r.stderr).toMatch(/^ {2}\S.*the registry refused '\*\*\*\*' and '\*\*\*\*'$/m);
    expectNone(r.stdout + r.stderr, GIVEN, KEPT);
    const logs = await run(em, ["deploy", "logs", "agent", "--build"]);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toContain("the registry refused '****' and '****'");
    expectNone(logs.stdout + logs.stderr, KEPT);
    const requests = em.emulator.stats().requests;
    expect(requests["POST /v1/projects/{deployment_id}/revisions/{revision_id}/build_logs"]).toBeGreaterThan(
      2,
    );
  });
});
