// Contract test: every log read the CLI sends (`deploy logs` with each flag, --follow, the log a
// wait streams and a failure's tail) is a GET of the documented operation
// /v2/deployments/{deployment_id}/revisions/{revision_id}/logs whose path and query validate
// against the document's parameters (test/fixtures/control-plane.openapi.json): `type` always,
// `limit` within 1..1000, times as date-times, levels of its enum, nothing it does not name.
// The CLI runs against the emulator through a recorder that keeps each request as it was sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { json, type RecordedRequest, startServer, type TestServer } from "../helpers/http-server.js";
import { checkParameters } from "../helpers/openapi.js";
import { cliEnv, instantClock, runCli } from "../helpers/run-cli.js";

const LOGS = { method: "GET", path: "/v2/deployments/{deployment_id}/revisions/{revision_id}/logs" };
const LOGS_PATH = /^\/v2\/deployments\/([^/]+)\/revisions\/([^/]+)\/logs$/;
const STAGE = 60_000;

describe("the log reads the CLI sends validate against the document's parameters", () => {
  let em: TestEmulator;
  let recorder: TestServer;
  const sent: RecordedRequest[] = [];

  /** Runs the CLI through the recorder; the emulator's clock moves with the CLI's sleeps. */
  async function cli(args: string[], sleeps = 0): Promise<{ code: number; stderr: string }> {
    const controller = new AbortController();
    let count = 0;
    const clock = instantClock(em.emulator.now(), (ms) => {
      em.advance(ms);
      if (sleeps > 0 && ++count >= sleeps) controller.abort();
    });
    const before = recorder.requests.length;
    const r = await runCli(args, {
      env: cliEnv({ ...em, url: recorder.url }),
      clock,
      signal: controller.signal,
    });
    sent.push(...recorder.requests.slice(before));
    return r;
  }

  beforeAll(async () => {
    em = await startTestEmulator({ stageMs: STAGE });
    recorder = await startServer(async (req, res) => {
      const answer = await em.request(req.method, req.url, {
        ...(req.bytes.length ? { rawBody: req.bytes } : {}),
        headers: { "Content-Type": String(req.headers["content-type"] ?? "application/json") },
      });
      json(res, answer.status, answer.json);
    });
    const svc = await em.createDeployment("internal_container", "svc");
    const agent = await em.createDeployment("gitrepo", "agent");
    em.advance(10 * STAGE + 3 * 3_600_000); // about 2,000 request lines: more than a page
    const runs: [string[], number?, number?][] = [
      [["deploy", "logs", "svc"]],
      [["deploy", "logs", "svc", "--limit", "1500", "-o", "json"]],
      [["deploy", "logs", "svc", "--all", "-o", "ndjson"]],
      [
        [
          "deploy",
          "logs",
          "svc",
          "--level",
          "WARNING",
          "--grep",
          "GET /ok",
          "--since",
          "10m",
          "--until",
          "1m",
        ],
      ],
      [["deploy", "logs", "svc", "--since", "2025-01-01T00:00:00Z", "--limit", "5"]],
      [["deploy", "logs", "svc", "--revision", svc.latest_revision_id]],
      [["deploy", "logs", "agent", "--build"]],
      [["deploy", "logs", "agent", "--build", "--revision", agent.latest_revision_id]],
      [["deploy", "logs", "svc", "--follow", "-o", "ndjson"], 4, 130],
    ];
    for (const [args, sleeps, code] of runs) {
      const r = await cli(args, sleeps);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(code ?? 0);
    }
    // A wait that streams the build log, then fails: its tail.
    em.emulator.failNextRevision({ stage: "BUILDING", message: "boom" });
    const failed = await cli(["deploy", "patch", "agent", "--repo-ref", "next", "--wait", "--logs"]);
    expect(failed.code, failed.stderr).toBe(5);
    expect(failed.stderr).toContain("boom");
  });

  afterAll(async () => {
    await recorder?.close();
    await em?.close();
  });

  it("each read is the documented GET with a valid path and query; no /v1 call is made", () => {
    const reads = sent.filter((r) => LOGS_PATH.test(r.url.split("?")[0]!));
    expect(reads.length).toBeGreaterThan(15);
    const problems: string[] = [];
    for (const read of reads) {
      const url = new URL(read.url, "http://x");
      const [, deploymentId, revisionId] = LOGS_PATH.exec(url.pathname)!;
      const problem = checkParameters(
        LOGS,
        { deployment_id: decodeURIComponent(deploymentId!), revision_id: decodeURIComponent(revisionId!) },
        url.searchParams,
      );
      if (read.method !== "GET") problems.push(`${read.method} ${read.url}`);
      if (problem) problems.push(`${read.url}: ${problem}`);
    }
    expect(problems).toEqual([]);
    expect(sent.filter((r) => r.url.startsWith("/v1/projects"))).toEqual([]);
  });

  it("every parameter the CLI's flags map to was sent, with both types", () => {
    const reads = sent.filter((r) => LOGS_PATH.test(r.url.split("?")[0]!));
    const names = new Set(reads.flatMap((r) => [...new URL(r.url, "http://x").searchParams.keys()]));
    expect([...names].sort()).toEqual(
      ["end_time", "level", "limit", "offset", "order", "query", "start_time", "type"].sort(),
    );
    const types = new Set(reads.map((r) => new URL(r.url, "http://x").searchParams.get("type")));
    expect([...types].sort()).toEqual(["build", "deploy"]);
  });

  it("the checker is not vacuous: it refuses what the document refuses", () => {
    const ids = {
      deployment_id: "7c0e7c52-1b1f-4c36-a0cf-5d2b6c0a0c11",
      revision_id: "7c0e7c52-1b1f-4c36-a0cf-5d2b6c0a0c12",
    };
    const check = (query: string, path = ids) => checkParameters(LOGS, path, new URLSearchParams(query));
    expect(check("type=build&limit=1000&order=desc")).toBeNull();
    expect(check("limit=5")).toMatch(/type: required/);
    expect(check("type=runtime")).toMatch(/type=runtime/);
    expect(check("type=build&limit=1001")).toMatch(/limit=1001/);
    expect(check("type=build&start_time=yesterday")).toMatch(/start_time/);
    expect(check("type=build&level=warning")).toMatch(/level/);
    expect(check("type=build&grep=x")).toMatch(/grep: not a parameter/);
    expect(check("type=build", { ...ids, revision_id: "r1" })).toMatch(/revision_id/);
  });
});
