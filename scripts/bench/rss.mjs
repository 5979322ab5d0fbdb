// Peak resident memory of a whole process, with its wall time: GNU time's %M when
// /usr/bin/time is there, else a preloaded hook that reports process.resourceUsage().maxRSS
// from inside the child when it exits (node commands only).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const GNU_TIME = "/usr/bin/time";

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
export function peakRss(cmd, { stdoutFd, timeoutMs = 120_000 } = {}) {
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
  const start = process.hrtime.bigint();
  const result = spawnSync(argv[0], argv.slice(1), {
    env,
    cwd: cmd.cwd,
    stdio: ["ignore", stdoutFd ?? "ignore", "pipe"],
    timeout: timeoutMs,
    maxBuffer: 4 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.error) throw new Error(`${cmd.label}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(
      `${cmd.label}: exit ${result.status ?? result.signal}\n${String(result.stderr).slice(0, 2000)}`,
    );
  }
  const kb = Number.parseInt(readFileSync(out, "utf8").trim().split("\n").pop(), 10);
  if (!Number.isFinite(kb)) throw new Error(`${cmd.label}: could not read the peak RSS`);
  return { kb, ms };
}
