// Logs and lists at a network's distance (issue 26): each command through the delay proxy
// (delay-proxy.mjs) at round trips of 0, 100 and 200 ms, against a floor measured in the same
// run, alternating, on an emulator of its own:
//
// - the whole runtime log, about 21,000 lines: `deploy logs ID --all` against a script that
//   reads the deployment (for the revision that serves) and pages through that revision's log
//   1,000 entries a request as the cursor leads (the least a client can do); the requests each
//   made; and how many round trips after its first request the first line is on stdout;
// - `deploy logs ID --limit 1000` against the deployment and one request for the newest 1,000;
// - `deploy list --all -o ndjson` over 2,000 deployments against asking every page at once
//   (which only a script that knows the count can do), with the requests each sent;
// - `deploy logs ID --follow`: requests a second against the public clients following the
//   same log (when installed: peers.mjs), or else against the rate of their design, one
//   request after each pause of 2 s.
//
// Logs are read from the documented GET /v2/deployments/{id}/revisions/{rid}/logs, the floors
// too (scripts/bench/floors/logs-*.mjs), so that floor and subject read the same endpoint; the
// public clients read the /v1/projects calls.
//
// Every command is checked once (its output against the floor's) before it is timed.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startListening } from "./child.mjs";
import { exchange, seedDeployments, startEmulator } from "./emulator.mjs";
import { benchEnv, command, median } from "./measure.mjs";
import { formatMs } from "./report.mjs";

export const ROUND_TRIPS_MS = [0, 100, 200];
const LOG_LINES = 21_000;
const LIST_COUNT = 2_000;
const FOLLOW_MS = 10_000;
/** The pause of the public clients' --follow (and cpctl's): one request after each. */
const FOLLOW_PAUSE_MS = 2_000;
const FLOORS = fileURLToPath(new URL("./floors/", import.meta.url));
const LOGS_KEY = "bench-wire-logs";
const LIST_KEY = "bench-wire-list";

/**
 * { root, node, bin, home, cwd, runs, peers } -> rows. `peers`: the public clients that could
 * be installed (peers.mjs), each with follow(url, key, id) giving its argv and env.
 */
export async function wireRows({ root, node, bin, home, cwd, runs, peers = [] }) {
  const rows = [];
  let emulator;
  let proxy;
  try {
    emulator = await startEmulator({ root, env: benchEnv({ HOME: home }) });
    const { id, until, lines } = await seedLog(emulator.url);
    await seedDeployments({ url: emulator.url, apiKey: LIST_KEY, count: LIST_COUNT, prefix: "wire" });
    console.log(
      `\nlogs and lists at a distance: a runtime log of ${lines.toLocaleString("en")} lines, ${LIST_COUNT.toLocaleString("en")} deployments`,
    );
    proxy = await startListening({
      what: "the delay proxy",
      argv: [node, join(root, "scripts", "bench", "delay-proxy.mjs"), "--target", emulator.url],
      env: benchEnv(),
    });
    const env = (key) => benchEnv({ HOME: home, CPCTL_BASE_URL: proxy.url, CPCTL_API_KEY: key });
    const cpctl = (label, argv, key = LOGS_KEY) =>
      command(label, [node, bin, ...argv], { env: env(key), cwd });
    const floor = (label, script, args, key = LOGS_KEY) =>
      command(label, [node, join(FLOORS, script), ...args], { env: env(key), cwd });
    const commands = {
      all: cpctl("deploy logs ID --all", ["deploy", "logs", id, "--all", "--until", until]),
      allFloor: floor("the deployment, pages of 1,000 as the cursor leads", "logs-all.mjs", [id, until]),
      newest: cpctl("deploy logs ID --limit 1000", [
        "deploy",
        "logs",
        id,
        "--limit",
        "1000",
        "--until",
        until,
      ]),
      newestFloor: floor("the deployment, one request of 1,000", "logs-newest.mjs", [id, until]),
      list: cpctl("deploy list --all -o ndjson", ["deploy", "list", "--all", "-o", "ndjson"], LIST_KEY),
      listFloor: floor("every page at once", "list-all-at-once.mjs", [String(LIST_COUNT)], LIST_KEY),
    };
    for (const rtt of ROUND_TRIPS_MS) {
      await control(proxy.url, "POST", "/_delay/rtt", { rtt_ms: rtt });
      rows.push(...(await logRows(proxy.url, commands, rtt, runs)));
      rows.push(await listRow(proxy.url, commands, rtt, runs));
    }
    for (const rtt of ROUND_TRIPS_MS) {
      await control(proxy.url, "POST", "/_delay/rtt", { rtt_ms: rtt });
      rows.push(await followRow({ proxyUrl: proxy.url, cpctl, id, rtt, peers, home, cwd }));
    }
  } catch (error) {
    console.log(`logs and lists at a distance: failed: ${error.message.split("\n")[0]}`);
    rows.push({
      figure: "logs and lists at a distance",
      goal: "measured",
      pass: null,
      note: error.message.split("\n")[0],
    });
  } finally {
    await proxy?.close();
    await emulator?.close();
  }
  return rows;
}

/** One internal_container deployment whose runtime log holds about LOG_LINES lines (its clock moved on). */
async function seedLog(url) {
  const headers = { "X-Api-Key": LOGS_KEY, "Content-Type": "application/json", Accept: "application/json" };
  const created = await exchange(false, `${url}/v2/deployments`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      name: "wire-logs",
      source: "internal_container",
      source_config: {},
      source_revision_config: { image_uri: "registry.example.com/agents/wire:1.0.0" },
      secrets: [],
    }),
  });
  if (created.status !== 201) throw new Error(`POST /v2/deployments: ${created.status} ${created.body}`);
  const { id } = JSON.parse(created.body);
  // One request line every 5 s while it serves (src/emulator/log-lines.ts). The log keeps
  // growing with the clock: every command reads it up to the same instant.
  const clock = JSON.parse(await control(url, "POST", "/_emulator/clock", { advance_ms: LOG_LINES * 5_000 }));
  const until = clock.now;
  return { id, until, lines: await countLines(url, id, until) };
}

async function countLines(url, id, until) {
  const headers = { "X-Api-Key": LOGS_KEY, Accept: "application/json" };
  const deployment = JSON.parse((await exchange(false, `${url}/v2/deployments/${id}`, { headers })).body);
  const path = `${url}/v2/deployments/${id}/revisions/${deployment.active_revision_id ?? deployment.latest_revision_id}/logs`;
  let total = 0;
  let offset = null;
  for (let page = 0; page < 100; page++) {
    const query = new URLSearchParams({ type: "deploy", order: "asc", limit: "1000", end_time: until });
    if (offset) query.set("offset", offset);
    const answer = await exchange(false, `${path}?${query}`, { method: "GET", headers });
    const body = JSON.parse(answer.body);
    total += body.logs.length;
    if (body.next_offset === null || body.logs.length < 1000) return total;
    offset = body.next_offset;
  }
  throw new Error("the log has more than 100 pages");
}

async function logRows(proxyUrl, c, rtt, runs) {
  const rows = [];
  const at = `${rtt} ms`;
  // Checked: the same lines as the floor, and how many requests each makes.
  const check = await checkSame(proxyUrl, c.all, c.allFloor);
  const whole = `whole log (${check.lines.toLocaleString("en")} lines), ${at} round trip`;
  const first = `  first line of the whole log, ${at}: round trips`;
  const newest = `deploy logs --limit 1000, ${at} round trip`;
  if (check.problem) {
    rows.push({ figure: whole, goal: "<= 1.50x", pass: null, note: check.problem });
    return rows;
  }
  process.stdout.write(`timing the whole log at ${at} (${runs} runs) ... `);
  const samples = await alternateAsync(proxyUrl, [c.allFloor, c.all], runs);
  const [floorRuns, subjectRuns] = samples;
  const ratio = median(subjectRuns.map((r) => r.ms)) / median(floorRuns.map((r) => r.ms));
  console.log(
    `${formatMs(median(subjectRuns.map((r) => r.ms)))} vs ${formatMs(median(floorRuns.map((r) => r.ms)))}`,
  );
  rows.push({
    figure: whole,
    median: `${formatMs(median(subjectRuns.map((r) => r.ms)))}, ${check.subjectRequests} req`,
    floor: `${formatMs(median(floorRuns.map((r) => r.ms)))}, ${check.floorRequests} req (${c.allFloor.label})`,
    ratio: `${ratio.toFixed(2)}x`,
    goal: "<= 1.50x",
    pass: ratio <= 1.5,
  });
  // The first line, counted in round trips from the first request the command made (its
  // connection's handshake included, as a real network charges it): three, as for the floor
  // (the handshake, the deployment, the first page), plus the time the emulator takes to
  // answer, which both wait for alike.
  if (rtt > 0) {
    const trips = median(subjectRuns.map((r) => (r.firstOutput - (r.firstRequest - rtt)) / rtt));
    const floorTrips = median(floorRuns.map((r) => (r.firstOutput - (r.firstRequest - rtt)) / rtt));
    rows.push({
      figure: first,
      median: `${trips.toFixed(2)} round trips`,
      floor: `${floorTrips.toFixed(2)} (${c.allFloor.label})`,
      ratio: `+${(trips - floorTrips).toFixed(2)}`,
      goal: "3, as the floor (+0.25)",
      pass: trips <= floorTrips + 0.25,
      note: "from the first request to the first line on stdout; the connection's handshake is one round trip, the deployment (for the revision that serves) another, the first page a third; the rest is the emulator's time to answer",
    });
  }
  const newestCheck = await checkSame(proxyUrl, c.newest, c.newestFloor);
  if (newestCheck.problem) {
    rows.push({ figure: newest, goal: "<= 1.50x, 2 requests", pass: null, note: newestCheck.problem });
    return rows;
  }
  const [nf, ns] = await alternateAsync(proxyUrl, [c.newestFloor, c.newest], runs);
  const newestRatio = median(ns.map((r) => r.ms)) / median(nf.map((r) => r.ms));
  rows.push({
    figure: newest,
    median: `${formatMs(median(ns.map((r) => r.ms)))}, ${newestCheck.subjectRequests} req`,
    floor: `${formatMs(median(nf.map((r) => r.ms)))}, ${newestCheck.floorRequests} req (${c.newestFloor.label})`,
    ratio: `${newestRatio.toFixed(2)}x`,
    // The deployment (for the revision that serves), then one read of 1,000.
    goal: "<= 1.50x, 2 requests",
    pass: newestRatio <= 1.5 && newestCheck.subjectRequests === 2,
  });
  return rows;
}

async function listRow(proxyUrl, c, rtt, runs) {
  const figure = `deploy list --all (${LIST_COUNT.toLocaleString("en")}), ${rtt} ms round trip`;
  const check = await checkSame(proxyUrl, c.list, c.listFloor);
  if (check.problem) return { figure, goal: "<= 1.50x", pass: null, note: check.problem };
  process.stdout.write(`timing deploy list --all at ${rtt} ms (${runs} runs) ... `);
  const [floorRuns, subjectRuns] = await alternateAsync(proxyUrl, [c.listFloor, c.list], runs);
  const subject = median(subjectRuns.map((r) => r.ms));
  const floor = median(floorRuns.map((r) => r.ms));
  console.log(`${formatMs(subject)} vs ${formatMs(floor)}`);
  // Issue 34's goals: no more requests past the list's end than pages that held items (20
  // pages of 100: at most 40 requests), and within 0.5 s at a 100 ms round trip. At 200 ms the
  // figure is shown for reference; on loopback it is parsing and printing 2,000 deployments.
  const pagesWithItems = Math.ceil(LIST_COUNT / 100);
  const withinBudget = check.subjectRequests <= 2 * pagesWithItems;
  return {
    figure,
    median: `${formatMs(subject)}, ${check.subjectRequests} req`,
    floor: `${formatMs(floor)}, ${check.floorRequests} req (${c.listFloor.label})`,
    ratio: `${(subject / floor).toFixed(2)}x`,
    goal: rtt === 100 ? `<= 0.50 s, <= ${2 * pagesWithItems} req` : `<= ${2 * pagesWithItems} req`,
    pass: rtt === 100 ? subject <= 500 && withinBudget : withinBudget,
  };
}

async function followRow({ proxyUrl, cpctl, id, rtt, peers, home, cwd }) {
  const figure = `deploy logs --follow, ${rtt} ms round trip: requests/s`;
  const design = 1000 / (FOLLOW_PAUSE_MS + rtt);
  try {
    const subject = await followRate(
      proxyUrl,
      cpctl("deploy logs ID --follow", ["deploy", "logs", id, "--follow"]),
    );
    const measured = [];
    for (const peer of peers) {
      const cmd = peer.follow({ url: proxyUrl, key: LOGS_KEY, id, home, cwd });
      if (cmd) measured.push({ name: peer.name, rate: await followRate(proxyUrl, cmd) });
    }
    const least = measured.length ? Math.min(...measured.map((m) => m.rate)) : design;
    const floorText = measured.length
      ? measured.map((m) => `${m.name} ${m.rate.toFixed(3)}`).join(", ")
      : `${design.toFixed(3)} (their design: one request after each 2 s pause; no public client installed)`;
    return {
      figure,
      median: `${subject.toFixed(3)} req/s`,
      floor: floorText,
      ratio: `${(subject / least).toFixed(2)}x`,
      goal: "<= 1.00x the public clients (+5%)",
      pass: subject <= least * 1.05,
    };
  } catch (error) {
    return { figure, goal: "<= the public clients", pass: null, note: error.message.split("\n")[0] };
  }
}

/**
 * Runs `cmd` for FOLLOW_MS then interrupts it (SIGINT); the rate is that of its requests from
 * the first log read on (a read of the documented endpoint or of /v1, and what a client asks in
 * place of a read: cpctl asks the deployment after a read that brought nothing new):
 * (requests - 2) / (time from the second to the last).
 */
async function followRate(proxyUrl, cmd) {
  await control(proxyUrl, "POST", "/_delay/reset");
  const child = spawn(cmd.argv[0], cmd.argv.slice(1), {
    env: cmd.env,
    cwd: cmd.cwd,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  await Promise.race([new Promise((resolve) => setTimeout(resolve, FOLLOW_MS)), exited]);
  child.kill("SIGINT");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
  const { requests } = JSON.parse(await control(proxyUrl, "GET", "/_delay/stats"));
  const first = requests.findIndex((r) => /\/(deploy_logs|build_logs|logs)$/.test(r.path));
  const logs = first === -1 ? [] : requests.slice(first);
  if (logs.length < 3)
    throw new Error(
      `${cmd.label}: ${logs.length} log requests in ${FOLLOW_MS / 1000} s: ${stderr.trim().split("\n")[0] ?? ""}`,
    );
  return ((logs.length - 2) / (logs.at(-1).at - logs[1].at)) * 1000;
}

/** Runs both once, captured: same lines of output? and the requests each made. */
async function checkSame(proxyUrl, subject, floor) {
  const a = await runOnce(proxyUrl, subject, true);
  const b = await runOnce(proxyUrl, floor, true);
  const linesOf = (text) => text.split("\n").filter(Boolean);
  const normal = (lines) => lines.map((line) => (line.startsWith("{") ? JSON.parse(line).id : line));
  let problem = null;
  if (a.code !== 0) problem = `${subject.label}: exit ${a.code}: ${a.stderr.trim().split("\n")[0] ?? ""}`;
  else if (b.code !== 0) problem = `${floor.label}: exit ${b.code}: ${b.stderr.trim().split("\n")[0] ?? ""}`;
  else if (normal(linesOf(a.stdout)).join("\n") !== normal(linesOf(b.stdout)).join("\n"))
    problem = `${subject.label} printed ${linesOf(a.stdout).length} lines, not the ${linesOf(b.stdout).length} of the floor`;
  return {
    problem,
    lines: linesOf(b.stdout).length,
    subjectRequests: a.requests,
    floorRequests: b.requests,
  };
}

/** Floor and subject in alternation, `runs` times each after one warm-up round. */
async function alternateAsync(proxyUrl, cmds, runs) {
  const samples = cmds.map(() => []);
  for (let round = 0; round < runs + 1; round++) {
    for (const [i, cmd] of cmds.entries()) {
      const run = await runOnce(proxyUrl, cmd, false);
      if (run.code !== 0)
        throw new Error(`${cmd.label}: exit ${run.code}: ${run.stderr.trim().split("\n")[0] ?? ""}`);
      if (round > 0) samples[i].push(run);
    }
  }
  return samples;
}

const wallNow = () => performance.timeOrigin + performance.now();

/**
 * One run, stdout read (kept when `keep`): wall milliseconds from spawn to exit, when the first
 * byte of output came, when the proxy saw its first request, and how many requests it made.
 */
async function runOnce(proxyUrl, cmd, keep) {
  await control(proxyUrl, "POST", "/_delay/reset");
  const started = wallNow();
  const child = spawn(cmd.argv[0], cmd.argv.slice(1), {
    env: cmd.env,
    cwd: cmd.cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let firstOutput = null;
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    firstOutput ??= wallNow();
    if (keep) stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise((resolve) =>
    child.once("close", (status, signal) => resolve(status ?? signal)),
  );
  const ended = wallNow();
  const stats = JSON.parse(await control(proxyUrl, "GET", "/_delay/stats"));
  return {
    code,
    ms: ended - started,
    firstOutput: firstOutput ?? ended,
    firstRequest: stats.requests.length ? stats.since + stats.requests[0].at : ended,
    requests: stats.requests.length,
    stdout,
    stderr,
  };
}

function control(baseUrl, method, path, body) {
  return exchange(false, `${baseUrl}${path}`, {
    method,
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((answer) => {
    if (answer.status < 200 || answer.status >= 300)
      throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
    return answer.body;
  });
}
