import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { frontOf } from "../helpers/front.js";
import { cliEnv, instantClock, previewOf, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const patches = (em: TestEmulator) =>
  Object.entries(em.emulator.stats().requests)
    .filter(([key]) => key.startsWith("PATCH"))
    .reduce((sum, [, n]) => sum + n, 0);
const revisionPolls = (em: TestEmulator) =>
  em.emulator.stats().requests["GET /v2/deployments/{deployment_id}/revisions/{revision_id}"] ?? 0;

describe("deploy patch", () => {
  it("sends only the fields given and says a new revision started", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("external_container", "api");
    const dry = await runCli(
      ["deploy", "patch", "api", "--image-uri", "ghcr.io/acme/api:2", "--dry-run", "-o", "json"],
      { env: cliEnv(em) },
    );
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({ source_revision_config: { image_uri: "ghcr.io/acme/api:2" } });
    expect(previewOf(dry.stderr)).toMatchObject({
      new_revision: true,
      revision_triggers: ["source_revision_config.image_uri"],
    });
    expect(patches(em)).toBe(0);

    const r = await runCli(["deploy", "patch", "api", "--image-uri", "ghcr.io/acme/api:2", "-o", "json"], {
      env: cliEnv(em),
    });
    expect(r.code).toBe(0);
    const updated = JSON.parse(r.stdout);
    expect(updated.latest_revision_id).not.toBe(d.latest_revision_id);
    expect(updated.source_revision_config.image_uri).toBe("ghcr.io/acme/api:2");
    expect(r.stderr).toContain(`new revision ${updated.latest_revision_id} started`);
  });

  it("says when no revision was triggered", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("gitrepo", "agent");
    const r = await runCli(
      ["deploy", "patch", d.id, "--no-build-on-push", "--install-command", "npm ci", "-o", "json"],
      { env: cliEnv(em) },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).latest_revision_id).toBe(d.latest_revision_id);
    expect(r.stderr).toContain("no new revision");
  });

  it("refuses a non-changeable field, naming it, without sending", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("gitrepo", "agent");
    const r = await runCli(["deploy", "patch", "agent", "--repo-url", "https://github.com/other/repo"], {
      env: cliEnv(em),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--repo-url (source_config.repo_url): cannot be changed after creation");
    const viaSet = await runCli(["deploy", "patch", "agent", "--set", "source_config.deployment_type=prod"], {
      env: cliEnv(em),
    });
    expect(viaSet.code).toBe(2);
    expect(viaSet.stderr).toContain("--set source_config.deployment_type: cannot be changed after creation");
    expect(patches(em)).toBe(0);
  });

  it("needs something to change, and a known deployment", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("gitrepo", "agent");
    const empty = await runCli(["deploy", "patch", "agent"], { env: cliEnv(em) });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("nothing to change");
    const missing = await runCli(["deploy", "patch", "ghost", "--repo-ref", "x"], { env: cliEnv(em) });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("no deployment named 'ghost'");
    expect(patches(em)).toBe(0);
  });

  it("--wait follows the new revision to DEPLOYED", async () => {
    const em = await startTestEmulator({ stageMs: 60_000 });
    const d = await em.createDeployment("gitrepo", "agent");
    const clock = instantClock(Date.now(), (ms) => em.advance(ms));
    const r = await runCli(
      ["deploy", "patch", "agent", "--repo-ref", "release", "--wait", "--interval", "1s"],
      { env: cliEnv(em), clock },
    );
    expect(r.code).toBe(0);
    const latest = (await em.get(`/v2/deployments/${d.id}`)).json.latest_revision_id;
    expect(latest).not.toBe(d.latest_revision_id);
    expect(r.stderr).toMatch(new RegExp(`revision ${latest}: BUILDING[\\s\\S]*revision ${latest}: DEPLOYED`));
  });
});

describe("deploy wait", () => {
  it("polls until DEPLOYED, reports status changes on stderr and prints the JSON verdict", async () => {
    // Stages as long as the longest poll gap, so that no status goes unseen.
    const em = await startTestEmulator({ stageMs: 60_000 });
    const d = await em.createDeployment("gitrepo", "agent");
    const clock = instantClock(Date.now(), (ms) => em.advance(ms));
    const r = await runCli(["deploy", "wait", "agent", "-o", "json", "--interval", "1s"], {
      env: cliEnv(em),
      clock,
    });
    expect(r.code).toBe(0);
    const verdict = JSON.parse(r.stdout);
    expect(verdict).toEqual({
      deployment_id: d.id,
      revision_id: d.latest_revision_id,
      status: "DEPLOYED",
      result: "deployed",
      elapsed_seconds: expect.any(Number),
    });
    expect(Object.keys(verdict)).toEqual([
      "deployment_id",
      "revision_id",
      "status",
      "result",
      "elapsed_seconds",
    ]);
    const lines = r.stderr.trim().split("\n");
    for (const status of [
      "CREATING",
      "QUEUED",
      "AWAITING_BUILD",
      "BUILDING",
      "AWAITING_DEPLOY",
      "DEPLOYING",
      "DEPLOYED",
    ]) {
      expect(lines.filter((l) => l.includes(`: ${status} (`))).toHaveLength(1);
    }
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z revision /);
  });

  it("polls every --interval however long the wait runs (no backoff on success), with a heartbeat a minute off a terminal", async () => {
    const em = await startTestEmulator({ stageMs: 10 * 60_000 });
    await em.createDeployment("internal_container", "slow");
    const clock = instantClock(Date.now(), (ms) => em.advance(ms));
    const r = await runCli(["deploy", "wait", "slow", "--interval", "5s", "--timeout", "1h"], {
      env: cliEnv(em),
      clock,
    });
    expect(r.code).toBe(0);
    expect(new Set(clock.sleeps)).toEqual(new Set([5000]));
    // Forty minutes of stages at one poll every 5 s.
    expect(clock.sleeps.length).toBeGreaterThanOrEqual(40 * 12);
    // A heartbeat every minute, but in the minutes a new status was printed (every ten).
    const heartbeats = [...r.stderr.matchAll(/: still [A-Z_]+ after (\d+)m00s$/gm)].map((m) => Number(m[1]));
    expect(heartbeats).toEqual(Array.from({ length: 40 }, (_, minute) => minute).filter((m) => m % 10 !== 0));
  });

  it("backs off only while polls fail, and goes back to --interval after a success", async () => {
    const em = await startTestEmulator({ stageMs: 60_000 });
    const d = await em.createDeployment("internal_container", "flaky");
    em.emulator.addFault({
      method: "GET",
      path: `/v2/deployments/${d.id}/revisions/*`,
      status: 503,
      count: 3,
    });
    const clock = instantClock(Date.now(), (ms) => em.advance(ms));
    const r = await runCli(["deploy", "wait", "flaky", "--interval", "2s"], { env: cliEnv(em), clock });
    expect(r.code, r.stderr).toBe(0);
    // Three failed polls: 2, 3, 4.5 s; then back to 2 s.
    expect(clock.sleeps.slice(0, 5)).toEqual([2000, 3000, 4500, 2000, 2000]);
  });

  it("exits 5 on each unsuccessful terminal status", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    for (const [stage, status] of [
      ["QUEUED", "CREATE_FAILED"],
      ["BUILDING", "BUILD_FAILED"],
      ["DEPLOYING", "DEPLOY_FAILED"],
    ] as const) {
      const d = await em.createDeployment("gitrepo", `f-${stage}`);
      em.emulator.failRevision(d.id, d.latest_revision_id, stage);
      const clock = instantClock(Date.now(), (ms) => em.advance(ms));
      const r = await runCli(["deploy", "wait", d.id, "-o", "json", "--interval", "1s"], {
        env: cliEnv(em),
        clock,
      });
      expect(r.code).toBe(5);
      expect(JSON.parse(r.stdout.slice(0, r.stdout.lastIndexOf("}") + 1))).toMatchObject({
        status,
        result: "failed",
      });
      expect(r.stderr).toContain(`ended ${status}`);
    }
  });

  it("treats SKIPPED and INTERRUPTED revisions as failures (exit 5), never as success", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const d = await em.createDeployment("gitrepo", "superseded");
    const first = d.latest_revision_id;
    await em.patch(`/v2/deployments/${d.id}`, { source_revision_config: { repo_ref: "next" } });
    const r = await runCli(["deploy", "wait", d.id, "--revision", first, "-o", "json"], { env: cliEnv(em) });
    expect(r.code).toBe(5);
    expect(["SKIPPED", "INTERRUPTED"]).toContain(JSON.parse(r.stdout).status);
  });

  it("exits 6 with the resume command when --timeout passes", async () => {
    const em = await startTestEmulator({ stageMs: 60 * 60_000 });
    const d = await em.createDeployment("gitrepo", "stuck");
    const clock = instantClock(Date.now(), (ms) => em.advance(ms));
    const r = await runCli(
      ["deploy", "wait", "stuck", "--timeout", "2m", "--interval", "10s", "-o", "json"],
      { env: cliEnv(em), clock },
    );
    expect(r.code).toBe(6);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: "timed_out", status: "CREATING" });
    expect(r.stderr).toContain(`cpctl deploy wait ${d.id} --revision ${d.latest_revision_id}`);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(120_000);
  });

  it("exits 130 on Ctrl-C and prints the command that resumes the wait", async () => {
    const em = await startTestEmulator({ stageMs: 60 * 60_000 });
    const d = await em.createDeployment("gitrepo", "ctrl-c");
    const controller = new AbortController();
    const clock = instantClock(Date.now(), () => controller.abort());
    const r = await runCli(["deploy", "wait", "ctrl-c", "-o", "json"], {
      env: cliEnv(em),
      clock,
      signal: controller.signal,
    });
    expect(r.code).toBe(130);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: "interrupted" });
    expect(r.stderr).toContain(`Resume with: cpctl deploy wait ${d.id} --revision ${d.latest_revision_id}`);
  });

  it("survives transient errors and honours Retry-After", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const d = await em.createDeployment("internal_container", "flaky");
    em.emulator.addFault({
      method: "GET",
      path: `/v2/deployments/${d.id}/revisions/*`,
      status: 503,
      retry_after: 7,
      count: 6,
    });
    const clock = instantClock(Date.now(), (ms) => em.advance(ms));
    const r = await runCli(["deploy", "wait", d.id, "--revision", d.latest_revision_id, "--interval", "1s"], {
      env: cliEnv(em),
      clock,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("poll failed, retrying");
    expect(clock.sleeps.filter((ms) => ms === 7000).length).toBeGreaterThanOrEqual(2);
  });

  it("stops at once on a 404 (exit 4) and explains a deployment with no revision", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("gitrepo", "gone");
    const unknown = "0f0f0f0f-0000-4000-8000-000000000000";
    const r = await runCli(["deploy", "wait", d.id, "--revision", unknown], { env: cliEnv(em) });
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(`error: Revision ID ${unknown} not found.\n`);
    // One poll, not retried as a poll that failed.
    expect(revisionPolls(em)).toBe(1);

    // The emulator always starts a revision; a service that answers a deployment without one
    // is played by a front that blanks latest_revision_id.
    const front = await frontOf(em, {
      rewrite: (answer, request) =>
        request.url === `/v2/deployments/${d.id}`
          ? JSON.stringify({ ...answer.json, latest_revision_id: null })
          : answer.text,
    });
    const none = await runCli(["deploy", "wait", d.id], {
      env: { CPCTL_BASE_URL: front.url, CPCTL_API_KEY: em.apiKey },
    });
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(`error: deployment ${d.id} has no revision to wait for\n`);
    expect(revisionPolls(em)).toBe(1);
  });
});

describe("deploy wait on a revision that had ended before the wait", () => {
  it("says 'already DEPLOYED', keeps the JSON verdict as it is, and 'had already ended' for a failure", async () => {
    const em = await startTestEmulator();
    const ok = await em.createDeployment("internal_container", "done");
    em.settle();
    const text = await runCli(["deploy", "wait", "done"], { env: cliEnv(em) });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toMatch(/revision [0-9a-f-]{36}: already DEPLOYED\n/);
    expect(text.stderr).not.toMatch(/DEPLOYED \(/);
    expect(text.stdout).toContain("ELAPSED\talready");
    const json = await runCli(["deploy", "wait", "done", "-o", "json"], { env: cliEnv(em) });
    expect(Object.keys(JSON.parse(json.stdout))).toEqual([
      "deployment_id",
      "revision_id",
      "status",
      "result",
      "elapsed_seconds",
    ]);
    expect(JSON.parse(json.stdout)).toMatchObject({ revision_id: ok.latest_revision_id, result: "deployed" });

    em.emulator.failNextRevision({ stage: "DEPLOYING" });
    await em.createDeployment("internal_container", "broken");
    em.settle();
    const failed = await runCli(["deploy", "wait", "broken"], { env: cliEnv(em) });
    expect(failed.code).toBe(5);
    expect(failed.stderr).toMatch(/error: revision [0-9a-f-]{36} had already ended DEPLOY_FAILED\n/);
  });
});

describe("a patch that interrupts a revision on its way (issue 36)", () => {
  it("says so in its preview, text and JSON; none when the latest is the active one", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const d = await em.createDeployment("internal_container", "api");
    em.settle();
    const building = await em.patch(`/v2/deployments/${d.id}`, {
      source_revision_config: { image_uri: "example.com/a:2" },
    });
    const json = await runCli(
      ["deploy", "patch", "api", "--image-uri", "example.com/a:3", "--dry-run", "-o", "json"],
      {
        env: cliEnv(em),
      },
    );
    expect(json.code, json.stderr).toBe(0);
    expect(previewOf(json.stderr)).toMatchObject({
      interrupts: { revision_id: building.json.latest_revision_id, status: "CREATING" },
    });
    const text = await runCli(["deploy", "patch", "api", "--image-uri", "example.com/a:3", "--dry-run"], {
      env: cliEnv(em),
    });
    expect(text.stderr).toContain(
      `revision ${building.json.latest_revision_id} is still CREATING: the new revision replaces it, and it ends unfinished`,
    );
    em.settle();
    const after = await runCli(
      ["deploy", "patch", "api", "--image-uri", "example.com/a:3", "--dry-run", "-o", "json"],
      {
        env: cliEnv(em),
      },
    );
    expect(previewOf(after.stderr)).toMatchObject({ interrupts: null });
  });
});
