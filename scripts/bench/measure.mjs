// Whole-process timing: spawn, wait for exit, read the wall clock. Floor and subject are run
// in alternation (floor, subject, floor, subject, ...) so that a noisy moment of the machine
// costs both alike; the figures are medians.
import { spawnSync } from "node:child_process";
import { closeSync, openSync } from "node:fs";

/**
 * The child environment: the caller's, without NODE_EXTRA_CA_CERTS (see docs/performance.md)
 * and without proxy variables (every server is on loopback; a proxy variable would load undici
 * into every command: scripts/bench/proxy.mjs sets one where that is the point).
 */
export function benchEnv(extra = {}) {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"])
    for (const variable of [name, name.toLowerCase()]) delete env[variable];
  return Object.assign(env, extra);
}

/**
 * A command to run: `argv[0]` is the program. `stdout`: "null" (default: /dev/null, as when
 * output is redirected to a file) or "pipe" (captured; for checks only, not for timing).
 */
export function command(label, argv, { env = benchEnv(), cwd, stdin } = {}) {
  return { label, argv, env, cwd, stdin };
}

let devNull;
function nullFd() {
  devNull ??= openSync("/dev/null", "w");
  return devNull;
}

export function closeDevNull() {
  if (devNull !== undefined) closeSync(devNull);
  devNull = undefined;
}

/** Runs once, output discarded; returns wall milliseconds. Throws if the command fails. */
export function timeOnce(cmd, timeoutMs = 60_000) {
  const start = process.hrtime.bigint();
  const result = spawnSync(cmd.argv[0], cmd.argv.slice(1), {
    env: cmd.env,
    cwd: cmd.cwd,
    stdio: ["ignore", nullFd(), "pipe"],
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
  return ms;
}

/** Runs once with stdout captured (checks, not timing). */
export function capture(cmd, timeoutMs = 60_000) {
  const result = spawnSync(cmd.argv[0], cmd.argv.slice(1), {
    env: cmd.env,
    cwd: cmd.cwd,
    input: cmd.stdin,
    stdio: [cmd.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    timeout: timeoutMs,
    maxBuffer: 256 * 1024 * 1024,
    encoding: "utf8",
  });
  if (result.error) throw new Error(`${cmd.label}: ${result.error.message}`);
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Alternating runs of several commands (the first is usually the floor): `warmup` rounds
 * not counted, then `runs` rounds. Returns the samples of each, in the order given.
 */
export function alternate(cmds, { runs, warmup = 2, timeoutMs } = {}) {
  const samples = cmds.map(() => []);
  for (let round = 0; round < warmup + runs; round++) {
    cmds.forEach((cmd, i) => {
      const ms = timeOnce(cmd, timeoutMs);
      if (round >= warmup) samples[i].push(ms);
    });
  }
  return samples;
}

export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
