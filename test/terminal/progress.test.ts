// Waiting shows a spinner on a terminal and plain timestamped lines anywhere else. The
// emulator's clock is manual: a revision stays in CREATING until the test settles it, which
// it does once the CLI has shown that status, so nothing depends on timing luck.
import { spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import type { Ctx } from "../../src/context.js";
import { lineReporter } from "../../src/wait/progress.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { cliEnv, instantClock, runCli } from "../helpers/run-cli.js";
import { BIN, plain, python3Available, runOnPty, SGR, terminalEnv, WAIT_MS } from "./helpers/pty.js";

const SPINNER_FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
const ISO_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z revision [0-9a-f-]{36}: /;

let em: TestEmulator;
beforeEach(async () => {
  em = await startTestEmulator({ stageMs: 1000 });
});
afterEach(async () => {
  await em.close();
});

const envFor = (extra: Record<string, string> = {}) =>
  terminalEnv({ CPCTL_BASE_URL: em.url, CPCTL_API_KEY: em.apiKey, ...extra });

/** A deployment whose revision waits in CREATING until em.settle(). */
async function pendingDeployment(name: string) {
  const deployment = await em.createDeployment("internal_container", name);
  return deployment as { id: string; latest_revision_id: string };
}

describe("deploy wait on a terminal", () => {
  beforeEach((t) => {
    if (!python3Available()) t.skip("python3 with its pty module is not installed");
  });

  async function waitOnPty(extraEnv: Record<string, string> = {}, extraArgs: string[] = []) {
    const deployment = await pendingDeployment(`tty-${Math.random().toString(36).slice(2, 8)}`);
    const t = runOnPty(["deploy", "wait", deployment.id, "--interval", "100ms", ...extraArgs], {
      env: envFor(extraEnv),
    });
    await t.waitFor("CREATING");
    em.settle();
    const result = await t.finished();
    return { ...result, deployment };
  }

  test("shows a spinner with the status and elapsed time, and leaves one final line", async () => {
    const { code, output, deployment } = await waitOnPty();
    expect(code, plain(output)).toBe(0);
    expect(output).toMatch(SPINNER_FRAME);
    expect(output).toContain("\x1b[?25l"); // the cursor is hidden while spinning...
    expect(output).toContain("\x1b[?25h"); // ...and shown again
    const short = deployment.latest_revision_id.slice(0, 8);
    expect(plain(output)).toMatch(new RegExp(`revision ${short}: CREATING \\d+(ms|s)`));
    expect(plain(output)).toMatch(new RegExp(`✔ revision ${short}: DEPLOYED after \\d+(ms|s)`));
    expect(plain(output)).not.toMatch(/^\d{4}-\d\d-\d\dT/m);
    // On a terminal the symbol is coloured.
    expect(output).toMatch(/\x1b\[32m✔/);
    // The result is said once: the spinner's last line, not again as a table on stdout.
    expect(plain(output)).not.toMatch(/RESULT/);
    expect(plain(output).match(/DEPLOYED/g)).toHaveLength(1);
  });

  test("--logs: each log line whole above the spinner, still on screen at the end (issue 36)", async () => {
    const deployment = await em.createDeployment(
      "gitrepo",
      `tty-logs-${Math.random().toString(36).slice(2, 8)}`,
    );
    const t = runOnPty(["deploy", "wait", deployment.id, "--interval", "100ms", "--logs"], { env: envFor() });
    await t.waitFor("CREATING");
    em.settle();
    const { code, output } = await t.finished();
    expect(code, plain(output)).toBe(0);
    const shown = plain(output);
    // Whole lines with their time and level, before the final line, not cut to a spinner's row.
    // (The spinner's cleared frame leaves its text before the line in `plain`: no ^ anchor.)
    expect(shown).toMatch(/ {2}\| \d{4}-\d\d-\d\dT\S+ INFO +Build succeeded in [\d.]+ s$/m);
    // A line far longer than a spinner's row, whole: the image's digest to its last character.
    expect(shown).toMatch(/INFO +Pushed \S+ \(digest sha256:[0-9a-f]{64}\)$/m);
    const short = deployment.latest_revision_id.slice(0, 8);
    expect(shown.lastIndexOf("Build succeeded")).toBeLessThan(
      shown.lastIndexOf(`✔ revision ${short}: DEPLOYED`),
    );
    expect(shown).not.toContain("…");
  });

  test("a revision deployed before the wait began is 'already DEPLOYED', not 'DEPLOYED after 26ms'", async () => {
    const deployment = await pendingDeployment("done-before");
    em.settle();
    const { code, output } = await runOnPty(["deploy", "wait", "done-before"], { env: envFor() }).finished();
    expect(code, plain(output)).toBe(0);
    const short = deployment.latest_revision_id.slice(0, 8);
    expect(plain(output)).toContain(`✔ revision ${short}: already DEPLOYED`);
    expect(plain(output)).not.toMatch(/DEPLOYED after/);
  });

  test("Ctrl-C stops the spinner cleanly, exits 130 and prints the command that resumes the wait", async () => {
    const deployment = await pendingDeployment("interrupted");
    const t = runOnPty(["deploy", "wait", "interrupted", "--interval", "100ms"], { env: envFor() });
    await t.waitFor("CREATING");
    t.type("\x03"); // the terminal turns it into SIGINT
    const { code, output } = await t.finished();
    expect(code, plain(output)).toBe(130);
    expect(plain(output)).toContain(
      `• revision ${deployment.latest_revision_id.slice(0, 8)}: CREATING after`,
    );
    expect(plain(output)).toContain(
      `Resume with: cpctl deploy wait ${deployment.id} --revision ${deployment.latest_revision_id}`,
    );
    expect(output).toContain("\x1b[?25h"); // the cursor is back
  });

  test("no colour at all under NO_COLOR, spinner still there", async () => {
    const { code, output } = await waitOnPty({ NO_COLOR: "1" });
    expect(code, plain(output)).toBe(0);
    expect(output).toMatch(SPINNER_FRAME);
    expect(output).not.toMatch(SGR);
  });

  test("no colour with --no-color", async () => {
    const { code, output } = await waitOnPty({}, ["--no-color"]);
    expect(code, plain(output)).toBe(0);
    expect(output).not.toMatch(SGR);
  });

  test("CI set: a CI log even when the job has a terminal, so lines and no spinner", async () => {
    const { code, output } = await waitOnPty({ CI: "true" });
    expect(code, plain(output)).toBe(0);
    expect(output).not.toMatch(SPINNER_FRAME);
    expect(plain(output)).toMatch(/^\d{4}-\d\d-\d\dT.*: CREATING/m);
  });

  test("TERM=dumb: plain lines, no spinner, no colour", async () => {
    const { code, output } = await waitOnPty({ TERM: "dumb" });
    expect(code, plain(output)).toBe(0);
    expect(output).not.toMatch(SPINNER_FRAME);
    expect(output).not.toMatch(SGR);
    expect(plain(output)).toMatch(/^\d{4}-\d\d-\d\dT.*: CREATING/m);
  });
});

describe("deploy wait off a terminal", () => {
  test("one timestamped line per status change on stderr, never spinner frames or escapes", async () => {
    const deployment = await pendingDeployment("piped");
    const child = spawn(process.execPath, [BIN, "deploy", "wait", "piped", "--interval", "100ms"], {
      env: envFor(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    const code = new Promise<number | null>((resolve) => child.on("close", resolve));
    // Settled once the CLI has shown CREATING (or has ended, which the checks below report).
    const settled = new Promise<void>((resolve) => {
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
        if (stderr.includes("CREATING")) resolve();
      });
      void code.then(() => resolve());
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), WAIT_MS);
    await settled;
    em.settle();
    expect(await code, stderr).toBe(0);
    clearTimeout(timer);

    const lines = stderr.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line).toMatch(ISO_LINE);
    expect(lines[0]).toContain(`revision ${deployment.latest_revision_id}: CREATING (`);
    expect(lines.at(-1)).toContain(": DEPLOYED (");
    expect(stderr).not.toMatch(SPINNER_FRAME);
    expect(stderr).not.toContain("\r");
    expect(stderr).not.toContain("\x1b");
    // stdout holds only the verdict, tab-separated.
    expect(stdout).toContain(`REVISION\t${deployment.latest_revision_id}\n`);
    expect(stdout).toContain("RESULT\tdeployed\n");
    expect(stdout).not.toContain("CREATING");
  });

  test("a heartbeat line after a minute without news, with the clock's own timestamps", async () => {
    // Stages of 100 s on the emulator's clock, moved in step with the CLI's (instant) sleeps.
    const slow = await startTestEmulator({ stageMs: 100_000 });
    try {
      const deployment = await slow.createDeployment("internal_container", "slow");
      const clock = instantClock(Date.UTC(2026, 10, 21, 12), (ms) => slow.advance(ms));
      const result = await runCli(["deploy", "wait", "slow"], { env: cliEnv(slow), clock });
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stderr.trimEnd().split("\n");
      for (const line of lines) expect(line).toMatch(ISO_LINE);
      expect(lines[0]).toBe(
        `2026-11-21T12:00:00.000Z revision ${deployment.latest_revision_id}: CREATING (0ms)`,
      );
      expect(
        lines.some((line) =>
          /: still (CREATING|QUEUED|AWAITING_DEPLOY|DEPLOYING) after \dm\d\ds$/.test(line),
        ),
      ).toBe(true);
      expect(lines.at(-1)).toMatch(/: DEPLOYED \(\dm\d\ds\)$/);
    } finally {
      await slow.close();
    }
  });
});

describe("lineReporter's own heartbeat", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function fakeCtx() {
    let stderr = "";
    const ctx = {
      io: {
        stderr: {
          write: (text: string) => {
            stderr += text;
          },
          isTTY: false,
        },
      },
      clock: { now: () => Date.now(), sleep: async () => {} },
    } as unknown as Ctx;
    return { ctx, stderr: () => stderr };
  }

  test("speaks 60 s after its last line even while the poller sleeps, and stops when told", () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const { ctx, stderr } = fakeCtx();
    const reporter = lineReporter(ctx, "rev-1");
    reporter.status("BUILDING", 0);
    vi.advanceTimersByTime(59_999);
    expect(stderr().split("\n").filter(Boolean)).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(stderr()).toContain("2026-01-01T00:01:00.000Z revision rev-1: still BUILDING after 1m00s");
    // The poller's own heartbeat right after is not a second line.
    reporter.heartbeat("BUILDING", 60_000);
    expect(stderr().split("\n").filter(Boolean)).toHaveLength(2);
    reporter.stop();
    vi.advanceTimersByTime(10 * 60_000);
    expect(stderr().split("\n").filter(Boolean)).toHaveLength(2);
  });

  test("a status change restarts the minute", () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const { ctx, stderr } = fakeCtx();
    const reporter = lineReporter(ctx, "rev-2");
    reporter.status("QUEUED", 0);
    vi.advanceTimersByTime(40_000);
    reporter.status("BUILDING", 40_000);
    vi.advanceTimersByTime(40_000);
    expect(stderr()).not.toContain("still");
    vi.advanceTimersByTime(20_000);
    expect(stderr()).toContain("still BUILDING after 1m40s");
    reporter.stop();
  });
});
