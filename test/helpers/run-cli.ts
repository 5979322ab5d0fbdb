// Runs the CLI in-process with captured streams: the way most command tests run it.
//
//   const r = await runCli(["deploy", "list", "-o", "json"], { env: cliEnv(em) });
//   expect(r.code).toBe(0); expect(JSON.parse(r.stdout)).toHaveLength(2);
//
// Nothing leaks in from the real process: the environment is only what the test gives,
// HOME and the working directory are fresh empty directories, and stdin is empty unless
// the test gives text. `tty` makes the streams claim to be a terminal.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { Clock } from "../../src/clock.js";
import { InterruptedError } from "../../src/errors.js";
import { run } from "../../src/main.js";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** stdin as a stream of the test's own (one that never ends, say); wins over `stdin`. */
  stdinStream?: Readable;
  /** true: stdin, stdout and stderr are terminals. Or choose per stream. */
  tty?: boolean | { stdin?: boolean; stdout?: boolean; stderr?: boolean };
  cwd?: string;
  homeDir?: string;
  clock?: Clock;
  signal?: AbortSignal;
}

export async function runCli(args: string[], options: RunCliOptions = {}): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const tty =
    typeof options.tty === "object"
      ? options.tty
      : { stdin: options.tty, stdout: options.tty, stderr: options.tty };
  const code = await run({
    argv: args,
    io: {
      stdout: {
        write: (text) => {
          stdout += text;
        },
        isTTY: Boolean(tty.stdout),
        columns: 120,
      },
      stderr: {
        write: (text) => {
          stderr += text;
        },
        isTTY: Boolean(tty.stderr),
        columns: 120,
      },
      stdin: {
        isTTY: Boolean(tty.stdin),
        stream:
          options.stdinStream ??
          Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]),
      },
    },
    env: options.env ?? {},
    cwd: options.cwd ?? freshDir("cwd"),
    homeDir: options.homeDir ?? freshDir("home"),
    clock: options.clock ?? instantClock(),
    signal: options.signal ?? new AbortController().signal,
  });
  return { code, stdout, stderr };
}

export function freshDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `cpctl-${label}-`));
}

/**
 * A clock whose sleeps return at once and move time forward; `onSleep` lets a test move the
 * emulator's clock in step, so a wait sees revisions progress without real waiting.
 */
export function instantClock(
  start = Date.UTC(2026, 10, 21, 12),
  onSleep?: (ms: number) => void,
): Clock & { sleeps: number[] } {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw new InterruptedError();
      sleeps.push(ms);
      now += ms;
      onSleep?.(ms);
      // Let other work (an abort, a server answer) run between polls.
      await new Promise((resolve) => setImmediate(resolve));
      if (signal?.aborted) throw new InterruptedError();
    },
  };
}

/** The environment that points the CLI at a test emulator. */
export function cliEnv(
  emulator: { url: string; apiKey: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return { CPCTL_BASE_URL: emulator.url, CPCTL_API_KEY: emulator.apiKey, ...extra };
}

/** The change preview a mutation wrote on stderr in json/ndjson mode (`{"preview":{...}}`). */
export function previewOf(stderr: string): {
  action: string;
  name: string;
  deployment_id: string | null;
  new_revision: boolean;
  revision_triggers: string[];
  changes: { path: string; kind: string; current: unknown; desired: unknown; secret: boolean }[];
} {
  const line = stderr.split("\n").find((text) => text.startsWith('{"preview":'));
  if (!line) throw new Error(`no preview on stderr:\n${stderr}`);
  return JSON.parse(line).preview;
}
