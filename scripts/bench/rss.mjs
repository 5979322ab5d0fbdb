// Peak resident memory of a whole process, with its wall time: GNU time's %M when
// /usr/bin/time is there, else a preloaded hook that reports process.resourceUsage().maxRSS
// from inside the child when it exits (node commands only).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { timeOnce } from "./measure.mjs";

const GNU_TIME = "/usr/bin/time";

/**
 * The memory goal of every figure that measures it (packing, lists, tables, YAML): a peak of
 * at most this many MB at every size (docs/performance.md, "Goals").
 */
export const MEMORY_GOAL_MB = 100;

/** A memory goal's row fields for the peaks `kb` (KB) of one figure's sizes, largest first. */
export function memoryGoal(...kb) {
  return { goal: `<= ${MEMORY_GOAL_MB} MB at every size`, pass: Math.max(...kb) / 1024 <= MEMORY_GOAL_MB };
}

let method;
/** "gnu-time" or "hook": how peak RSS is read on this machine. */
export function rssMethod() {
  if (method) return method;
  const probe = existsSync(GNU_TIME) ? spawnSync(GNU_TIME, ["-f", "%M", "true"], { encoding: "utf8" }) : null;
  method = probe && probe.status === 0 && /^\d+\s*$/m.test(probe.stderr) ? "gnu-time" : "hook";
  return method;
}

let scratch;
function scratchDir() {
  scratch ??= mkdtempSync(join(tmpdir(), "cpctl-bench-rss-"));
  return scratch;
}

export function cleanupRss() {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
}

/**
 * Runs `cmd` (argv[0] must be node for the hook method) with stdout to /dev/null; returns
 * { kb, ms }. Throws if the command fails.
 */
export function peakRss(cmd, { timeoutMs = 120_000 } = {}) {
  const out = join(scratchDir(), "rss.out");
  rmSync(out, { force: true });
  let argv;
  let env = cmd.env;
  if (rssMethod() === "gnu-time") {
    argv = [GNU_TIME, "-f", "%M", "-o", out, ...cmd.argv];
  } else {
    const hook = join(scratchDir(), "rss-hook.cjs");
    writeFileSync(
      hook,
      'process.on("exit",()=>require("fs").writeFileSync(process.env.CPCTL_BENCH_RSS_OUT,String(process.resourceUsage().maxRSS)));\n',
    );
    argv = [cmd.argv[0], "-r", hook, ...cmd.argv.slice(1)];
    env = { ...cmd.env, CPCTL_BENCH_RSS_OUT: out };
  }
  const ms = timeOnce({ ...cmd, argv, env }, timeoutMs);
  const kb = Number.parseInt(readFileSync(out, "utf8").trim().split("\n").pop(), 10);
  if (!Number.isFinite(kb)) throw new Error(`${cmd.label}: could not read the peak RSS`);
  return { kb, ms };
}
