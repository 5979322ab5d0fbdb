// The release figures (docs/performance.md "Releases"), against a child `cpctl emulator`:
//
// 1. `deploy status` is one look-up, then the revisions and the health check at once: timed
//    against `deploy get` of the same deployment (goal 1.5x).
// 2. From DEPLOYED to verified: `deploy redeploy D --verify --interval 100ms` with stages of
//    STAGE_MS; the figure is the process's exit time minus the new revision's DEPLOYED time (its
//    updated_at), both read on this machine's clock (the emulator's clock is real time here).
//    It holds the wait's own lag (at most one 100 ms poll), the first health check, and the
//    process's end: an upper bound of DEPLOYED -> verified (goal: within one health-check
//    interval, 1 s).
import { spawnSync } from "node:child_process";
import { exchange, startEmulator } from "./emulator.mjs";
import { alternate, benchEnv, capture, command, median } from "./measure.mjs";
import { formatMs } from "./report.mjs";

const API_KEY = "bench-releases";
const STAGE_MS = 200;
const STATUS_GOAL = 1.5;
const VERIFY_GOAL_MS = 1000;

/** { root, node, bin, home, cwd, runs } -> rows */
export async function releaseRows({ root, node, bin, home, cwd, runs }) {
  const emulator = await startEmulator({ root, env: benchEnv({ HOME: home }), stageMs: STAGE_MS });
  const env = benchEnv({ HOME: home, CPCTL_BASE_URL: emulator.url, CPCTL_API_KEY: API_KEY });
  try {
    const id = await deployedDeployment(emulator.url);
    return [statusRow({ node, bin, env, cwd, id, runs }), verifyRow({ node, bin, env, cwd, id, runs })];
  } finally {
    await emulator.close();
  }
}

/** An internal_container deployment whose first revision is DEPLOYED. */
async function deployedDeployment(url) {
  const headers = { "X-Api-Key": API_KEY, "Content-Type": "application/json" };
  const body = JSON.stringify({
    name: "release-bench",
    source: "internal_container",
    source_config: {},
    source_revision_config: { image_uri: "registry.example.com/agent:1" },
    secrets: [],
  });
  const created = await exchange(undefined, `${url}/v2/deployments`, { method: "POST", headers, body });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.body}`);
  const { id } = JSON.parse(created.body);
  for (let tries = 0; tries < 100; tries++) {
    const got = JSON.parse((await exchange(undefined, `${url}/v2/deployments/${id}`, { headers })).body);
    if (got.active_revision_id) return id;
    await new Promise((resolve) => setTimeout(resolve, STAGE_MS));
  }
  throw new Error("the bench deployment never became DEPLOYED");
}

function statusRow({ node, bin, env, cwd, id, runs }) {
  const figure = "deploy status (3 requests) vs deploy get";
  const get = command("deploy get -o json", [node, bin, "deploy", "get", id, "-o", "json"], { env, cwd });
  const status = command("deploy status -o json", [node, bin, "deploy", "status", id, "-o", "json"], {
    env,
    cwd,
  });
  process.stdout.write(`timing ${figure} ... `);
  try {
    const checked = capture(status);
    if (checked.code !== 0 || JSON.parse(checked.stdout).health !== "ok")
      throw new Error(`deploy status: exit ${checked.code}: ${checked.stderr.slice(0, 300)}`);
    const [getMs, statusMs] = alternate([get, status], { runs });
    const ratio = median(statusMs) / median(getMs);
    console.log(`${formatMs(median(statusMs))} vs ${formatMs(median(getMs))}`);
    return {
      figure,
      median: formatMs(median(statusMs)),
      floor: `${formatMs(median(getMs))} (deploy get -o json)`,
      ratio: `${ratio.toFixed(2)}x`,
      goal: `<= ${STATUS_GOAL.toFixed(2)}x`,
      pass: ratio <= STATUS_GOAL,
    };
  } catch (error) {
    console.log("failed");
    return { figure, goal: `<= ${STATUS_GOAL.toFixed(2)}x`, pass: null, note: error.message.split("\n")[0] };
  }
}

function verifyRow({ node, bin, env, cwd, id, runs }) {
  const figure = "DEPLOYED -> verified (redeploy --verify, upper bound)";
  const goal = `<= ${formatMs(VERIFY_GOAL_MS)}`;
  const count = Math.max(5, Math.round(runs / 3));
  process.stdout.write(`timing ${figure}, ${count} releases ... `);
  try {
    const lags = [];
    for (let i = 0; i < count; i++) {
      const run = spawnSync(
        node,
        [bin, "deploy", "redeploy", id, "--verify", "--interval", "100ms", "-o", "json"],
        { env, cwd, encoding: "utf8", timeout: 60_000 },
      );
      const exitedAt = Date.now();
      if (run.status !== 0)
        throw new Error(`redeploy --verify: exit ${run.status}: ${run.stderr.slice(0, 300)}`);
      const printed = JSON.parse(run.stdout);
      if (printed.result !== "verified") throw new Error(`redeploy --verify: result ${printed.result}`);
      const revision = spawnSync(node, [bin, "deploy", "revisions", id, "-o", "json", "--limit", "1"], {
        env,
        cwd,
        encoding: "utf8",
        timeout: 60_000,
      });
      const [latest] = JSON.parse(revision.stdout);
      lags.push(exitedAt - Date.parse(latest.updated_at));
    }
    const mid = median(lags);
    console.log(`median ${formatMs(mid)}, max ${formatMs(Math.max(...lags))}`);
    return {
      figure,
      median: formatMs(mid),
      floor: `max ${formatMs(Math.max(...lags))}`,
      ratio: "-",
      goal,
      pass: mid <= VERIFY_GOAL_MS,
    };
  } catch (error) {
    console.log("failed");
    return { figure, goal, pass: null, note: error.message.split("\n")[0] };
  }
}
