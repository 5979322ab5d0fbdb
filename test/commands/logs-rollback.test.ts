// See inside a revision and undo it: `deploy logs` (paging, filters, following), the failure
// tail of every wait, `--logs` while waiting, `deploy rollback` and `deploy redeploy`, all
// against the emulator on its clock (the CLI's instant clock moves it in step).
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { allLogs, buildLogsPath, deployLogsPath } from "../helpers/logs.js";
import { cliEnv, instantClock, previewOf, runCli } from "../helpers/run-cli.js";
import { jsonError } from "../reliability/helpers.js";

afterEach(closeTestEmulators);

const STAGE = 60_000;

/** A clock whose sleeps move the emulator's clock too; `stopAfter` aborts after that many sleeps. */
function steppedClock(em: TestEmulator, stopAfter?: { sleeps: number; controller: AbortController }) {
  let count = 0;
  return instantClock(em.emulator.now(), (ms) => {
    em.advance(ms);
    if (stopAfter && ++count >= stopAfter.sleeps) stopAfter.controller.abort();
  });
}

const lines = (text: string) => text.split("\n").filter(Boolean);

describe("deploy logs", () => {
  it("the runtime log: the newest --limit entries, oldest first, across pages", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const d = await em.createDeployment("internal_container", "svc");
    em.advance(3_600_000); // an hour of request lines, one every 5 s
    const { entries } = await allLogs(em, deployLogsPath(d.id), { order: "asc", limit: 1000 });
    expect(entries.length).toBeGreaterThan(300);

    const r = await runCli(["deploy", "logs", "svc", "--limit", "250", "-o", "json"], { env: cliEnv(em) });
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout) as { id: string }[];
    expect(shown.map((e) => e.id)).toEqual(entries.slice(-250).map((e) => e.id));

    const text = await runCli(["deploy", "logs", "svc", "--limit", "3"], { env: cliEnv(em) });
    expect(lines(text.stdout)).toEqual(
      entries.slice(-3).map((e) => `${e.timestamp} ${e.level.padEnd(8)} ${e.message}`),
    );
    const nd = await runCli(["deploy", "logs", "svc", "--limit", "5", "-o", "ndjson"], { env: cliEnv(em) });
    expect(lines(nd.stdout).map((line) => JSON.parse(line).id)).toEqual(entries.slice(-5).map((e) => e.id));
  });

  it("--level (at least), --grep, --since and --until filter; a wrong level is exit 2", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    await em.createDeployment("internal_container", "svc");
    em.advance(600_000);
    const env = cliEnv(em);
    const clock = instantClock(em.emulator.now());
    const warnings = await runCli(["deploy", "logs", "svc", "--level", "warning", "-o", "json"], {
      env,
      clock,
    });
    const levels = new Set((JSON.parse(warnings.stdout) as { level: string }[]).map((e) => e.level));
    expect(levels.size).toBeGreaterThan(0);
    for (const level of levels) expect(["WARNING", "ERROR", "CRITICAL"]).toContain(level);
    const grep = await runCli(["deploy", "logs", "svc", "--grep", "health", "-o", "json"], { env, clock });
    const grepped = JSON.parse(grep.stdout) as { message: string }[];
    expect(grepped.length).toBeGreaterThan(0);
    for (const e of grepped) expect(e.message.toLowerCase()).toContain("health");
    const since = await runCli(["deploy", "logs", "svc", "--since", "1m", "-o", "json"], { env, clock });
    const recent = JSON.parse(since.stdout) as { timestamp: string }[];
    expect(recent.length).toBeGreaterThan(0);
    for (const e of recent)
      expect(Date.parse(e.timestamp)).toBeGreaterThanOrEqual(em.emulator.now() - 60_000);
    const until = await runCli(
      ["deploy", "logs", "svc", "--until", new Date(em.emulator.now() - 300_000).toISOString(), "-o", "json"],
      { env, clock },
    );
    for (const e of JSON.parse(until.stdout) as { timestamp: string }[])
      expect(Date.parse(e.timestamp)).toBeLessThanOrEqual(em.emulator.now() - 300_000);
    const bad = await runCli(["deploy", "logs", "svc", "--level", "loud"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("DEBUG, INFO, WARNING, ERROR, CRITICAL");
  });

  it("--build: the latest revision's build log, or --revision's", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("gitrepo", "agent");
    await em.patch(`/v2/deployments/${d.id}`, { source_revision_config: { repo_ref: "release" } });
    const latest = await runCli(["deploy", "logs", "agent", "--build"], { env: cliEnv(em) });
    expect(latest.code, latest.stderr).toBe(0);
    expect(latest.stdout).toContain("at release");
    const first = await runCli(["deploy", "logs", "agent", "--build", "--revision", d.latest_revision_id], {
      env: cliEnv(em),
    });
    expect(first.stdout).toContain("at main");
    expect(first.stdout).not.toContain("at release");
  });

  it("--follow: prints new entries as they come, never twice, until Ctrl-C (130; the JSON array still closes)", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const d = await em.createDeployment("internal_container", "svc");
    em.advance(10_000);
    const controller = new AbortController();
    const r = await runCli(["deploy", "logs", "svc", "--follow", "-o", "json"], {
      env: cliEnv(em),
      clock: steppedClock(em, { sleeps: 15, controller }),
      signal: controller.signal,
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toBe("");
    const shown = JSON.parse(r.stdout) as { id: string }[];
    expect(new Set(shown.map((e) => e.id)).size).toBe(shown.length);
    const { entries } = await allLogs(em, deployLogsPath(d.id), { order: "asc", limit: 1000 });
    // Everything up to the moment of Ctrl-C, in order: 30 s of requests came while following.
    expect(shown.map((e) => e.id)).toEqual(entries.slice(0, shown.length).map((e) => e.id));
    expect(shown.length).toBeGreaterThan(
      entries.filter((e) => Date.parse(e.timestamp) <= em.emulator.now() - 30_000).length,
    );
  });

  it("--follow --build ends by itself when the revision has finished, with its last lines", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const d = await em.createDeployment("gitrepo", "agent");
    const r = await runCli(["deploy", "logs", "agent", "--build", "--follow"], {
      env: cliEnv(em),
      clock: steppedClock(em),
    });
    expect(r.code, r.stderr).toBe(0);
    const { entries } = await allLogs(em, buildLogsPath(d.id, d.latest_revision_id), { order: "asc" });
    expect(lines(r.stdout)).toHaveLength(entries.length);
    expect(r.stdout).toContain("Build succeeded");
  });
});

describe("a failed revision's wait shows why", () => {
  for (const [stage, status, log] of [
    ["QUEUED", "CREATE_FAILED", "build log"],
    ["BUILDING", "BUILD_FAILED", "build log"],
    ["DEPLOYING", "DEPLOY_FAILED", "log"],
  ] as const) {
    it(`${status}: the last lines of its ${log} on stderr, and the command that prints it all`, async () => {
      const em = await startTestEmulator({ stageMs: STAGE });
      const d = await em.createDeployment("gitrepo", "agent");
      em.settle();
      em.emulator.failNextRevision({ deploymentId: d.id, stage, message: `boom at ${stage}` });
      const r = await runCli(["deploy", "patch", "agent", "--repo-ref", "next", "--wait"], {
        env: cliEnv(em),
        clock: steppedClock(em),
      });
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(new RegExp(`The last \\d+ lines of the ${log} of revision`));
      expect(r.stderr).toMatch(new RegExp(`ERROR +boom at ${stage}`));
      expect(r.stderr).toMatch(
        new RegExp(
          `See the whole log with: cpctl deploy logs ${d.id}${log === "build log" ? " --build" : ""} --revision `,
        ),
      );
      const json = await runCli(["deploy", "wait", "agent", "-o", "json"], { env: cliEnv(em) });
      expect(json.code).toBe(5);
      const error = jsonError(json.stderr);
      expect((error.details as { tail: { message: string }[] }).tail.at(-1)!.message).toBe(
        `boom at ${stage}`,
      );
    });
  }

  it("--logs streams the build log while waiting, off a terminal a line each", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    await em.createDeployment("gitrepo", "agent");
    const r = await runCli(["deploy", "wait", "agent", "--logs"], {
      env: cliEnv(em),
      clock: steppedClock(em),
    });
    expect(r.code, r.stderr).toBe(0);
    const streamed = lines(r.stderr).filter((line) => line.startsWith("  | "));
    expect(streamed.length).toBeGreaterThan(5);
    expect(streamed.join("\n")).toContain("Build succeeded");
    expect(new Set(streamed).size).toBe(streamed.length);
  });
});

describe("deploy rollback and redeploy", () => {
  /** A history, newest last: v1 DEPLOYED, v2 BUILD_FAILED, v3 DEPLOYED, v4 INTERRUPTED, v5 SKIPPED, v6 DEPLOYED (active). */
  async function mixedHistory(em: TestEmulator) {
    const d = await em.createDeployment("gitrepo", "agent", {
      source_revision_config: { repo_ref: "v1", agent_config_path: "agent.json" },
    });
    const patch = (ref: string) =>
      em.patch(`/v2/deployments/${d.id}`, { source_revision_config: { repo_ref: ref } });
    const ids: Record<string, string> = { v1: d.latest_revision_id };
    em.settle();
    em.emulator.failNextRevision({ deploymentId: d.id, stage: "BUILDING" });
    ids.v2 = (await patch("v2")).json.latest_revision_id;
    em.settle();
    ids.v3 = (await patch("v3")).json.latest_revision_id;
    em.settle();
    ids.v4 = (await patch("v4")).json.latest_revision_id;
    em.advance(STAGE * 3); // v4 is building when v5 comes: INTERRUPTED
    ids.v5 = (await patch("v5")).json.latest_revision_id;
    ids.v6 = (await patch("v6")).json.latest_revision_id; // v5 had not got past CREATING: SKIPPED
    em.settle();
    return { d, ids };
  }

  it("rolls back to the newest DEPLOYED revision older than the active one, passing over the rest", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const { d, ids } = await mixedHistory(em);
    const statuses = Object.fromEntries(
      await Promise.all(
        Object.entries(ids).map(async ([ref, id]) => [
          ref,
          (await em.get(`/v2/deployments/${d.id}/revisions/${id}`)).json.status,
        ]),
      ),
    );
    expect(statuses).toEqual({
      v1: "DEPLOYED",
      v2: "BUILD_FAILED",
      v3: "DEPLOYED",
      v4: "INTERRUPTED",
      v5: "SKIPPED",
      v6: "DEPLOYED",
    });
    const r = await runCli(["deploy", "rollback", "agent", "--wait", "-o", "json"], {
      env: cliEnv(em),
      clock: steppedClock(em),
    });
    expect(r.code, r.stderr).toBe(0);
    const after = JSON.parse(r.stdout);
    expect(after.source_revision_config.repo_ref).toBe("v3");
    expect(after.active_revision_id).toBe(after.latest_revision_id);
    expect(previewOf(r.stderr).changes).toContainEqual(
      expect.objectContaining({ path: "source_revision_config.repo_ref", current: "v6", desired: "v3" }),
    );
    // --to any of them; --to something that is not one of its revisions: exit 4.
    const to = await runCli(["deploy", "rollback", "agent", "--to", ids.v1!, "-o", "json"], {
      env: cliEnv(em),
    });
    expect(to.code, to.stderr).toBe(0);
    expect(JSON.parse(to.stdout).source_revision_config.repo_ref).toBe("v1");
    const other = await em.createDeployment("gitrepo", "other");
    const foreign = await runCli(["deploy", "rollback", "agent", "--to", other.latest_revision_id], {
      env: cliEnv(em),
    });
    expect(foreign.code).toBe(4);
    expect(foreign.stderr).toContain("is not one of deployment agent's revisions");
  });

  it("revisions made in the same millisecond: the list's order (newest first) says which is older", async () => {
    const em = await startTestEmulator(); // stages take no time and the clock stands still
    const d = await em.createDeployment("gitrepo", "agent", {
      source_revision_config: { repo_ref: "v1", agent_config_path: "agent.json" },
    });
    const patch = async (ref: string) =>
      (await em.patch(`/v2/deployments/${d.id}`, { source_revision_config: { repo_ref: ref } })).json;
    await patch("v2");
    const v3 = await patch("v3");
    const revisions = (await em.get(`/v2/deployments/${d.id}/revisions`)).json.resources as {
      created_at: string;
      status: string;
    }[];
    expect(new Set(revisions.map((r) => r.created_at)).size).toBe(1);
    expect(revisions.map((r) => r.status)).toEqual(["DEPLOYED", "DEPLOYED", "DEPLOYED"]);
    expect(v3.active_revision_id).toBe(v3.latest_revision_id);
    const r = await runCli(["deploy", "rollback", "agent", "-o", "json"], { env: cliEnv(em) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).source_revision_config.repo_ref).toBe("v2");
  });

  it("exit 4 when there is nothing to roll back to", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_container", "fresh");
    const r = await runCli(["deploy", "rollback", "fresh"], { env: cliEnv(em) });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("nothing to roll back to");
    expect(
      em.emulator.stats().requests["POST /v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy"] ??
        0,
    ).toBe(0);
  });

  it("redeploy retries a failed latest revision, which then succeeds", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const d = await em.createDeployment("gitrepo", "agent");
    em.settle();
    em.emulator.failNextRevision({ deploymentId: d.id, stage: "BUILDING" });
    const failed = (
      await em.patch(`/v2/deployments/${d.id}`, { source_revision_config: { repo_ref: "flaky" } })
    ).json;
    em.settle();
    const r = await runCli(["deploy", "redeploy", "agent", "--wait", "-o", "json"], {
      env: cliEnv(em),
      clock: steppedClock(em),
    });
    expect(r.code, r.stderr).toBe(0);
    const after = JSON.parse(r.stdout);
    expect(after.latest_revision_id).not.toBe(failed.latest_revision_id);
    expect(after.active_revision_id).toBe(after.latest_revision_id);
    expect(after.source_revision_config.repo_ref).toBe("flaky");
    expect(r.stderr).toContain(`started from revision ${failed.latest_revision_id}`);
  });

  it("a redeploy whose answer is lost says it may have been applied, with the command to look", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_container", "svc");
    em.emulator.addFault({ method: "POST", path: "/v2/deployments/*/revisions/*/redeploy", drop: "after" });
    const r = await runCli(["deploy", "redeploy", "svc"], { env: cliEnv(em) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("may have been applied");
    expect(r.stderr).toContain(`cpctl deploy get ${d.id}`);
  });
});
