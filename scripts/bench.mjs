#!/usr/bin/env node
// `npm run bench` (prebench builds): the performance goals of docs/performance.md, measured
// against their floors in the same run, on this machine, and printed as one table.
//
//   npm run bench                      # 31 alternating runs per figure
//   npm run bench -- --runs 61         # more runs per figure
//   npm run bench -- --quick           # a fast look: 7 runs, smaller load test
//   npm run bench -- --skip-pack       # no npm pack / npm install
//   npm run bench -- --only upload,wire  # some groups: startup, lists, wait, releases, emulator,
//                                      # package, upload, wire (default: all)
//   npm run bench -- --json out.json   # also write every sample
//
// Every figure is whole-process wall time (spawn to exit) with stdout to /dev/null. A floor
// and the figures measured against it run in alternation (floor, a, b, floor, a, b, ...)
// after two unrecorded warm-up rounds; the table shows medians. NODE_EXTRA_CA_CERTS is removed from every child's
// environment (see docs/performance.md). Misses are marked in the table; the exit code is 0
// unless the benchmark itself could not run.
//
// cpctl runs as users run it, through bin/cpctl.cjs (package.json "bin"). On Node 22 and later
// it turns on Node's compile cache (in Node's default place, the system's temporary
// directory): each command's checked run writes it, so the timed runs are warm, as every run
// after the first is; the indented rows run without it. (NODE_COMPILE_CACHE is not set: it
// would turn the cache on for the floors too.)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { coldNpxRows } from "./bench/cold-npx.mjs";
import { seedDeployments, startEmulator } from "./bench/emulator.mjs";
import { loadTest } from "./bench/load.mjs";
import { alternate, benchEnv, capture, closeDevNull, command, median } from "./bench/measure.mjs";
import { installTarball, npmEnv, pack, packWithoutRuntimeDependencies, scanBundle } from "./bench/pack.mjs";
import { pagesRow } from "./bench/page-window.mjs";
import { preparePeers } from "./bench/peers.mjs";
import { proxyVariablesHere, startForwardProxy } from "./bench/proxy.mjs";
import { releaseRows } from "./bench/releases.mjs";
import { formatMb, formatMs, renderTable, summary } from "./bench/report.mjs";
import { cleanupRss, memoryGoal, peakRss, rssMethod } from "./bench/rss.mjs";
import { startupGoal, startupNodes, startupRows } from "./bench/startup.mjs";
import { tableRows } from "./bench/table.mjs";
import { uploadRows } from "./bench/upload.mjs";
import { waitRows } from "./bench/wait.mjs";
import { wireRows } from "./bench/wire.mjs";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
// What package.json "bin" names: what users run.
const BIN = join(ROOT, "bin", "cpctl.cjs");
const NODE = process.execPath;

const GROUPS = ["startup", "lists", "wait", "releases", "emulator", "wire", "upload", "package"];
const args = parseArgs(process.argv.slice(2));
/** Whether any of these groups of figures is to be measured (--only). */
const wanted = (...groups) => !args.only || groups.some((group) => args.only.has(group));
const RUNS = args.runs ?? (args.quick ? 7 : 31);
const ALL_RUNS = Math.max(7, Math.round(RUNS / 2));
const LOAD_REQUESTS = args.quick ? 5_000 : 20_000;
const SMALL = 1_000;
const LARGE = 10_000;
const HALF = 5_000;
const PAGE = 100;

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
if (!existsSync(join(ROOT, "dist", "cli.js"))) {
  console.error("dist/cli.js is missing: run `npm run bench` (it builds first) or `npm run build`.");
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), "cpctl-bench-"));
const home = join(work, "home");
const cwd = join(work, "cwd");
mkdirSync(home);
mkdirSync(cwd);
const rows = [];
const raw = { runs: RUNS, figures: {} };
let emulator;
let proxy;

try {
  printHeader();
  if (proxyVariablesHere().length)
    console.log(`${proxyVariablesHere().join(", ")}: removed from the benchmark's child processes.`);

  emulator = await startEmulator({ root: ROOT, env: benchEnv({ HOME: home }) });
  console.log(`emulator: ${emulator.url} (pid ${emulator.pid}, memory only)`);
  if (wanted("startup", "lists", "emulator")) {
    for (const [key, count] of [
      ["bench-1k", SMALL],
      ["bench-10k", LARGE],
    ]) {
      const seeded = await seedDeployments({ url: emulator.url, apiKey: key, count, prefix: key });
      console.log(
        `seeded ${count.toLocaleString("en")} deployments for ${key} in ${formatMs(seeded.ms)} (${Math.round(seeded.perSecond)}/s, 64 concurrent POSTs)`,
      );
    }
  }

  const files = writeFixtures();
  const cliEnv = (apiKey) =>
    benchEnv({
      HOME: home,
      CPCTL_BASE_URL: emulator.url,
      CPCTL_API_KEY: apiKey,
      BENCH_IMAGE_TAG: "1.4.2",
      OPENAI_API_KEY: "sk-bench",
      DB_PASSWORD: "bench-pw",
    });
  const env = cliEnv("bench-10k");
  const cpctl = (label, argv, apiKey = "bench-10k") =>
    command(label, [NODE, BIN, ...argv], { env: cliEnv(apiKey), cwd });

  if (wanted("startup")) {
    // --- start-up figures, on every supported Node (scripts/bench/startup.mjs) ----------------
    proxy = await startForwardProxy({ root: ROOT });
    for (const node of startupNodes(ROOT, rows)) {
      await startupRows({
        node,
        bin: BIN,
        env,
        cwd,
        work,
        emulatorUrl: emulator.url,
        apiKey: "bench-10k",
        files,
        version: pkg.version,
        // The info row through a proxy (undici loaded), on the bench's own Node only.
        proxy: node.node === NODE ? proxy : undefined,
        timedRows,
        checkOutput,
      });
    }
    await proxy.close();
  }

  // --- deploy list --all -o ndjson: memory flat, time linear --------------------------------
  if (wanted("lists")) {
    allPagesRows(cpctl);
    rows.push(...tableRows({ cpctl, runs: ALL_RUNS, raw })); // goal 3: tables and yaml, any length
    rows.push(
      await pagesRow({
        emulatorUrl: emulator.url,
        argv: [NODE, BIN],
        env: cliEnv("bench-10k"),
        cwd,
        count: LARGE,
        runs: Math.max(3, Math.round(RUNS / 4)),
      }),
    );
  }

  // --- deploy wait: lag and request rate ---------------------------------------------------
  if (wanted("wait"))
    rows.push(...(await waitRows({ root: ROOT, node: NODE, bin: BIN, work, home, cwd, quick: args.quick })));

  // --- releases: deploy status, DEPLOYED -> verified ------------------------------------------
  if (wanted("releases"))
    rows.push(...(await releaseRows({ root: ROOT, node: NODE, bin: BIN, home, cwd, runs: RUNS })));

  // --- the emulator's list throughput ------------------------------------------------------
  if (wanted("emulator")) await loadRow();

  // --- packing and uploading; logs and lists at a distance; beside the public clients ------
  const peers = wanted("upload", "wire")
    ? preparePeers({ root: ROOT, home, cwd })
    : { peers: [], missing: [] };
  for (const reason of peers.missing) console.log(`public client not measured: ${reason}`);
  if (wanted("upload"))
    rows.push(
      ...(await uploadRows({
        root: ROOT,
        node: NODE,
        bin: BIN,
        home,
        cwd,
        work,
        runs: args.quick ? 3 : 7,
        peers: peers.peers,
      })),
    );
  if (wanted("wire"))
    rows.push(
      ...(await wireRows({
        root: ROOT,
        node: NODE,
        bin: BIN,
        home,
        cwd,
        runs: args.quick ? 3 : 7,
        peers: peers.peers,
      })),
    );

  // --- the packed package ------------------------------------------------------------------
  if (wanted("package") && !args.skipPack) {
    packRows(files);
    rows.push(
      ...coldNpxRows({
        root: ROOT,
        work,
        env: benchEnv({ HOME: home }),
        version: pkg.version,
        runs: Math.max(5, Math.round(RUNS / 2)),
      }),
    );
  }
} catch (error) {
  console.error(`\nbenchmark failed: ${error.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await proxy?.close();
  await emulator?.close();
  closeDevNull();
  cleanupRss();
  rmSync(work, { recursive: true, force: true });
}

if (rows.length) {
  console.log(`\n${renderTable(rows)}\n`);
  console.log(summary(rows));
  console.log(
    `\nMedians of ${RUNS} alternating runs (${ALL_RUNS} for --all) after 2 warm-up rounds; whole process, spawn to exit, stdout to /dev/null.` +
      `\nNODE_EXTRA_CA_CERTS was removed from every child's environment${process.env.NODE_EXTRA_CA_CERTS ? " (it is set here)" : ""}: it adds tens of ms to every Node start, floor included.` +
      "\nOn Node 22 and later, Node's compile cache was written by each command's checked run; the indented rows run without it.",
  );
  const load = loadavg()[0];
  if (load > cpus().length * 0.75) {
    console.log(
      `WARNING: load average ${load.toFixed(1)} on ${cpus().length} CPUs at the end: other work was running; the figures are noisy.`,
    );
  }
}
if (args.json) {
  writeFileSync(args.json, `${JSON.stringify({ rows, ...raw }, null, 2)}\n`);
  console.log(`samples written to ${args.json}`);
}

// ---------------------------------------------------------------------------------------------

function printHeader() {
  const cpu = cpus();
  console.log(
    `cpctl ${pkg.version} benchmark: node ${process.version}, ${cpu.length} x ${cpu[0]?.model ?? "cpu"}, load average ${loadavg()[0].toFixed(2)}`,
  );
  console.log(
    `NODE_EXTRA_CA_CERTS: removed from the benchmark's child processes (${process.env.NODE_EXTRA_CA_CERTS ? "set in this shell" : "not set in this shell"}).`,
  );
  if (process.env.NODE_OPTIONS)
    console.log(`NODE_OPTIONS is set (${process.env.NODE_OPTIONS}): it applies to floor and subject alike.`);
  console.log(
    `runs: ${RUNS} per figure, alternating with the floor; HOME and cwd are empty temporary directories.`,
  );
}

function writeFixtures() {
  const deployment = join(work, "deployment.yaml");
  writeFileSync(
    deployment,
    `# support-agent, production: a self-hosted container on the team's cluster.
name: support-agent-prod
source: external_container
source_config:
  listener_id: 6f1c2a7e-8f1d-4c3a-9b7e-1a2b3c4d5e6f
  listener_config:
    k8s_namespace: production
  resource_spec:
    min_scale: 2
    max_scale: 6
    cpu: 2
    memory_mb: 4096
    labels:
      team: support
      cost-center: cx-42
    annotations:
      owner: support-platform@example.com
source_revision_config:
  image_uri: ghcr.io/acme/support-agent:\${env:BENCH_IMAGE_TAG}
secrets:
  - name: OPENAI_API_KEY
    value: \${env:OPENAI_API_KEY}
  - name: DATABASE_URL
    value: postgres://agent:\${env:DB_PASSWORD}@db.internal:5432/support
  - name: LOG_LEVEL
    value: info
`,
  );
  // The same deployment as JSON: no YAML parser to load.
  const deploymentJson = join(work, "deployment.json");
  writeFileSync(
    deploymentJson,
    `${JSON.stringify(
      {
        name: "support-agent-prod",
        source: "external_container",
        source_config: {
          listener_id: "6f1c2a7e-8f1d-4c3a-9b7e-1a2b3c4d5e6f",
          listener_config: { k8s_namespace: "production" },
          resource_spec: {
            min_scale: 2,
            max_scale: 6,
            cpu: 2,
            memory_mb: 4096,
            labels: { team: "support", "cost-center": "cx-42" },
            annotations: { owner: "support-platform@example.com" },
          },
        },
        source_revision_config: { image_uri: "ghcr.io/acme/support-agent:${env:BENCH_IMAGE_TAG}" },
        secrets: [
          { name: "OPENAI_API_KEY", value: "${env:OPENAI_API_KEY}" },
          { name: "DATABASE_URL", value: "postgres://agent:${env:DB_PASSWORD}@db.internal:5432/support" },
          { name: "LOG_LEVEL", value: "info" },
        ],
      },
      null,
      2,
    )}\n`,
  );
  // The floor of `deploy list -o json`: the same request with node:http, the same output.
  const bareList = join(work, "bare-list.mjs");
  writeFileSync(
    bareList,
    `import http from "node:http";
const url = new URL("/v2/deployments", process.env.CPCTL_BASE_URL);
const headers = { Accept: "application/json", "X-Api-Key": process.env.CPCTL_API_KEY };
http
  .get(url, { headers }, (response) => {
    let text = "";
    response.setEncoding("utf8");
    response.on("data", (chunk) => (text += chunk));
    response.on("end", () => {
      if (response.statusCode !== 200) process.exitCode = 1;
      else process.stdout.write(JSON.stringify(JSON.parse(text).resources, null, 2) + "\\n");
    });
  })
  .on("error", (error) => {
    console.error(error.message);
    process.exitCode = 1;
  });
`,
  );
  return { deployment, deploymentJson, bareList };
}

/** Runs once with output captured; throws (the figure is then NOT MEASURED) if wrong. */
function checkOutput(cmd, ok, what) {
  const result = capture(cmd);
  let good = false;
  try {
    good = result.code === 0 && ok(result.stdout);
  } catch {
    good = false;
  }
  cmd.check = good
    ? null
    : `${cmd.label} should exit 0 and ${what}; got exit ${result.code ?? result.signal}: ${(result.stderr || result.stdout).trim().split("\n").slice(0, 3).join(" / ")}`;
}

/**
 * Several figures against one floor, all in the same alternation (floor, a, b, floor, a, b,
 * ...), so that a noisy stretch of the machine, which can last seconds here, falls on each of
 * them alike rather than on whichever was being timed then.
 */
function timedRows(floor, figures) {
  const goalText = (goal) => (goal === null ? "-" : `<= ${goal.toFixed(2)}x`);
  const unmeasured = (f, note) => rows.push({ figure: f.figure, goal: goalText(f.goal), pass: null, note });
  // A figure whose checked run failed is not timed; the others still are, with the floor.
  const timed = floor.check ? [] : figures.filter((f) => !f.subject.check);
  process.stdout.write(
    `timing ${figures.map((f) => f.figure.trim()).join(", ")} against ${floor.label} ... `,
  );
  const results = new Map();
  if (timed.length > 0) {
    try {
      const [floorMs, ...subjectsMs] = alternate([floor, ...timed.map((f) => f.subject)], { runs: RUNS });
      for (const [i, f] of timed.entries()) results.set(f, { floorMs, subjectMs: subjectsMs[i] });
      console.log(
        `${subjectsMs.map((ms) => formatMs(median(ms))).join(", ")} vs ${formatMs(median(floorMs))}`,
      );
    } catch (error) {
      console.log("failed");
      for (const f of timed) unmeasured(f, error.message.split("\n")[0]);
      return;
    }
  } else {
    console.log("not measured");
  }
  for (const f of figures) {
    const result = results.get(f);
    if (!result) {
      unmeasured(f, floor.check ?? f.subject.check);
      continue;
    }
    const { floorMs, subjectMs } = result;
    const ratio = median(subjectMs) / median(floorMs);
    raw.figures[f.figure] = { floor: floor.label, floorMs, subjectMs };
    rows.push({
      figure: f.figure,
      median: formatMs(median(subjectMs)),
      floor: `${formatMs(median(floorMs))} (${floor.label})`,
      ratio: `${ratio.toFixed(2)}x`,
      goal: goalText(f.goal),
      pass: f.goal === null ? "info" : ratio <= f.goal,
    });
  }
}

function allPagesRows(cpctl) {
  const onePage = cpctl(
    "deploy list --limit 100 -o ndjson",
    ["deploy", "list", "--limit", String(PAGE), "-o", "ndjson"],
    "bench-10k",
  );
  const small = cpctl(
    `deploy list --all -o ndjson (${SMALL})`,
    ["deploy", "list", "--all", "-o", "ndjson"],
    "bench-1k",
  );
  const large = cpctl(
    `deploy list --all -o ndjson (${LARGE})`,
    ["deploy", "list", "--all", "-o", "ndjson"],
    "bench-10k",
  );
  // Half of the 10k tenant (--offset 5000): the memory of a list against one half its length,
  // both longer than the window of pages asked ahead (src/api/pages.ts), as the table's figure.
  const half = cpctl(
    `deploy list --all --offset ${HALF} -o ndjson (${LARGE - HALF})`,
    ["deploy", "list", "--all", "--offset", String(HALF), "-o", "ndjson"],
    "bench-10k",
  );
  const lines = (expected) => (out) => out.split("\n").filter(Boolean).length === expected;
  checkOutput(onePage, lines(PAGE), `print ${PAGE} lines`);
  checkOutput(small, lines(SMALL), `print ${SMALL} lines`);
  checkOutput(half, lines(LARGE - HALF), `print ${LARGE - HALF} lines`);
  checkOutput(large, lines(LARGE), `print ${LARGE} lines`);
  const figureRss = `--all -o ndjson peak RSS, ${LARGE / 1000}k (${HALF / 1000}k, ${SMALL / 1000}k)`;
  const figureTime = `--all -o ndjson ms/page, ${LARGE / PAGE} vs ${SMALL / PAGE} pages`;
  const failed = onePage.check ?? small.check ?? half.check ?? large.check;
  if (failed) {
    rows.push({ figure: figureRss, goal: memoryGoal().goal, pass: null, note: failed });
    rows.push({ figure: figureTime, goal: "linear", pass: null, note: failed });
    return;
  }
  process.stdout.write(`timing deploy list --all (${rssMethod()} for peak RSS) ... `);
  const samples = { one: [], small: [], half: [], large: [] };
  for (let round = 0; round < ALL_RUNS + 1; round++) {
    for (const [key, cmd] of [
      ["one", onePage],
      ["small", small],
      ["half", half],
      ["large", large],
    ]) {
      const sample = peakRss(cmd);
      if (round > 0) samples[key].push(sample);
    }
  }
  raw.figures["--all"] = samples;
  const ms = (key) => median(samples[key].map((s) => s.ms));
  const kb = (key) => median(samples[key].map((s) => s.kb));
  // Time per page, from differences within a round (the three runs of a round are back to
  // back, so a noisy moment cancels out), medians over the rounds:
  //   1k:  (1,000-run - one-page run) / 9 pages   (start-up and the first page taken out)
  //   10k: (10,000-run - 1,000-run) / 90 pages    (the same, and the JIT warm-up pages too)
  // Linear means the later pages of a long run cost no more than the early ones.
  const paired = (a, b, pages) => median(samples[a].map((s, i) => (s.ms - samples[b][i].ms) / pages));
  const smallPerPage = paired("small", "one", SMALL / PAGE - 1);
  const largePerPage = paired("large", "small", (LARGE - SMALL) / PAGE);
  const rssRatio = kb("large") / kb("half");
  const timeRatio = largePerPage / smallPerPage;
  console.log(
    `${formatMs(ms("large"))} (${formatMb(kb("large"))}) vs ${formatMs(ms("half"))} (${formatMb(kb("half"))}) and ${formatMs(ms("small"))} (${formatMb(kb("small"))}); one page ${formatMs(ms("one"))}`,
  );
  rows.push({
    figure: figureRss,
    median: formatMb(kb("large")),
    floor: `${formatMb(kb("half"))} (${HALF / 1000}k), ${formatMb(kb("small"))} (${SMALL / 1000}k)`,
    ratio: `${rssRatio.toFixed(2)}x`,
    ...memoryGoal(kb("large"), kb("half"), kb("small")),
    note: "ratio: 10k against 5k (1k is shorter than the window of pages asked ahead)",
  });
  rows.push({
    figure: figureTime,
    median: `${largePerPage.toFixed(2)} ms/page`,
    floor: `${smallPerPage.toFixed(2)} ms/page`,
    ratio: `${timeRatio.toFixed(2)}x`,
    goal: "linear (<= 1.5x)",
    pass: timeRatio <= 1.5,
    note: `later pages cost ${timeRatio.toFixed(2)}x the early ones (whole runs ${formatMs(ms("large"))} and ${formatMs(ms("small"))}, one page ${formatMs(ms("one"))})`,
  });
  console.log(
    `  ms/page: ${largePerPage.toFixed(2)} for pages 11 to ${LARGE / PAGE} (10k run minus 1k run), ${smallPerPage.toFixed(2)} for pages 2 to ${SMALL / PAGE} (1k run minus one page); ` +
      `raw (whole run / pages): ${(ms("large") / (LARGE / PAGE)).toFixed(2)} and ${(ms("small") / (SMALL / PAGE)).toFixed(2)}`,
  );
}

async function loadRow() {
  const figure = "emulator list req/s, 50 keep-alive conns";
  process.stdout.write(
    `load test: ${LOAD_REQUESTS.toLocaleString("en")} x GET /v2/deployments (first page of 20, 10k tenant), 50 connections ... `,
  );
  try {
    const result = await loadTest({
      url: `${emulator.url}/v2/deployments`,
      headers: { "X-Api-Key": "bench-10k" },
      connections: 50,
      requests: LOAD_REQUESTS,
      maxMs: 60_000,
    });
    raw.figures.load = result;
    const good = result.failed === 0 && !result.timedOut;
    console.log(
      `${Math.round(result.perSecond)} req/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ${result.bytesPerAnswer} bytes/answer`,
    );
    rows.push({
      figure,
      median: `${Math.round(result.perSecond).toLocaleString("en")} req/s`,
      floor: `${result.ok.toLocaleString("en")} in ${formatMs(result.ms)}`,
      ratio: "-",
      goal: ">= 2,000 req/s",
      pass: good ? result.perSecond >= 2000 : null,
      note: good
        ? undefined
        : `${result.failed} failed${result.timedOut ? ", stopped at the time limit" : ""} (${result.error ?? ""})`,
    });
  } catch (error) {
    console.log("failed");
    rows.push({ figure, goal: ">= 2,000 req/s", pass: null, note: error.message });
  }
}

function packRows(files) {
  const packDir = join(work, "pack");
  const cache = join(work, "empty-npm-cache");
  mkdirSync(cache, { recursive: true });
  const env = npmEnv(benchEnv({ HOME: home }), cache);
  console.log(
    "\npacked package (npm pack; npm install --offline --no-audit --no-fund with an empty npm cache):",
  );
  let packed;
  try {
    packed = pack(ROOT, join(packDir, "out"), env);
  } catch (error) {
    rows.push({ figure: "npm pack", goal: "packs", pass: null, note: error.message.split("\n")[0] });
    return;
  }
  const deps = Object.keys(pkg.dependencies ?? {});
  const maps = packed.files.filter((f) => f.path.endsWith(".map")).length;
  const largest = [...packed.files].sort((a, b) => b.size - a.size).slice(0, 3);
  console.log(
    `  ${packed.tarball.split("/").pop()}: ${(packed.size / 1024).toFixed(0)} kB packed, ${(packed.unpackedSize / 1024).toFixed(0)} kB unpacked, ${packed.files.length} files (${maps} source maps)`,
  );
  console.log(
    `  largest files: ${largest.map((f) => `${f.path} ${(f.size / 1024).toFixed(0)} kB`).join(", ")}`,
  );
  console.log(`  package.json "dependencies": ${deps.length ? deps.join(", ") : "none"}`);
  const scan = scanBundle(join(ROOT, "dist"));
  console.log(
    `  dist/ imports from outside itself: ${scan.foreignImports.length ? scan.foreignImports.join(", ") : "nothing but node: builtins"}; ` +
      `createRequire is called in: ${scan.createRequire.length ? scan.createRequire.join(", ") : "no file"}`,
  );

  const asIs = installTarball(packed.tarball, join(packDir, "as-is"), env);
  const extra = asIs.installed.filter((n) => n !== pkg.name);
  console.log(
    asIs.ok
      ? `  install as packed: ok in ${formatMs(asIs.ms)}, ${extra.length ? `${extra.length} packages besides cpctl` : "nothing besides cpctl"}`
      : `  install as packed: FAILED in ${formatMs(asIs.ms)}: ${asIs.reason}`,
  );
  rows.push({
    figure: "npm install of the tarball, offline",
    median: formatMs(asIs.ms),
    floor: asIs.ok ? `${extra.length} other packages` : "failed",
    ratio: "-",
    goal: "no runtime deps to fetch",
    pass: asIs.ok && extra.length === 0,
    note: asIs.ok
      ? extra.length
        ? `installs ${extra.length} packages the bundle already contains`
        : undefined
      : `${asIs.reason}; package.json lists ${deps.length} runtime dependencies that the bundle already contains`,
  });

  let installDir = asIs.ok ? join(packDir, "as-is") : null;
  let label = "";
  if (deps.length) {
    const variant = packWithoutRuntimeDependencies(packed.tarball, join(packDir, "variant"), env);
    const trial = installTarball(variant.tarball, join(packDir, "no-deps"), env);
    console.log(
      `  the same tarball with "dependencies" moved to "devDependencies": ${trial.ok ? `installs offline in ${formatMs(trial.ms)}, ${trial.installed.length - 1} other packages` : `FAILED: ${trial.reason}`}`,
    );
    if (trial.ok) {
      installDir = join(packDir, "no-deps");
      label = " [deps moved to devDependencies]";
      const ok = functionalCheck(installDir, files);
      console.log(
        `  commands from that install (no node_modules but cpctl): ${ok.length ? `FAILED: ${ok.join("; ")}` : "--version, --help, deploy create --dry-run -f FILE, deploy list -o table: all ok"}`,
      );
    }
  } else if (asIs.ok) {
    const ok = functionalCheck(installDir, files);
    console.log(
      `  commands from the install: ${ok.length ? `FAILED: ${ok.join("; ")}` : "--version, --help, deploy create --dry-run -f FILE, deploy list -o table: all ok"}`,
    );
  }
  if (!installDir) {
    rows.push({
      figure: "npx cpctl --version, offline",
      goal: "runs",
      pass: null,
      note: "nothing could be installed offline",
    });
    return;
  }

  const npxEnv = npmEnv(benchEnv({ HOME: home }), cache);
  const npxFloor = command('npx -c "node -e 0"', ["npx", "--offline", "-c", "node -e 0"], {
    env: npxEnv,
    cwd: installDir,
  });
  const npx = command("npx cpctl --version", ["npx", "--offline", "cpctl", "--version"], {
    env: npxEnv,
    cwd: installDir,
  });
  const installedBin = command(
    "node_modules/.bin/cpctl --version",
    [join(installDir, "node_modules", ".bin", "cpctl"), "--version"],
    {
      env: benchEnv({ HOME: home }),
      cwd: installDir,
    },
  );
  // The installed command starts through its `#!/usr/bin/env node` line (env looks node up on
  // PATH); so does this floor, an empty script, so that the ratio is cpctl's own cost.
  const emptyBin = join(work, "empty-bin");
  writeFileSync(emptyBin, "#!/usr/bin/env node\n", { mode: 0o755 });
  const installedFloor = command("#!/usr/bin/env node, empty script", [emptyBin], {
    env: benchEnv({ HOME: home }),
    cwd: installDir,
  });
  checkOutput(npx, (out) => out.trim() === pkg.version, `print ${pkg.version}`);
  checkOutput(installedBin, (out) => out.trim() === pkg.version, `print ${pkg.version}`);
  const npxRuns = Math.max(5, Math.round(RUNS / 2));
  process.stdout.write(`  timing npx cpctl --version (${npxRuns} runs) ... `);
  if (npx.check) {
    console.log("not measured");
    rows.push({
      figure: `npx cpctl --version, offline${label}`,
      goal: "runs offline",
      pass: false,
      note: npx.check,
    });
  } else {
    const [floorMs, subjectMs] = alternate([npxFloor, npx], { runs: npxRuns, warmup: 1 });
    raw.figures.npx = { floorMs, subjectMs };
    console.log(`${formatMs(median(subjectMs))} vs ${formatMs(median(floorMs))}`);
    rows.push({
      figure: `npx cpctl --version, offline${label}`,
      median: formatMs(median(subjectMs)),
      floor: `${formatMs(median(floorMs))} (npx -c "node -e 0")`,
      ratio: `${(median(subjectMs) / median(floorMs)).toFixed(2)}x`,
      goal: "runs offline",
      pass: true,
    });
  }
  timedRows(installedFloor, [
    {
      figure: `installed bin/cpctl --version${label}`,
      subject: installedBin,
      goal: startupGoal(process.versions.node.split(".")[0]),
    },
  ]);
}

/** Runs a few commands from an install (its own node_modules only); returns the failures. */
function functionalCheck(installDir, files) {
  const bin = join(installDir, "node_modules", ".bin", "cpctl");
  const env = benchEnv({
    HOME: home,
    CPCTL_BASE_URL: emulator.url,
    CPCTL_API_KEY: "bench-1k",
    BENCH_IMAGE_TAG: "1.4.2",
    OPENAI_API_KEY: "sk",
    DB_PASSWORD: "pw",
  });
  const failures = [];
  for (const argv of [
    ["--version"],
    ["--help"],
    ["deploy", "create", "--dry-run", "-f", files.deployment],
    ["deploy", "list", "-o", "table"],
  ]) {
    const result = spawnSync(bin, argv, { cwd: installDir, env, encoding: "utf8", timeout: 30_000 });
    if (result.status !== 0)
      failures.push(`${argv.join(" ")}: exit ${result.status}: ${result.stderr.trim().split("\n")[0]}`);
  }
  return failures;
}

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--runs") out.runs = Number.parseInt(argv[++i], 10);
    else if (arg === "--quick") out.quick = true;
    else if (arg === "--skip-pack") out.skipPack = true;
    else if (arg === "--only") out.only = new Set(argv[++i].split(","));
    else if (arg === "--json") out.json = argv[++i];
    else if (arg === "--help" || arg === "-h") {
      console.log(
        "usage: npm run bench -- [--runs N] [--quick] [--skip-pack] [--only GROUP,...] [--json FILE]\n" +
          `groups: ${GROUPS.join(", ")}`,
      );
      process.exit(0);
    } else {
      console.error(`unknown option ${arg} (try --help)`);
      process.exit(2);
    }
  }
  for (const group of out.only ?? []) {
    if (!GROUPS.includes(group)) {
      console.error(`--only: no group ${group}; the groups are ${GROUPS.join(", ")}`);
      process.exit(2);
    }
  }
  if (out.runs !== undefined && !(out.runs >= 3 && out.runs <= 200)) {
    console.error("--runs must be a whole number from 3 to 200");
    process.exit(2);
  }
  return out;
}
