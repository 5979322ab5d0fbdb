// The wait's lag, simulated with the project's own code (bundled by scripts/bench/wait.mjs
// with esbuild and run in a child process): the emulator in-process on 127.0.0.1:0 with its
// ManualClock, and the real poll loop (src/wait/poll.ts pollRevision) through the real API
// client (src/api/client.ts, node:http to the emulator), with a Clock whose sleep advances the
// emulator's clock. One build per emulator (a revision's stage length is the emulator's):
// a gitrepo revision walks 6 stages, so a build of D ms has stages of D / 6 ms.
//
// Builds of `durations` lengths evenly from minMs to maxMs, each waited for with `phases`
// phases spread evenly over one interval (the phase: when the wait's first poll comes after
// the build's start; the lag depends on it modulo the interval). For each: create the
// deployment (its revision starts then), move the clock on by the phase, then wait as `deploy
// wait` does (first poll at once, then one every interval). The lag is the
// time the wait returned minus the time the revision became DEPLOYED (its `updated_at`),
// both on the emulator's clock. Requests are counted by the emulator (observe), sleeps by the
// clock: on success every gap must be the interval (no backoff).
//
//   node wait-sim.cjs '{"durations": 10, "phases": 10, "minMs": 60000, "maxMs": 600000}'
// prints one JSON object on stdout.
import { ApiClient } from "../../src/api/client.js";
import { createDeployment } from "../../src/api/endpoints.js";
import type { Clock } from "../../src/clock.js";
import { DEFAULT_INTERVAL_MS } from "../../src/commands/deploy/wait-options.js";
import { ManualClock, startEmulator } from "../../src/emulator/server.js";
import { InterruptedError } from "../../src/errors.js";
import type { CreateRequest } from "../../src/model/schemas.js";
import { MAX_INTERVAL_MS, pollRevision, type WaitReporter } from "../../src/wait/poll.js";

interface SimOptions {
  durations: number;
  phases: number;
  minMs: number;
  maxMs: number;
  intervalMs?: number;
}

interface BuildResult {
  durationMs: number;
  phaseMs: number;
  lagMs: number;
  requests: number;
  waitMs: number;
  result: string;
}

/** `deploy wait`'s --timeout default (wait-options.ts: 30m). */
const TIMEOUT_MS = 30 * 60_000;
/** --request-timeout's default. */
const REQUEST_TIMEOUT_MS = 30_000;
const API_KEY = "bench-wait-sim";
const STAGES = 6;

const silent: WaitReporter = {
  status() {},
  heartbeat() {},
  transient() {},
  log() {},
  stop() {},
};

async function simulateBuild(
  durationMs: number,
  phaseMs: number,
  intervalMs: number,
  sleeps: number[],
): Promise<BuildResult> {
  const clock = new ManualClock();
  const emulator = await startEmulator({ host: "127.0.0.1", port: 0, clock, stageMs: durationMs / STAGES });
  try {
    const seed = emulator.seed(emulator.tenantFor(API_KEY));
    const api = new ApiClient({
      baseUrl: emulator.url,
      credentials: { apiKey: API_KEY },
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      userAgent: "cpctl-bench-wait-sim",
    });
    const body: CreateRequest = {
      name: `sim-${durationMs}-${Math.round(phaseMs)}`,
      source: "gitrepo",
      source_config: {
        integration_id: seed.integrations[0]!.id,
        repo_url: "https://github.com/example/agent",
        deployment_type: "dev",
        build_on_push: false,
      },
      source_revision_config: { repo_ref: "main", agent_config_path: "agent.json" },
      secrets: [],
    };
    const deployment = await createDeployment(api, body);
    const target = { deploymentId: deployment.id, revisionId: deployment.latest_revision_id! };

    clock.advance(phaseMs);
    // The wait's clock is the emulator's: a sleep moves it on, then lets the loop go on.
    const waitClock: Clock = {
      now: () => clock.now(),
      sleep: async (ms, signal) => {
        if (signal?.aborted) throw new InterruptedError();
        sleeps.push(ms);
        clock.advance(ms);
        await new Promise((resolve) => setImmediate(resolve));
      },
    };
    let requests = 0;
    const stopCounting = emulator.observe((event) => {
      if (event.phase === "received") requests++;
    });
    const started = clock.now();
    const verdict = await pollRevision(
      api,
      waitClock,
      new AbortController().signal,
      target,
      {
        timeoutMs: TIMEOUT_MS,
        intervalMs,
        maxIntervalMs: Math.max(MAX_INTERVAL_MS, intervalMs),
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
      },
      silent,
    );
    const returned = clock.now();
    stopCounting();
    const revision = (
      await api.get<{ status: string; updated_at: string; created_at: string }>(
        `/v2/deployments/${target.deploymentId}/revisions/${target.revisionId}`,
      )
    ).body;
    const finished = Date.parse(revision.updated_at);
    if (revision.status !== "DEPLOYED" || finished - Date.parse(revision.created_at) !== durationMs) {
      throw new Error(
        `build of ${durationMs} ms: the revision is ${revision.status}, created ${revision.created_at}, updated ${revision.updated_at}`,
      );
    }
    return {
      durationMs,
      phaseMs,
      lagMs: returned - finished,
      requests,
      waitMs: returned - started,
      result: verdict.result,
    };
  } finally {
    await emulator.close();
  }
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? "{}") as SimOptions;
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const durations = Math.max(2, options.durations);
  const phases = Math.max(1, options.phases);
  const sleeps: number[] = [];
  const results: BuildResult[] = [];
  const start = performance.now();
  for (let i = 0; i < durations; i++) {
    // Whole multiples of 6 ms: whole stages.
    const raw = options.minMs + ((options.maxMs - options.minMs) * i) / (durations - 1);
    const durationMs = Math.round(raw / STAGES) * STAGES;
    for (let j = 0; j < phases; j++) {
      const phaseMs = Math.round(((j + 0.5) * intervalMs) / phases);
      results.push(await simulateBuild(durationMs, phaseMs, intervalMs, sleeps));
    }
  }
  const lags = results.map((r) => r.lagMs).sort((a, b) => a - b);
  const requests = results.reduce((sum, r) => sum + r.requests, 0);
  const waitMs = results.reduce((sum, r) => sum + r.waitMs, 0);
  const perBuild = results.map((r) => (r.requests / r.waitMs) * 1000);
  process.stdout.write(
    `${JSON.stringify({
      builds: results.length,
      durations,
      phases,
      intervalMs,
      minMs: options.minMs,
      maxMs: options.maxMs,
      meanLagMs: lags.reduce((sum, v) => sum + v, 0) / lags.length,
      p90LagMs: lags[Math.min(lags.length - 1, Math.ceil(lags.length * 0.9) - 1)],
      maxLagMs: lags[lags.length - 1],
      minLagMs: lags[0],
      requests,
      simulatedMs: waitMs,
      requestsPerSecond: (requests / waitMs) * 1000,
      maxRequestsPerSecond: Math.max(...perBuild),
      sleepsMs: { min: Math.min(...sleeps), max: Math.max(...sleeps), count: sleeps.length },
      notDeployed: results.filter((r) => r.result !== "deployed").length,
      realMs: performance.now() - start,
      results,
    })}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exitCode = 1;
});
