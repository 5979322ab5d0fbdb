// The emulator's `--state` write cost against the size of its state: creates per second at
// 10,000 deployments against creates per second at none (docs/performance.md, goal >= 0.8x).
//
// Two real `cpctl emulator --state FILE` child processes (bin/cpctl.cjs, loopback, OS-chosen
// ports): one is seeded with 10,000 deployments through the API, then restarted on its file
// (so it starts from the file, as a user's emulator does); the other starts empty and is reset
// (POST /_emulator/reset) before each of its batches, so it measures "at none" every time.
// Batches of creates alternate between the two (none, 10k, none, 10k, ...) after warm-up
// rounds, so that a noisy stretch of the machine costs both alike; the figure is the ratio of
// the median rates. Bounded: a fixed number of creates, and a time limit for the whole figure.
import { mkdirSync, mkdtempSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { startListening } from "./child.mjs";
import { exchange, seedDeployments } from "./emulator.mjs";
import { median } from "./measure.mjs";

const FIGURE = "emulator --state creates/s, 10k vs 0 deployments";
const GOAL = 0.8;
const LARGE = 10_000;

/**
 * Measures the figure; returns one row of the benchmark's table (see report.mjs).
 * `bin`: bin/cpctl.cjs; `env`: the children's environment (benchEnv); `dir`: a directory to
 * work in (its own is made inside); `runs`: measured rounds (one batch per emulator each).
 */
export async function storeRow({
  bin,
  env,
  dir: scratch,
  runs,
  batch = 100,
  concurrency = 8,
  maxMs = 180_000,
}) {
  const deadline = performance.now() + maxMs;
  const dir = mkdtempSync(join(scratch, "store-"));
  const emulators = [];
  try {
    process.stdout.write(`--state creates: seeding ${LARGE.toLocaleString("en")} deployments ... `);
    const large = await seededEmulator({ bin, env, dir: join(dir, "large"), count: LARGE });
    emulators.push(large.emulator);
    const empty = await startStateEmulator({ bin, env, file: statePath(join(dir, "empty")) });
    emulators.push(empty);
    console.log(
      `${(large.seedMs / 1000).toFixed(1)} s (${Math.round((LARGE / large.seedMs) * 1000)}/s), restart on the file ${large.restartMs.toFixed(0)} ms`,
    );

    process.stdout.write(
      `timing --state creates: ${runs} alternating batches of ${batch} (${concurrency} connections), at none and at ${LARGE.toLocaleString("en")} ... `,
    );
    const rates = { none: [], large: [] };
    const warmup = 2;
    let round = 0;
    for (; round < warmup + runs && performance.now() < deadline; round++) {
      await reset(empty.url);
      const atNone = await createBatch({
        url: empty.url,
        prefix: `none-${round}`,
        count: batch,
        concurrency,
      });
      const atLarge = await createBatch({
        url: large.emulator.url,
        prefix: `more-${round}`,
        count: batch,
        concurrency,
      });
      if (round >= warmup) {
        rates.none.push((batch / atNone) * 1000);
        rates.large.push((batch / atLarge) * 1000);
      }
    }
    if (rates.none.length === 0) throw new Error(`no round finished within ${maxMs / 1000} s`);
    const none = median(rates.none);
    const at10k = median(rates.large);
    const ratio = at10k / none;
    console.log(`${Math.round(at10k)}/s vs ${Math.round(none)}/s`);
    const cut =
      rates.none.length < runs ? `; stopped at the time limit after ${rates.none.length} rounds` : "";
    return {
      figure: FIGURE,
      median: `${Math.round(at10k).toLocaleString("en")} creates/s`,
      floor: `${Math.round(none).toLocaleString("en")} creates/s (0 deployments)`,
      ratio: `${ratio.toFixed(2)}x`,
      goal: `>= ${GOAL.toFixed(2)}x`,
      pass: ratio >= GOAL,
      note: `batches of ${batch}, ${concurrency} connections; the large state grew to ${(LARGE + batch * round).toLocaleString("en")}${cut}`,
      samples: rates,
    };
  } catch (error) {
    console.log("failed");
    return { figure: FIGURE, goal: `>= ${GOAL.toFixed(2)}x`, pass: null, note: error.message.split("\n")[0] };
  } finally {
    await Promise.all(emulators.map((e) => e.stop()));
  }
}

/**
 * An emulator on a state file holding `count` deployments: seeded through the API, stopped
 * (a clean stop leaves the whole state in FILE), then started again on that file.
 */
export async function seededEmulator({ bin, env, dir, count, prefix = "seed" }) {
  const file = statePath(dir);
  const first = await startStateEmulator({ bin, env, file });
  let seeded;
  try {
    seeded =
      count > 0 ? await seedDeployments({ url: first.url, apiKey: API_KEY, count, prefix }) : { ms: 0 };
  } finally {
    await first.stop();
  }
  const started = performance.now();
  const emulator = await startStateEmulator({ bin, env, file });
  return { emulator, file, seedMs: seeded.ms, restartMs: performance.now() - started };
}

const API_KEY = "bench-store";

function statePath(dir) {
  mkdirSync(dir, { recursive: true });
  return join(dir, "cp.state.json");
}

/** `cpctl emulator --port 0 --stage-ms 0 --state FILE`; resolves once it prints its address. */
export async function startStateEmulator({ bin, env, file, timeoutMs = 60_000 }) {
  const emulator = await startListening({
    what: "cpctl emulator --state",
    argv: [
      process.execPath,
      bin,
      "emulator",
      "--port",
      "0",
      "--host",
      "127.0.0.1",
      "--stage-ms",
      "0",
      "--state",
      file,
    ],
    env,
    timeoutMs,
  });
  // A clean stop folds the journal into the state file: give it time before SIGKILL.
  return { ...emulator, stop: () => emulator.close(30_000) };
}

/** `count` creates, `concurrency` at a time over keep-alive connections; resolves the wall ms. */
export async function createBatch({ url, prefix, count, concurrency, apiKey = API_KEY }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const headers = { "X-Api-Key": apiKey, "Content-Type": "application/json", Accept: "application/json" };
  try {
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < count) {
        const i = next++;
        const body = JSON.stringify(createBody(`${prefix}-${i}`, i));
        const answer = await exchange(agent, `${url}/v2/deployments`, { method: "POST", headers, body });
        if (answer.status !== 201)
          throw new Error(`POST /v2/deployments: ${answer.status} ${answer.body.slice(0, 300)}`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
    return performance.now() - started;
  } finally {
    agent.destroy();
  }
}

async function reset(url) {
  const answer = await exchange(new http.Agent(), `${url}/_emulator/reset`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: "{}",
  });
  if (answer.status !== 204) throw new Error(`POST /_emulator/reset: ${answer.status} ${answer.body}`);
}

/** What the seeder sends for a container deployment: the same size of record. */
function createBody(name, i) {
  return {
    name,
    source: "internal_container",
    source_config: {},
    source_revision_config: { image_uri: `registry.example.com/agents/${name}:1.${i % 50}.0` },
    secrets: [
      { name: "OPENAI_API_KEY", value: `sk-bench-${i}` },
      { name: "DATABASE_URL", value: `postgres://agent:pw${i}@db.internal:5432/agent` },
    ],
  };
}
