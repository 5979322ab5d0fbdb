// Timeouts: a server that accepts the connection and never answers, one that sends the
// headers and then stalls, one that stalls half-way through the body. None of them may hang
// the CLI: --request-timeout bounds each request, --timeout bounds a whole wait (each poll
// included), and every message says what happened and what to change.
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { type CliResult, instantClock, runCli } from "../helpers/run-cli.js";
import { expectCleanOutput, type HungMode, type HungServer, hungServer, jsonError } from "./helpers.js";

const bin = fileURLToPath(new URL("../../bin/cpctl.cjs", import.meta.url));
const DEPLOYMENT = "0d0d0d0d-0000-4000-8000-000000000001";
const REVISION = "0e0e0e0e-0000-4000-8000-000000000002";
const MODES: HungMode[] = ["silent", "headers-then-stall", "half-body-then-stall"];

const servers: HungServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function hung(mode: HungMode): Promise<HungServer> {
  const server = await hungServer(mode);
  servers.push(server);
  return server;
}

async function timed(run: () => Promise<CliResult>): Promise<CliResult & { ms: number }> {
  const started = performance.now();
  const result = await run();
  return { ...result, ms: performance.now() - started };
}

const env = (server: HungServer) => ({ CPCTL_BASE_URL: server.url, CPCTL_API_KEY: "timeout-test-key" });

describe("--request-timeout against a hung server", () => {
  for (const mode of MODES) {
    it(`list (${mode}): gives up once --request-timeout is spent, retries included: one attempt, exit 1`, async () => {
      const server = await hung(mode);
      const r = await timed(() =>
        runCli(["deploy", "list", "--request-timeout", "300ms", "-o", "json"], { env: env(server) }),
      );
      expectCleanOutput(r);
      expect(r.code).toBe(1);
      const error = jsonError(r.stderr);
      expect(error.code).toBe("timeout");
      expect(error.message).toMatch(
        /^no complete answer from 127\.0\.0\.1:\d+ within 300ms \(GET \/v2\/deployments\): the control plane may be overloaded; raise --request-timeout/,
      );
      // The deadline is the request's, not each attempt's: the one attempt spent it.
      expect(error.message).not.toContain("gave up after");
      expect(server.requests()).toEqual(["GET /v2/deployments"]);
      expect(r.ms).toBeGreaterThanOrEqual(290);
      expect(r.ms).toBeLessThan(5_000);
    });
  }

  it("quick failures are retried within the deadline; a wait that would pass it is not started", async () => {
    // Resets at once, every time: retried with back-off while time is left, then given up.
    const { startServer } = await import("../helpers/http-server.js");
    const server = await startServer((_req, res) => res.socket?.destroy());
    const r = await runCli(["deploy", "list", "--request-timeout", "10s", "-o", "json"], {
      env: { CPCTL_BASE_URL: server.url, CPCTL_API_KEY: "k" },
    });
    expect(r.code).toBe(1);
    expect(server.count()).toBe(4);
    expect(jsonError(r.stderr).message).toContain("gave up after 4 attempts (GET /v2/deployments)");
    // A Retry-After longer than what is left of the request's deadline: not waited for.
    const { json } = await import("../helpers/http-server.js");
    const busy = await startServer((_req, res) =>
      json(res, 503, { detail: "busy" }, { "Retry-After": "20" }),
    );
    const slow = await runCli(["deploy", "list", "--request-timeout", "10s", "-o", "json"], {
      env: { CPCTL_BASE_URL: busy.url, CPCTL_API_KEY: "k" },
    });
    expect(slow.code).toBe(1);
    expect(busy.count()).toBe(1);
    expect(jsonError(slow.stderr).message).toContain(
      "the server asked to retry after 20s, more than is left of --request-timeout (10s), which covers a request's retries and the waits between them; try again later, or raise --request-timeout",
    );
  });

  it("get by ID (headers then stall): exit 1 naming the request", async () => {
    const server = await hung("headers-then-stall");
    const r = await runCli(["deploy", "get", DEPLOYMENT, "--request-timeout", "100ms"], { env: env(server) });
    expectCleanOutput(r);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: no complete answer from 127\\.0\\.0\\.1:\\d+ within 100ms \\(GET /v2/deployments/${DEPLOYMENT}\\)`,
      ),
    );
  });

  it("create (silent): the POST is sent once, the look-up by name is bounded too, and the user is told what to check", async () => {
    const server = await hung("silent");
    const r = await runCli(
      [
        "deploy",
        "create",
        "--name",
        "hung",
        "--source",
        "internal_container",
        "--image-uri",
        "x:1",
        "--request-timeout",
        "100ms",
        "--debug",
      ],
      { env: env(server) },
    );
    expectCleanOutput(r);
    expect(r.code).toBe(1);
    // The client's own trace: one POST, then the look-up's GET, each within its own deadline.
    expect(r.stderr.match(/^> POST /gm)).toHaveLength(1);
    expect(r.stderr.match(/^> GET /gm)).toHaveLength(1);
    expect(server.requests().filter((q) => q === "POST /v2/deployments").length).toBeLessThanOrEqual(1);
    expect(r.stderr).toContain("checking whether 'hung' was created anyway");
    expect(r.stderr).toContain(`Could not check whether it was created (no complete answer from`);
    expect(r.stderr).toContain(`look with: cpctl deploy get "hung"`);
  });
});

describe("--timeout bounds a whole wait, its polls included", () => {
  for (const mode of MODES) {
    it(`wait (${mode}) with --request-timeout 30s and --timeout 300ms: exit 6 within the wait's deadline`, async () => {
      const server = await hung(mode);
      const clock = instantClock();
      const r = await timed(() =>
        runCli(
          [
            "deploy",
            "wait",
            DEPLOYMENT,
            "--revision",
            REVISION,
            "--timeout",
            "300ms",
            "--request-timeout",
            "30s",
            "-o",
            "json",
          ],
          { env: env(server), clock },
        ),
      );
      expectCleanOutput(r);
      expect(r.code).toBe(6);
      expect(JSON.parse(r.stdout)).toMatchObject({
        result: "timed_out",
        status: null,
        revision_id: REVISION,
      });
      expect(r.stderr).toMatch(
        /poll failed, retrying .*no complete answer from 127\.0\.0\.1:\d+ within 300ms/,
      );
      expect(r.stderr).toContain(`Resume with: cpctl deploy wait ${DEPLOYMENT} --revision ${REVISION}`);
      // The poll was cut at the wait's 300 ms, not at the request's 30 s.
      expect(r.ms).toBeLessThan(10_000);
    });
  }

  it("polls a hung server again and again within --timeout, each poll cut by --request-timeout", async () => {
    const server = await hung("silent");
    const clock = instantClock();
    const r = await runCli(
      [
        "deploy",
        "wait",
        DEPLOYMENT,
        "--revision",
        REVISION,
        "--timeout",
        "20s",
        "--interval",
        "2s",
        "--request-timeout",
        "100ms",
      ],
      { env: env(server), clock },
    );
    expectCleanOutput(r);
    expect(r.code).toBe(6);
    // Gaps of 2, 3, 4.5, 6.75 s, then what is left of 20 s: one poll after each, one at start.
    expect(clock.sleeps).toEqual([2000, 3000, 4500, 6750, 3750]);
    expect(r.stderr.match(/poll failed, retrying/g)).toHaveLength(6);
    expect(server.requests().length).toBeLessThanOrEqual(6);
  });
});

describe("the built binary against a hung server", () => {
  it("exits 1 once --request-timeout is spent instead of hanging (not four times that)", async () => {
    const server = await hung("headers-then-stall");
    const started = performance.now();
    const r = await execa(process.execPath, [bin, "deploy", "list", "--request-timeout", "2s"], {
      env: { PATH: process.env.PATH ?? "", HOME: "/nonexistent-home-for-tests", ...env(server) },
      extendEnv: false,
      reject: false,
      timeout: 15_000,
    });
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^error: no complete answer from 127\.0\.0\.1:\d+ within 2s/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(server.requests()).toHaveLength(1);
    // About 2 s and a start; four attempts would have been 8 s and more.
    expect(performance.now() - started).toBeLessThan(6_000);
  });
});
