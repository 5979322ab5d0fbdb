// Why a revision failed is on stdout too (issue 36, point 6): every command that waits puts
// `failure: {stage, message, log_tail}` in its result when the revision failed, the log masked.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { cliEnv, freshDir, instantClock, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const run = (em: TestEmulator, args: string[]) =>
  runCli([...args, "--interval", "1s"], {
    env: cliEnv(em),
    clock: instantClock(Date.now(), (ms) => em.advance(ms)),
  });

function project(): string {
  const root = freshDir("failure-result");
  writeFileSync(join(root, "agent.json"), '{"graphs":{"agent":"./agent.py:graph"}}');
  writeFileSync(join(root, "agent.py"), "graph = None\n");
  return root;
}

describe("failure on stdout", () => {
  it("deploy push -o json: the stage, the error and the end of the log, its secrets masked", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    em.emulator.failNextRevision({
      stage: "BUILDING",
      message: "error: pip install failed for token-value-77",
    });
    const dir = project();
    // The rule hits the first revision that builds: the create's placeholder never builds.
    const created = await em.createDeployment("internal_source", "agent");
    expect(created.id).toBeTruthy();
    const r = await run(em, [
      "deploy",
      "push",
      dir,
      "--name",
      "agent",
      "--secret",
      "TOKEN=token-value-77",
      "-o",
      "json",
    ]);
    expect(r.code).toBe(5);
    const result = JSON.parse(r.stdout);
    expect(result.result).toBe("failed");
    expect(result.failure).toMatchObject({
      stage: "BUILDING",
      message: "error: pip install failed for ****",
    });
    expect(result.failure.log_tail.at(-1).message).toBe("error: pip install failed for ****");
    expect(r.stdout).not.toContain("token-value-77");
  });

  it("deploy push: a success carries failure: null", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const r = await run(em, ["deploy", "push", project(), "--name", "agent", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).failure).toBeNull();
  });

  it("deploy patch --wait -o json: the Deployment with result and failure; without a failure, the Deployment alone", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const created = await em.createDeployment("internal_container", "api");
    em.settle();
    em.emulator.failNextRevision({ stage: "DEPLOYING", message: "CrashLoopBackOff" });
    const failed = await run(em, [
      "deploy",
      "patch",
      "api",
      "--image-uri",
      "example.com/a:2",
      "--wait",
      "-o",
      "json",
    ]);
    expect(failed.code).toBe(5);
    const printed = JSON.parse(failed.stdout);
    expect(printed).toMatchObject({ id: created.id, result: "failed", failure: { stage: "DEPLOYING" } });
    expect(printed.failure.message).toContain("CrashLoopBackOff");
    const ok = await run(em, [
      "deploy",
      "patch",
      "api",
      "--image-uri",
      "example.com/a:3",
      "--wait",
      "-o",
      "json",
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).not.toHaveProperty("failure");
  });

  it("deploy wait -o json: the verdict with failure", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const created = await em.createDeployment("internal_container", "api");
    em.settle();
    em.emulator.failNextRevision({ stage: "AWAITING_DEPLOY" });
    await em.patch(`/v2/deployments/${created.id}`, {
      source_revision_config: { image_uri: "example.com/a:2" },
    });
    const r = await run(em, ["deploy", "wait", "api", "-o", "json"]);
    expect(r.code).toBe(5);
    const verdict = JSON.parse(r.stdout);
    expect(verdict).toMatchObject({
      result: "failed",
      status: "DEPLOY_FAILED",
      failure: { stage: "AWAITING_DEPLOY" },
    });
    expect(verdict.failure.log_tail.length).toBeGreaterThan(0);
  });
});
