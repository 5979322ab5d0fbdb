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
    it(`list (${mode}): each attempt times out, four in all, then exit 1`, async () => {
      const server = await hung(mode);
      const r = await timed(() =>
        runCli(["deploy", "list", "--request-timeout", "100ms", "-o", "json"], { env: env(server) }),
      );
      expectCleanOutput(r);
      expect(r.code).toBe(1);
      const error = jsonError(r.stderr);
      expect(error.code).toBe("timeout");
      expect(error.message).toMatch(
        /no complete answer from 127\.0\.0\.1:\d+ within 100ms \(GET \/v2\/deployments\)/,
      );
      expect(error.message).toContain("raise --request-timeout");
      expect(error.message).toContain("gave up after 4 attempts");
      // What the server saw can lag behind a cut-off attempt on a busy machine: at most four.
      expect(server.requests().length).toBeLessThanOrEqual(4);
      expect(server.requests().every((q) => q === "GET /v2/deployments")).toBe(true);
      // Four deadlines of 100 ms and instant back-off: far from hanging (the bound is generous).
      expect(r.ms).toBeGreaterThanOrEqual(390);
      expect(r.ms).toBeLessThan(10_000);
    });
  }

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
    // The client's own trace: one POST, then the look-up's four GETs.
    expect(r.stderr.match(/^> POST /gm)).toHaveLength(1);
    expect(r.stderr.match(/^> GET /gm)).toHaveLength(4);
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
  it("exits 1 after its request timeouts instead of hanging", async () => {
    const server = await hung("headers-then-stall");
    const r = await execa(process.execPath, [bin, "deploy", "list", "--request-timeout", "200ms"], {
      env: { PATH: process.env.PATH ?? "", HOME: "/nonexistent-home-for-tests", ...env(server) },
      extendEnv: false,
      reject: false,
      timeout: 15_000,
    });
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^error: no complete answer from 127\.0\.0\.1:\d+ within 200ms/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(server.requests().length).toBeLessThanOrEqual(4);
    expect(r.stderr).toContain("gave up after 4 attempts");
  });
});
