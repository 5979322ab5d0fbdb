// The wait's figures (docs/performance.md "Waits"): how soon `deploy wait` notices the end of
// a build, and how often it asks.
//
// 1. A simulation on the emulator's clock with the project's own code: scripts/bench/wait-sim.ts,
//    bundled here with esbuild and run in a child process (the emulator in-process on a
//    ManualClock, the real poll loop and API client). Builds of 1 to 10 minutes (10 lengths,
//    each with 10 phases over one interval; 5 x 4 with --quick), the default interval: mean
//    and p90 lag, requests per second of simulated time.
// 2. A real-time spot check: the built CLI (`node bin/cpctl.cjs deploy wait ID`) against a child
//    `cpctl emulator --stage-ms 2000` (a gitrepo build of 6 stages: 12 s), started 1.5 s
//    after the build (so that its polls fall mid-interval, not just after the end); the lag is
//    the process's exit time minus the revision's DEPLOYED time (its updated_at), both read on
//    this machine's clock (the emulator's clock is real time here).
import { spawnSync } from "node:child_process";
import http from "node:http";
import { join } from "node:path";
import { startEmulator } from "./emulator.mjs";
import { benchEnv } from "./measure.mjs";

export const WAIT_GOALS = { meanLagMs: 2000, requestsPerSecond: 0.4 };
const SPOT_STAGE_MS = 2000;
const SPOT_DELAY_MS = 1500;
const SPOT_API_KEY = "bench-wait";

/**
 * Rows for the simulation and the spot check. `quick`: fewer simulated builds.
 * { root, node, bin, work, home, cwd, quick }
 */
export async function waitRows({ root, node, bin, work, home, cwd, quick }) {
  const rows = [];
  rows.push(...simulationRows({ root, node, work, durations: quick ? 5 : 10, phases: quick ? 4 : 10 }));
  rows.push(await spotCheckRow({ root, node, bin, home, cwd }));
  return rows;
}

function simulationRows({ root, node, work, durations, phases }) {
  const lagFigure = "deploy wait lag, 1-10 min builds (simulated)";
  const rateFigure = "deploy wait requests/s (simulated)";
  const lagGoal = `<= ${WAIT_GOALS.meanLagMs / 1000} s mean`;
  const rateGoal = `<= ${WAIT_GOALS.requestsPerSecond} req/s`;
  process.stdout.write(
    `wait simulation: ${durations} build lengths from 1 to 10 minutes x ${phases} phases, on the emulator's clock ... `,
  );
  let sim;
  try {
    const bundle = join(work, "wait-sim.cjs");
    const esbuild = spawnSync(
      node,
      [
        "--input-type=module",
        "-e",
        `import { build } from "esbuild";
         await build({ entryPoints: [process.argv[1]], outfile: process.argv[2], bundle: true,
           platform: "node", format: "cjs", target: "node20", logLevel: "error" });`,
        join(root, "scripts", "bench", "wait-sim.ts"),
        bundle,
      ],
      { cwd: root, encoding: "utf8", timeout: 60_000 },
    );
    if (esbuild.status !== 0) throw new Error(`esbuild: ${esbuild.stderr || esbuild.error?.message}`);
    const options = { durations, phases, minMs: 60_000, maxMs: 600_000 };
    const run = spawnSync(node, [bundle, JSON.stringify(options)], {
      cwd: work,
      env: benchEnv(),
      encoding: "utf8",
      timeout: 300_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    if (run.status !== 0)
      throw new Error(`wait-sim: exit ${run.status ?? run.signal}: ${run.stderr.slice(0, 500)}`);
    sim = JSON.parse(run.stdout);
    if (sim.notDeployed > 0) throw new Error(`${sim.notDeployed} simulated waits did not end deployed`);
  } catch (error) {
    console.log("failed");
    const note = error.message.split("\n")[0];
    return [
      { figure: lagFigure, goal: lagGoal, pass: null, note },
      { figure: rateFigure, goal: rateGoal, pass: null, note },
    ];
  }
  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    `mean lag ${s(sim.meanLagMs)}, p90 ${s(sim.p90LagMs)}, max ${s(sim.maxLagMs)}; ${sim.requestsPerSecond.toFixed(3)} req/s ` +
      `(${sim.requests.toLocaleString("en")} polls over ${(sim.simulatedMs / 3_600_000).toFixed(1)} h simulated, in ${s(sim.realMs)} real); ` +
      `gaps between polls ${s(sim.sleepsMs.min)} to ${s(sim.sleepsMs.max)}`,
  );
  const interval = `${(sim.intervalMs / 1000).toFixed(1)} s interval`;
  return [
    {
      figure: lagFigure,
      median: `${s(sim.meanLagMs)} mean`,
      floor: `p90 ${s(sim.p90LagMs)}, max ${s(sim.maxLagMs)}; ${interval}`,
      ratio: `${(sim.meanLagMs / sim.intervalMs).toFixed(2)}x`,
      goal: lagGoal,
      pass: sim.meanLagMs <= WAIT_GOALS.meanLagMs,
      note: `${sim.builds} waits (${sim.durations} lengths x ${sim.phases} phases); ratio is the mean lag over the interval`,
      raw: sim,
    },
    {
      figure: rateFigure,
      median: `${sim.requestsPerSecond.toFixed(3)} req/s`,
      floor: `max ${sim.maxRequestsPerSecond.toFixed(3)}/build; gaps ${s(sim.sleepsMs.min)}-${s(sim.sleepsMs.max)}`,
      ratio: "-",
      goal: rateGoal,
      pass: sim.requestsPerSecond <= WAIT_GOALS.requestsPerSecond && sim.sleepsMs.max <= sim.intervalMs,
      note:
        sim.sleepsMs.max > sim.intervalMs
          ? `a gap of ${s(sim.sleepsMs.max)} between successful polls: backoff on success`
          : undefined,
    },
  ];
}

async function spotCheckRow({ root, node, bin, home, cwd }) {
  const build = SPOT_STAGE_MS * 6;
  const figure = `deploy wait lag, real time (1 build of ${build / 1000} s)`;
  const goal = "<= 3 s (one interval)";
  process.stdout.write(
    `wait spot check: node bin/cpctl.cjs deploy wait against cpctl emulator --stage-ms ${SPOT_STAGE_MS} (a ${build / 1000} s build), started ${SPOT_DELAY_MS / 1000} s in ... `,
  );
  let emulator;
  try {
    emulator = await startEmulator({ root, env: benchEnv({ HOME: home }), stageMs: SPOT_STAGE_MS });
    const headers = { "X-Api-Key": SPOT_API_KEY, Accept: "application/json" };
    const integrations = await call(`${emulator.url}/v1/integrations/gitrepo/install`, { headers });
    const created = await call(`${emulator.url}/v2/deployments`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify({
        name: "bench-wait-spot",
        source: "gitrepo",
        source_config: {
          integration_id: integrations[0].id,
          repo_url: "https://github.com/example/agent",
          deployment_type: "dev",
          build_on_push: false,
        },
        source_revision_config: { repo_ref: "main", agent_config_path: "agent.json" },
        secrets: [],
      }),
    });
    const revisionPath = `/v2/deployments/${created.id}/revisions/${created.latest_revision_id}`;
    const before = await call(`${emulator.url}/_emulator/stats`);
    await new Promise((resolve) => setTimeout(resolve, SPOT_DELAY_MS));
    // spawnSync returns once the process has exited (this process waits idle meanwhile; the
    // emulator is another process).
    const startedAt = Date.now();
    const wait = spawnSync(node, [bin, "deploy", "wait", created.id, "-o", "json"], {
      cwd,
      env: benchEnv({ HOME: home, CPCTL_BASE_URL: emulator.url, CPCTL_API_KEY: SPOT_API_KEY }),
      encoding: "utf8",
      timeout: 60_000,
    });
    const exitedAt = Date.now();
    if (wait.status !== 0)
      throw new Error(
        `deploy wait: exit ${wait.status ?? wait.signal}: ${(wait.stderr || wait.stdout).trim()}`,
      );
    const verdict = JSON.parse(wait.stdout);
    const after = await call(`${emulator.url}/_emulator/stats`);
    const revision = await call(`${emulator.url}${revisionPath}`, { headers });
    if (verdict.result !== "deployed" || revision.status !== "DEPLOYED")
      throw new Error(`the wait ended ${verdict.result}, the revision ${revision.status}`);
    const deployedAt = Date.parse(revision.updated_at);
    const lagMs = exitedAt - deployedAt;
    const requests = after.total - before.total;
    const polls =
      (after.requests["GET /v2/deployments/{deployment_id}/revisions/{revision_id}"] ?? 0) -
      (before.requests["GET /v2/deployments/{deployment_id}/revisions/{revision_id}"] ?? 0);
    const waitedMs = exitedAt - startedAt;
    console.log(
      `lag ${(lagMs / 1000).toFixed(2)} s; ${requests} requests (${polls} polls) in ${(waitedMs / 1000).toFixed(1)} s`,
    );
    return {
      figure,
      median: `${(lagMs / 1000).toFixed(2)} s`,
      floor: `${polls} polls + ${requests - polls} other requests in ${(waitedMs / 1000).toFixed(1)} s`,
      ratio: `${(lagMs / 3000).toFixed(2)}x`,
      goal,
      pass: lagMs <= 3000,
      note: `the wait ran ${(waitedMs / 1000).toFixed(2)} s, from ${((startedAt - Date.parse(revision.created_at)) / 1000).toFixed(2)} s into a ${(deployedAt - Date.parse(revision.created_at)) / 1000} s build; ratio is the lag over the interval`,
      raw: { lagMs, requests, polls, waitedMs, startedAt, exitedAt, deployedAt, verdict },
    };
  } catch (error) {
    console.log("failed");
    return { figure, goal, pass: null, note: error.message.split("\n")[0] };
  } finally {
    await emulator?.close();
  }
}

/** One JSON exchange with the spot check's emulator (a fresh connection); throws unless 2xx. */
function call(url, { method = "GET", headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers, agent: false }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        text += chunk;
      });
      response.on("error", reject);
      response.on("end", () => {
        if (response.statusCode < 200 || response.statusCode > 299)
          return reject(new Error(`${method} ${url}: ${response.statusCode} ${text.slice(0, 300)}`));
        try {
          resolve(text ? JSON.parse(text) : null);
        } catch (error) {
          reject(error);
        }
      });
    });
    request.setTimeout(30_000, () => request.destroy(new Error(`${method} ${url}: no answer within 30 s`)));
    request.on("error", reject);
    request.end(body);
  });
}
