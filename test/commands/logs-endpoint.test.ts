// Which endpoint logs are read from (issue 34, point 1): the documented GET
// /v2/deployments/{id}/revisions/{rid}/logs by default, for `deploy logs` (every flag, --follow)
// and for what a wait shows (the streamed log, a failure's tail); the runtime log of the
// revision that serves when no --revision is given, followed on to a newer one; the /v1/projects
// calls only once the service has answered v2 with 404 and v1 answered (one v2 404 in a command,
// then v1 for every read, said by --debug); a deployment or revision that is really not there
// is still exit 4. Counted in the emulator's statistics.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { allLogs, deployLogsPath, type Entry } from "../helpers/logs.js";
import { cliEnv, instantClock, runCli } from "../helpers/run-cli.js";
import { jsonError } from "../reliability/helpers.js";

afterEach(closeTestEmulators);

const STAGE = 60_000;
const UNKNOWN = "00000000-0000-4000-8000-000000000000";
const V2 = "GET /v2/deployments/{deployment_id}/revisions/{revision_id}/logs";
const V1_ROUTES = [
  "POST /v1/projects/{deployment_id}/deploy_logs",
  "POST /v1/projects/{deployment_id}/revisions/{revision_id}/build_logs",
  "POST /v1/projects/{deployment_id}/revisions/{revision_id}/deploy_logs",
];
const V2_FAULT = { path: "/v2/deployments/*/revisions/*/logs", status: 404, count: 1000 };

/** A clock whose sleeps move the emulator's clock `factor` times as far; aborts after `stopAfter` sleeps. */
function steppedClock(
  em: TestEmulator,
  stopAfter?: { sleeps: number; controller: AbortController },
  factor = 1,
) {
  let count = 0;
  return instantClock(em.emulator.now(), (ms) => {
    em.advance(ms * factor);
    if (stopAfter && ++count >= stopAfter.sleeps) stopAfter.controller.abort();
  });
}

/** The log routes the emulator has counted since `before`, by route (zeros left out). */
function logRequests(em: TestEmulator, before: Record<string, number> = {}): Record<string, number> {
  const counted: Record<string, number> = {};
  for (const [route, count] of Object.entries(em.emulator.stats().requests)) {
    const added = count - (before[route] ?? 0);
    if ((route === V2 || V1_ROUTES.includes(route)) && added > 0) counted[route] = added;
  }
  return counted;
}

const lines = (text: string) => text.split("\n").filter(Boolean);
const ids = (stdout: string) => lines(stdout).map((line) => (JSON.parse(line) as Entry).id);

/** svc: an internal_container deployment with two revisions, the second serving, 10 minutes of requests. */
async function twoRevisions(em: TestEmulator) {
  const d = await em.createDeployment("internal_container", "svc");
  em.advance(4 * STAGE + 5 * 60_000);
  const second = (
    await em.patch(`/v2/deployments/${d.id}`, {
      source_revision_config: { image_uri: "registry.example.com/agent:2.0.0" },
    })
  ).json.latest_revision_id as string;
  em.advance(4 * STAGE + 5 * 60_000);
  return { id: d.id as string, first: d.latest_revision_id as string, second };
}

describe("logs are read from the documented v2 endpoint", () => {
  it("deploy logs with every flag, --follow and --build: v2 alone, counted in the stats", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const d = await twoRevisions(em);
    const env = cliEnv(em);
    for (const args of [
      [],
      ["--limit", "1500"],
      ["--all"],
      ["--level", "WARNING", "--grep", "GET", "--since", "5m", "--until", "1m"],
      ["--revision", d.first],
      ["--build"],
      ["--build", "--revision", d.first],
    ]) {
      const r = await runCli(["deploy", "logs", "svc", ...args], {
        env,
        clock: instantClock(em.emulator.now()),
      });
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    }
    const controller = new AbortController();
    const follow = await runCli(["deploy", "logs", "svc", "--follow"], {
      env,
      clock: steppedClock(em, { sleeps: 5, controller }),
      signal: controller.signal,
    });
    expect(follow.code).toBe(130);
    const counted = logRequests(em);
    expect(Object.keys(counted)).toEqual([V2]);
    expect(counted[V2]).toBeGreaterThanOrEqual(8 + 2);
  });

  it("the runtime log without --revision is the serving revision's: the active one, else the latest", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const d = await twoRevisions(em);
    const env = cliEnv(em);
    const show = async (...args: string[]) => {
      const r = await runCli(["deploy", "logs", "svc", "--all", "-o", "ndjson", ...args], { env });
      expect(r.code, r.stderr).toBe(0);
      return ids(r.stdout);
    };
    const revisionLog = async (revisionId: string) =>
      (await allLogs(em, deployLogsPath(d.id, revisionId), { order: "asc", limit: 1000 })).entries.map(
        (e) => e.id,
      );
    expect(await show()).toEqual(await revisionLog(d.second));
    expect(await show("--revision", d.first)).toEqual(await revisionLog(d.first));
    // A newer revision that fails to deploy: the active one still serves, and is shown.
    em.emulator.failNextRevision({ deploymentId: d.id, stage: "DEPLOYING" });
    await em.patch(`/v2/deployments/${d.id}`, {
      source_revision_config: { image_uri: "registry.example.com/agent:3" },
    });
    em.settle();
    expect(await show()).toEqual(await revisionLog(d.second));

    // None active (its only revision failed): the latest.
    em.emulator.failNextRevision({ stage: "DEPLOYING", message: "never healthy" });
    const lone = await em.createDeployment("internal_container", "lone");
    em.settle();
    const r = await runCli(["deploy", "logs", "lone", "-o", "json"], { env });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as Entry[]).at(-1)!.message).toBe("never healthy");
    expect(await show()).not.toContain(lone.latest_revision_id);
  });

  it("--follow moves on to the newer revision once it serves: the old one's last lines, then the new one's, none twice", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const d = await em.createDeployment("internal_container", "svc");
    em.advance(4 * STAGE + 60_000);
    const patched = await em.patch(`/v2/deployments/${d.id}`, {
      source_revision_config: { image_uri: "registry.example.com/agent:2.0.0" },
    });
    const second = patched.json.latest_revision_id as string;
    const controller = new AbortController();
    // Each pause of 2 s moves the emulator 20 s: the new revision serves after about 12 of them.
    const r = await runCli(["deploy", "logs", "svc", "--follow", "--limit", "3", "-o", "ndjson"], {
      env: cliEnv(em),
      clock: steppedClock(em, { sleeps: 30, controller }, 10),
      signal: controller.signal,
    });
    expect(r.code, r.stderr).toBe(130);
    expect(Object.keys(logRequests(em))).toEqual([V2]);
    const shown = lines(r.stdout).map((line) => JSON.parse(line) as Entry);
    expect(new Set(shown.map((e) => e.id)).size).toBe(shown.length);
    const messages = shown.map((e) => e.message);
    const stopped = messages.indexOf("Server stopped");
    expect(stopped).toBeGreaterThan(0);
    expect(messages.slice(stopped + 1)[0]).toBe(`Deploying revision ${second} of svc`);
    expect(messages.slice(stopped + 1)).toContain(
      `Health check passed: revision ${second} is serving traffic`,
    );
    // Everything of the new revision up to the end, from its first line.
    const fresh = (await allLogs(em, deployLogsPath(d.id, second), { order: "asc", limit: 1000 })).entries;
    const after = shown.slice(stopped + 1).map((e) => e.id);
    expect(after).toEqual(fresh.slice(0, after.length).map((e) => e.id));
  });

  it("a wait streams the build log and shows a failure's tail from v2", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    await em.createDeployment("gitrepo", "agent");
    em.settle();
    em.emulator.failNextRevision({ stage: "BUILDING", message: "boom" });
    const r = await runCli(["deploy", "patch", "agent", "--repo-ref", "next", "--wait", "--logs"], {
      env: cliEnv(em),
      clock: steppedClock(em),
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^ {2}\| .*Running: npm ci$/m);
    expect(r.stderr).toMatch(/The last \d+ lines of the build log of revision/);
    expect(r.stderr).toMatch(/ERROR +boom/);
    expect(Object.keys(logRequests(em))).toEqual([V2]);
  });
});

describe("a service without the v2 endpoint: /v1 once v2 answers 404", () => {
  it("deploy logs: one v2 404, then /v1 for every page; the runtime log is the whole deployment's; --debug says so", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const d = await twoRevisions(em);
    em.advance(3 * 3_600_000); // more than two pages of 1,000
    em.emulator.addFault(V2_FAULT);
    const r = await runCli(["deploy", "logs", "svc", "--all", "-o", "ndjson", "--debug"], {
      env: cliEnv(em),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(logRequests(em)).toEqual({ [V2]: 1, "POST /v1/projects/{deployment_id}/deploy_logs": 3 });
    const whole = (await allLogs(em, deployLogsPath(d.id), { order: "asc", limit: 1000 })).entries;
    expect(whole.length).toBeGreaterThan(2000);
    expect(ids(r.stdout)).toEqual(whole.map((e) => e.id));
    expect(r.stderr).toContain(`logs: reading GET /v2/deployments/${d.id}/revisions/${d.second}/logs`);
    expect(r.stderr).toContain(
      `logs: GET /v2/deployments/${d.id}/revisions/${d.second}/logs answered 404 ("Injected fault: 404 Not Found") and POST /v1/projects/${d.id}/deploy_logs answered: this service has no v2 log endpoint; the rest of this command reads /v1/projects`,
    );
  });

  it("--build, --revision and every filter reach /v1's body after the fallback", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const d = await twoRevisions(em);
    em.emulator.addFault(V2_FAULT);
    const before = em.emulator.stats().requests;
    const r = await runCli(
      [
        "deploy",
        "logs",
        "svc",
        "--revision",
        d.first,
        "--level",
        "INFO",
        "--grep",
        "GET",
        "--since",
        "1h",
        "-o",
        "json",
      ],
      { env: cliEnv(em), clock: instantClock(em.emulator.now()) },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(logRequests(em, before)).toEqual({
      [V2]: 1,
      "POST /v1/projects/{deployment_id}/revisions/{revision_id}/deploy_logs": 1,
    });
    const expected = await allLogs(em, deployLogsPath(d.id, d.first), {
      order: "asc",
      limit: 1000,
      level: "INFO",
      query: "GET",
      start_time: new Date(em.emulator.now() - 3_600_000).toISOString(),
    });
    expect((JSON.parse(r.stdout) as Entry[]).map((e) => e.id)).toEqual(expected.entries.map((e) => e.id));
    expect(expected.entries.length).toBeGreaterThan(10);
  });

  it("--follow: one v2 404, then every read on /v1, the whole deployment's log", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    await twoRevisions(em);
    em.emulator.addFault(V2_FAULT);
    const controller = new AbortController();
    const r = await runCli(["deploy", "logs", "svc", "--follow", "-o", "ndjson"], {
      env: cliEnv(em),
      clock: steppedClock(em, { sleeps: 8, controller }),
      signal: controller.signal,
    });
    expect(r.code).toBe(130);
    expect(lines(r.stdout).length).toBeGreaterThan(100);
    const counted = logRequests(em);
    expect(counted[V2]).toBe(1);
    expect(counted["POST /v1/projects/{deployment_id}/deploy_logs"]).toBeGreaterThanOrEqual(7);
  });

  it("a wait: the streamed log and the failure's tail, one v2 404 for the whole command", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    await em.createDeployment("gitrepo", "agent");
    em.settle();
    em.emulator.addFault(V2_FAULT);
    em.emulator.failNextRevision({ stage: "BUILDING", message: "boom" });
    const r = await runCli(["deploy", "patch", "agent", "--repo-ref", "next", "--wait", "--logs"], {
      env: cliEnv(em),
      clock: steppedClock(em),
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^ {2}\| .*Running: npm ci$/m);
    expect(r.stderr).toMatch(/ERROR +boom/);
    const counted = logRequests(em);
    expect(counted[V2]).toBe(1);
    expect(counted["POST /v1/projects/{deployment_id}/revisions/{revision_id}/build_logs"]).toBeGreaterThan(
      2,
    );
  });
});

describe("a deployment or revision that is not there", () => {
  it("an unknown deployment: exit 4, naming it; no log read", async () => {
    const em = await startTestEmulator();
    const r = await runCli(["deploy", "logs", UNKNOWN, "-o", "json"], { env: cliEnv(em) });
    expect(r.code).toBe(4);
    expect(jsonError(r.stderr)).toMatchObject({
      code: "not_found",
      message: `Deployment ID ${UNKNOWN} not found.`,
    });
    expect(logRequests(em)).toEqual({});
  });

  it("an unknown revision: v2's 404, checked once on /v1 (404 too): exit 4 with v2's words, nothing remembered", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("gitrepo", "agent");
    for (const args of [
      ["--revision", UNKNOWN],
      ["--build", "--revision", UNKNOWN],
    ]) {
      const before = em.emulator.stats().requests;
      const r = await runCli(["deploy", "logs", d.id, ...args, "--debug"], { env: cliEnv(em) });
      expect(r.code).toBe(4);
      expect(r.stderr).toContain(`error: Revision ID ${UNKNOWN} not found.`);
      expect(r.stderr).toContain("answered 404 too: the deployment or revision is not there");
      const counted = logRequests(em, before);
      expect(counted[V2]).toBe(1);
      expect(Object.values(counted).reduce((a, b) => a + b)).toBe(2);
    }
  });
});
