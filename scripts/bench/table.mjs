// Goal 3 of the performance issue: long lists on a terminal and in YAML. `deploy list --all`
// over 10,000 deployments as a table on a pseudo-terminal, against the same list as ndjson on
// the same pseudo-terminal (the floor: the fastest format, through the same terminal); the
// table's time per row over 10,000 rows against 1,000 (linear); and the peak memory of the
// table and of `-o yaml` over 10,000, 5,000 (the 10k tenant from --offset 5000) and 1,000 rows:
// at most the memory goal (rss.mjs) at every size.
//
// The pseudo-terminal is test/terminal/helpers/pty-proxy.py (python3's pty module), which
// relays what the terminal shows to its own stdout, here /dev/null. The proxy runs for floor
// and subject alike, so its cost is in both. Peak RSS is cpctl's own (not the proxy's), read
// by a preloaded hook from process.resourceUsage() at exit. Bounded: at most `runs` rounds
// and about two minutes of rounds (at least three), each run stopped after two minutes.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { capture, median, timeOnce } from "./measure.mjs";
import { formatMb, formatMs } from "./report.mjs";
import { MEMORY_GOAL_MB, memoryGoal } from "./rss.mjs";

const PROXY = fileURLToPath(new URL("../../test/terminal/helpers/pty-proxy.py", import.meta.url));
const COLUMNS = 120;
const ROWS = 40;
const SMALL = 1_000;
const HALF = 5_000;
const LARGE = 10_000;
const PAGE = 100;
const ROUNDS_BUDGET_MS = 120_000;
const RUN_TIMEOUT_MS = 120_000;

/**
 * The figures as rows of the benchmark's table. `cpctl(label, argv, apiKey)` makes a command
 * (see scripts/bench.mjs); the tenants "bench-1k" and "bench-10k" hold 1,000 and 10,000
 * deployments. Samples go to raw.figures.table.
 */
export function tableRows({ cpctl, runs, raw }) {
  const rows = [];
  const python = realPython();
  if (!python) {
    for (const figure of FIGURES)
      rows.push({
        figure,
        goal: GOALS[figure],
        pass: null,
        note: "python3 with its pty module is not installed",
      });
    return rows;
  }
  const scratch = mkdtempSync(join(tmpdir(), "cpctl-bench-table-"));
  try {
    return measure({ cpctl, runs, raw, python, scratch });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const FIGURE_TIME = `deploy list --all, ${LARGE / 1000}k rows: table vs ndjson, pseudo-terminal`;
const FIGURE_TABLE_RSS = `--all table (pty) peak RSS, ${LARGE / 1000}k (${HALF / 1000}k, ${SMALL / 1000}k)`;
const FIGURE_TABLE_LINEAR = `--all table (pty) ms/100 rows, ${LARGE / 1000}k vs ${SMALL / 1000}k`;
const FIGURE_YAML_RSS = `--all -o yaml peak RSS, ${LARGE / 1000}k (${HALF / 1000}k, ${SMALL / 1000}k)`;
const FIGURE_YAML_TIME = `  --all -o yaml, ${LARGE / 1000}k rows, vs ndjson (/dev/null)`;
const FIGURES = [FIGURE_TIME, FIGURE_TABLE_RSS, FIGURE_TABLE_LINEAR, FIGURE_YAML_RSS, FIGURE_YAML_TIME];
const GOALS = {
  [FIGURE_TIME]: "<= 1.50x",
  [FIGURE_TABLE_RSS]: `<= ${MEMORY_GOAL_MB} MB at every size`,
  [FIGURE_TABLE_LINEAR]: "linear (<= 1.5x)",
  [FIGURE_YAML_RSS]: `<= ${MEMORY_GOAL_MB} MB at every size`,
  [FIGURE_YAML_TIME]: "-",
};

function measure({ cpctl, runs, raw, python, scratch }) {
  const hook = join(scratch, "rss-hook.cjs");
  writeFileSync(
    hook,
    'process.on("exit",()=>require("fs").writeFileSync(process.env.CPCTL_BENCH_RSS_OUT,String(process.resourceUsage().maxRSS)));\n',
  );
  const rssOut = join(scratch, "rss.out");
  // cpctl with the hook preloaded, on the pseudo-terminal or with stdout to /dev/null.
  const subject = (label, argv, apiKey, onPty) => {
    const cmd = cpctl(label, argv, apiKey);
    const node = [cmd.argv[0], "-r", hook, ...cmd.argv.slice(1)];
    return {
      ...cmd,
      argv: onPty ? [python, PROXY, String(COLUMNS), String(ROWS), "--", ...node] : node,
      env: { ...cmd.env, CPCTL_BENCH_RSS_OUT: rssOut },
    };
  };
  const list = ["deploy", "list", "--all"];
  const half = ["--offset", String(LARGE - HALF)];
  const cmds = {
    ndjsonPty: subject("ndjson 10k (pty)", [...list, "-o", "ndjson"], "bench-10k", true),
    tablePty: subject("table 10k (pty)", list, "bench-10k", true),
    tablePtyHalf: subject("table 5k (pty)", [...list, ...half], "bench-10k", true),
    tablePtySmall: subject("table 1k (pty)", list, "bench-1k", true),
    tablePtyPage: subject(
      "table one page of 100 (pty)",
      ["deploy", "list", "--limit", String(PAGE)],
      "bench-10k",
      true,
    ),
    ndjsonNull: subject("ndjson 10k (/dev/null)", [...list, "-o", "ndjson"], "bench-10k", false),
    yaml: subject("yaml 10k", [...list, "-o", "yaml"], "bench-10k", false),
    yamlHalf: subject("yaml 5k", [...list, "-o", "yaml", ...half], "bench-10k", false),
    yamlSmall: subject("yaml 1k", [...list, "-o", "yaml"], "bench-1k", false),
  };

  // Each command once, its output checked; a failure is reported instead of timed.
  const names = (out) => out.match(/bench-1?0?k-\d{5}/g) ?? [];
  const checks = {
    ndjsonPty: (out) => out.split("\n").filter((l) => l.startsWith("{")).length === LARGE,
    tablePty: (out) => names(out).length === LARGE && /NAME/.test(plain(out)),
    tablePtyHalf: (out) => names(out).length === HALF,
    tablePtySmall: (out) => names(out).length === SMALL,
    tablePtyPage: (out) => names(out).length === PAGE,
    ndjsonNull: (out) => out.split("\n").filter(Boolean).length === LARGE,
    yaml: (out) => out.split("\n").filter((l) => l.startsWith("- ")).length === LARGE,
    yamlHalf: (out) => out.split("\n").filter((l) => l.startsWith("- ")).length === HALF,
    yamlSmall: (out) => out.split("\n").filter((l) => l.startsWith("- ")).length === SMALL,
  };
  process.stdout.write("checking the table and yaml runs ... ");
  const failures = [];
  for (const [key, cmd] of Object.entries(cmds)) {
    const result = capture(cmd, RUN_TIMEOUT_MS);
    if (result.code !== 0 || !checks[key](result.stdout))
      failures.push(`${cmd.label}: exit ${result.code ?? result.signal}, output not as expected`);
  }
  if (failures.length > 0) {
    console.log("failed");
    return FIGURES.map((figure) => ({ figure, goal: GOALS[figure], pass: null, note: failures.join("; ") }));
  }
  console.log("ok");

  // Rounds of every command back to back (a noisy moment costs each alike); one warm-up round.
  const samples = Object.fromEntries(Object.keys(cmds).map((key) => [key, []]));
  const started = performance.now();
  process.stdout.write(
    `timing deploy list --all as a table on a ${COLUMNS}x${ROWS} pseudo-terminal and as yaml ... `,
  );
  for (let round = 0; round <= runs; round++) {
    for (const [key, cmd] of Object.entries(cmds)) {
      rmSync(rssOut, { force: true });
      const ms = timeOnce(cmd, RUN_TIMEOUT_MS);
      const kb = Number.parseInt(readFileSync(rssOut, "utf8"), 10);
      if (round > 0) samples[key].push({ ms, kb });
    }
    if (round >= 3 && performance.now() - started > ROUNDS_BUDGET_MS) break;
  }
  raw.figures.table = samples;
  const rounds = samples.tablePty.length;
  const ms = (key) => median(samples[key].map((s) => s.ms));
  const kb = (key) => median(samples[key].map((s) => s.kb));
  const paired = (a, b, rowsBetween) =>
    median(samples[a].map((s, i) => ((s.ms - samples[b][i].ms) / rowsBetween) * 100));
  console.log(
    `table ${formatMs(ms("tablePty"))} (${formatMb(kb("tablePty"))}), ndjson ${formatMs(ms("ndjsonPty"))} on the terminal; yaml ${formatMs(ms("yaml"))} (${formatMb(kb("yaml"))}); ${rounds} rounds`,
  );

  const timeRatio = ms("tablePty") / ms("ndjsonPty");
  const tableRss = kb("tablePty") / kb("tablePtyHalf");
  const perRowLarge = paired("tablePty", "tablePtySmall", LARGE - SMALL);
  const perRowSmall = paired("tablePtySmall", "tablePtyPage", SMALL - PAGE);
  const linear = perRowLarge / perRowSmall;
  const yamlRss = kb("yaml") / kb("yamlHalf");
  const yamlRatio = ms("yaml") / ms("ndjsonNull");
  return [
    {
      figure: FIGURE_TIME,
      median: formatMs(ms("tablePty")),
      floor: `${formatMs(ms("ndjsonPty"))} (-o ndjson, same terminal)`,
      ratio: `${timeRatio.toFixed(2)}x`,
      goal: GOALS[FIGURE_TIME],
      pass: timeRatio <= 1.5,
      note: `${rounds} rounds; ndjson to /dev/null ${formatMs(ms("ndjsonNull"))}: ${(ms("tablePty") / ms("ndjsonNull")).toFixed(2)}x of it`,
    },
    {
      figure: FIGURE_TABLE_RSS,
      median: formatMb(kb("tablePty")),
      floor: `${formatMb(kb("tablePtyHalf"))} (${HALF / 1000}k), ${formatMb(kb("tablePtySmall"))} (${SMALL / 1000}k)`,
      ratio: `${tableRss.toFixed(2)}x`,
      ...memoryGoal(kb("tablePty"), kb("tablePtyHalf"), kb("tablePtySmall")),
      note: `ratio: 10k against 5k; ndjson 10k on the same terminal: ${formatMb(kb("ndjsonPty"))}`,
    },
    {
      figure: FIGURE_TABLE_LINEAR,
      median: `${perRowLarge.toFixed(2)} ms`,
      floor: `${perRowSmall.toFixed(2)} ms`,
      ratio: `${linear.toFixed(2)}x`,
      goal: GOALS[FIGURE_TABLE_LINEAR],
      pass: linear <= 1.5,
      note: `rows 1,001 to 10,000 (10k run minus 1k run) against rows 101 to 1,000 (1k run minus one page); one page ${formatMs(ms("tablePtyPage"))}`,
    },
    {
      figure: FIGURE_YAML_RSS,
      median: formatMb(kb("yaml")),
      floor: `${formatMb(kb("yamlHalf"))} (${HALF / 1000}k), ${formatMb(kb("yamlSmall"))} (${SMALL / 1000}k)`,
      ratio: `${yamlRss.toFixed(2)}x`,
      ...memoryGoal(kb("yaml"), kb("yamlHalf"), kb("yamlSmall")),
      note: `ratio: 10k against 5k; ndjson 10k: ${formatMb(kb("ndjsonNull"))}`,
    },
    {
      figure: FIGURE_YAML_TIME,
      median: formatMs(ms("yaml")),
      floor: `${formatMs(ms("ndjsonNull"))} (-o ndjson)`,
      ratio: `${yamlRatio.toFixed(2)}x`,
      goal: "-",
      pass: "info",
    },
  ];
}

/** python3's own path: a pyenv shim is a shell script that costs tens of ms a start. */
function realPython() {
  const probe = spawnSync("python3", ["-c", "import pty, sys; print(sys.executable)"], { encoding: "utf8" });
  return probe.status === 0 ? probe.stdout.trim() : null;
}

/** Terminal output as text: escape sequences and carriage returns removed. */
function plain(text) {
  return text.replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "").replace(/\r/g, "");
}
