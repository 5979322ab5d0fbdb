// Verified releases and automatic rollback (issue 33, point 3; CLI.md "Releases"): --verify
// checks the new revision's address once it is DEPLOYED, --verify-cmd runs the user's check,
// --rollback-on-failure goes back to the revision active before the change, only when the new
// one replaced it, waits for it and verifies it; exit 7 when unverified, 5 when failed.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { cliEnv, freshDir, instantClock, runCli } from "../helpers/run-cli.js";
import { ctrlCAt, emulatorEvent } from "../reliability/helpers.js";

afterEach(closeTestEmulators);

function run(em: TestEmulator, args: string[], env: Record<string, string> = {}, signal?: AbortSignal) {
  return runCli([...args, "--interval", "1s"], {
    env: cliEnv(em, env),
    clock: instantClock(Date.now(), (ms) => em.advance(ms)),
    ...(signal ? { signal } : {}),
  });
}

function project(version: string): string {
  const root = freshDir("verify");
  writeFileSync(join(root, "agent.json"), '{"graphs":{"agent":"./agent.py:graph"}}');
  writeFileSync(join(root, "agent.py"), `graph = '${version}'\n`);
  return root;
}

async function deployment(em: TestEmulator, name: string) {
  return (await em.get(`/v2/deployments?name=${name}`)).json.resources[0];
}

async function revision(em: TestEmulator, deploymentId: string, revisionId: string) {
  return (await em.get(`/v2/deployments/${deploymentId}/revisions/${revisionId}`)).json;
}

/** A deployment `agent` running version A, healthy. */
async function pushedA(em: TestEmulator): Promise<{ sha: string; revisionId: string }> {
  const first = await run(em, ["deploy", "push", project("A"), "--name", "agent", "-o", "json"]);
  expect(first.code, first.stderr).toBe(0);
  const result = JSON.parse(first.stdout);
  return { sha: result.sha256, revisionId: result.revision.id };
}

describe("deploy push --verify", () => {
  it("a revision that answers: verified, at the first check", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const r = await run(em, ["deploy", "push", project("A"), "--name", "agent", "--verify", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({
      result: "verified",
      verification: { result: "verified", attempts: 1, reason: null, url: result.url },
      rollback: null,
    });
    expect(r.stderr).toContain(
      `revision ${result.revision.id} verified: ${result.url}/ok answered {"ok": true}`,
    );
  });

  it("a revision that never answers ok: unverified after --verify-timeout, exit 7, nothing rolled back", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const a = await pushedA(em);
    const d = await deployment(em, "agent");
    em.emulator.setHealth(d.id, false);
    const r = await run(em, [
      "deploy",
      "push",
      project("B"),
      "--name",
      "agent",
      "--verify",
      "--verify-timeout",
      "5s",
      "-o",
      "json",
    ]);
    expect(r.code).toBe(7);
    const result = JSON.parse(r.stdout);
    expect(result.result).toBe("unverified");
    expect(result.verification.attempts).toBe(6);
    expect(result.verification.reason).toMatch(/^failing \(HTTP 500: Revision .* is unhealthy/);
    expect(result.rollback).toBeNull();
    const error = JSON.parse(r.stderr.trim().split("\n").at(-1)!).error;
    expect(error.code).toBe("unverified");
    expect(error.message).toContain(`revision ${result.revision.id} is DEPLOYED but failed its verification`);
    expect(error.message).toContain(`Nothing was rolled back: revision ${result.revision.id} serves.`);
    // Off a terminal, one line per change of answer, not per attempt.
    expect(r.stderr.match(/^verifying revision /gm)).toHaveLength(1);
    expect((await deployment(em, "agent")).active_revision_id).not.toBe(a.revisionId);
  });

  it("on a terminal, every attempt is shown", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    await pushedA(em);
    em.emulator.setHealth((await deployment(em, "agent")).id, false);
    const r = await runCli(
      ["deploy", "push", project("B"), "--name", "agent", "--verify-timeout", "3s", "--interval", "1s"],
      {
        env: cliEnv(em),
        clock: instantClock(Date.now(), (ms) => em.advance(ms)),
        tty: { stderr: true },
      },
    );
    expect(r.code).toBe(7);
    // (Dimmed on a terminal: the colour codes sit between the revision and the attempt.)
    const attempts = r.stderr.match(/^verifying revision .*attempt \d+, /gm) ?? [];
    expect(attempts).toHaveLength(4);
  });

  it("--rollback-on-failure: back to the revision active before, waited for and verified; exit 7", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const a = await pushedA(em);
    em.emulator.setHealth((await deployment(em, "agent")).id, false);
    const r = await run(em, [
      "deploy",
      "push",
      project("B"),
      "--name",
      "agent",
      "--verify-timeout",
      "3s",
      "--rollback-on-failure",
      "-o",
      "json",
    ]);
    expect(r.code).toBe(7);
    const result = JSON.parse(r.stdout);
    expect(result.result).toBe("unverified");
    expect(result.rollback).toMatchObject({ status: "DEPLOYED", result: "verified" });
    const now = await deployment(em, "agent");
    expect(now.active_revision_id).toBe(result.rollback.revision_id);
    // The rollback runs what ran before: A's tarball.
    expect((await revision(em, now.id, now.active_revision_id)).source_tarball_sha256).toBe(a.sha);
    expect(result.deployment.active_revision_id).toBe(result.rollback.revision_id);
    expect(r.stderr).toContain(
      `rolling back agent to revision ${a.revisionId}, the one active before this change`,
    );
  });

  it("--rollback-on-failure after a failed build: nothing to roll back, the good revision serves; exit 5", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const a = await pushedA(em);
    em.emulator.failNextRevision({ stage: "BUILDING" });
    const r = await run(em, [
      "deploy",
      "push",
      project("B"),
      "--name",
      "agent",
      "--verify",
      "--rollback-on-failure",
      "-o",
      "json",
    ]);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: "failed", verification: null, rollback: null });
    expect(r.stderr).toContain(`never replaced revision ${a.revisionId}, which still serves`);
    expect((await deployment(em, "agent")).active_revision_id).toBe(a.revisionId);
  });

  it("a first release that fails its check: nothing to roll back to", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const created = await em.createDeployment("internal_source", "agent");
    em.emulator.setHealth(created.id, false);
    const r = await run(em, [
      "deploy",
      "push",
      project("A"),
      "--name",
      "agent",
      "--verify-timeout",
      "2s",
      "--rollback-on-failure",
    ]);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/nothing to roll back to: no revision of agent was active before revision/);
  });

  it("--no-wait with --verify or --rollback-on-failure: exit 2, nothing sent", async () => {
    const em = await startTestEmulator();
    for (const flag of ["--verify", "--rollback-on-failure", "--verify-cmd=true"]) {
      const r = await run(em, ["deploy", "push", project("A"), "--name", "agent", "--no-wait", flag]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("need the wait: leave out --no-wait");
    }
    expect(em.emulator.stats().total).toBe(0);
  });
});

describe("--verify-cmd", () => {
  it("runs through the shell with the release in its environment, its output on stderr", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const seen = join(freshDir("verify-cmd"), "seen.txt");
    const r = await run(em, [
      "deploy",
      "push",
      project("A"),
      "--name",
      "agent",
      "--verify-cmd",
      `echo "checking $CPCTL_DEPLOYMENT_URL"; printf '%s %s %s' "$CPCTL_DEPLOYMENT_URL" "$CPCTL_DEPLOYMENT_ID" "$CPCTL_REVISION_ID" > '${seen}'`,
      "-o",
      "json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.result).toBe("verified");
    expect(readFileSync(seen, "utf8")).toBe(`${result.url} ${result.deployment.id} ${result.revision.id}`);
    expect(r.stderr).toContain(`checking ${result.url}`);
  });

  it("a command that fails makes the release unverified: exit 7, and rolls back when asked", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const a = await pushedA(em);
    const r = await run(em, [
      "deploy",
      "push",
      project("B"),
      "--name",
      "agent",
      "--verify-cmd",
      'echo "smoke test failed" >&2; exit 3',
      "--rollback-on-failure",
      "-o",
      "json",
    ]);
    expect(r.code).toBe(7);
    const result = JSON.parse(r.stdout);
    expect(result.verification.reason).toBe("--verify-cmd exited with 3");
    expect(r.stderr).toContain("smoke test failed");
    // The rollback is verified the same way, the command included: it fails too.
    expect(result.rollback.result).toBe("unverified");
    const now = await deployment(em, "agent");
    expect((await revision(em, now.id, now.active_revision_id)).source_tarball_sha256).toBe(a.sha);
  });
});

describe("patch, apply, rollback, redeploy --verify", () => {
  it("patch: the deployment printed with result, verification and rollback", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const created = await em.createDeployment("internal_container", "api");
    em.settle();
    em.emulator.setHealth(created.id, false);
    const r = await run(em, [
      "deploy",
      "patch",
      "api",
      "--image-uri",
      "example.com/api:2",
      "--verify-timeout",
      "2s",
      "--rollback-on-failure",
      "-o",
      "json",
    ]);
    expect(r.code).toBe(7);
    const printed = JSON.parse(r.stdout);
    expect(printed).toMatchObject({
      name: "api",
      result: "unverified",
      verification: { result: "unverified" },
      rollback: { status: "DEPLOYED", result: "verified" },
    });
    expect(printed.source_revision_config.image_uri).toBe(created.source_revision_config.image_uri);
  });

  it("rollback and redeploy --verify: verified; without the flags the JSON is the Deployment alone", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const created = await em.createDeployment("internal_container", "api");
    em.settle();
    await em.patch(`/v2/deployments/${created.id}`, {
      source_revision_config: { image_uri: "example.com/api:2" },
    });
    em.settle();
    const back = await run(em, ["deploy", "rollback", "api", "--verify", "-o", "json"]);
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({ result: "verified", rollback: null });
    const again = await run(em, ["deploy", "redeploy", "api", "--wait", "-o", "json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).not.toHaveProperty("result");
  });

  it("apply --verify: the file's change, checked", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const file = join(freshDir("verify-apply"), "api.yaml");
    writeFileSync(
      file,
      "name: api\nsource: internal_container\nsource_config: {}\nsource_revision_config:\n  image_uri: example.com/api:1\nsecrets: []\n",
    );
    const r = await run(em, ["deploy", "apply", "-f", file, "--verify", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe("verified");
  });
});

describe("around a release", () => {
  it("Ctrl-C during the verification: exit 130, saying the revision serves unverified and how to look", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    await pushedA(em);
    em.emulator.setHealth((await deployment(em, "agent")).id, false);
    const checked = emulatorEvent(em, (event) => event.route === "GET /{deployment_id}/ok");
    const r = await ctrlCAt(
      checked,
      ["deploy", "push", project("B"), "--name", "agent", "--verify", "--interval", "1s"],
      {
        env: cliEnv(em),
        clock: instantClock(Date.now(), (ms) => em.advance(ms)),
      },
    );
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(
      /interrupted while verifying revision \S+ of agent: it is DEPLOYED and serves at http:\S+, unverified; nothing was rolled back/,
    );
    expect(r.stderr).toMatch(/See its health with: cpctl deploy status [0-9a-f-]{36}/);
  });

  it("GitHub Actions: result unverified in the outputs; the summary shows the verification and the rollback", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    await pushedA(em);
    em.emulator.setHealth((await deployment(em, "agent")).id, false);
    const dir = freshDir("verify-gha");
    const outputs = join(dir, "outputs");
    const summary = join(dir, "summary.md");
    writeFileSync(outputs, "");
    writeFileSync(summary, "");
    const r = await run(
      em,
      ["deploy", "push", project("B"), "--name", "agent", "--verify-timeout", "2s", "--rollback-on-failure"],
      { GITHUB_ACTIONS: "true", CI: "true", GITHUB_OUTPUT: outputs, GITHUB_STEP_SUMMARY: summary },
    );
    expect(r.code).toBe(7);
    expect(readFileSync(outputs, "utf8")).toContain("result=unverified\n");
    const text = readFileSync(summary, "utf8");
    expect(text).toContain("⚠️ unverified");
    expect(text).toMatch(/\| Verification \| unverified: failing \(HTTP 500/);
    expect(text).toMatch(/\| Rollback \| `[0-9a-f-]{36}`: DEPLOYED \(verified\) \|/);
  });
});
