// Runs the BUILT cpctl (bin/cpctl.cjs, built by the global setup) on a pseudo-terminal
// through pty-proxy.py, so that stdin, stdout and stderr are all a real TTY, and lets a test
// wait for text and type answers:
//
//   const t = runOnPty(["deploy", "create"], { env });
//   await t.waitFor("Deployment name"); t.type("my-agent\r");
//   const { code, output } = await t.finished();
//
// No sleeps: every wait is for a piece of output, and each is bounded by a generous timeout
// that fails the test with what the terminal showed so far.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { freshDir } from "../../helpers/run-cli.js";

const PROXY = fileURLToPath(new URL("./pty-proxy.py", import.meta.url));
export const BIN = fileURLToPath(new URL("../../../bin/cpctl.cjs", import.meta.url));

export const WAIT_MS = 15_000;

export interface PtyRun {
  /** Resolves when `pattern` appears in the output (ANSI codes removed) after the previous match. */
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Types into the terminal: "\r" is Enter, "\x03" Ctrl-C, "\x1b[B" the down arrow. */
  type(text: string): void;
  /** Everything the terminal received, escape sequences included. */
  raw(): string;
  /** The exit code and the raw output once the command has ended; killed and failed after the timeout. */
  finished(timeoutMs?: number): Promise<{ code: number; output: string }>;
  /** Sends the command SIGTERM (through the proxy, which passes it on). */
  terminate(): void;
  /** Resizes the terminal to 0 columns by 0 rows (the command gets SIGWINCH). */
  resizeToZero(): void;
  /** SIGKILL to the command and the proxy (a command deaf to SIGTERM is not left running). */
  kill(): void;
}

export function python3Available(): boolean {
  return spawnSync("python3", ["-c", "import pty"], { stdio: "ignore" }).status === 0;
}

export function runOnPty(
  args: string[],
  options: {
    env: Record<string, string>;
    cwd?: string;
    columns?: number;
    rows?: number;
    /** The program to run instead of the built cpctl (a script, say): node runs it with `args`. */
    script?: string;
  },
): PtyRun {
  const program = options.script ?? BIN;
  const child: ChildProcess = spawn(
    "python3",
    [
      PROXY,
      String(options.columns ?? 100),
      String(options.rows ?? 40),
      "--",
      process.execPath,
      program,
      ...args,
    ],
    { env: options.env, cwd: options.cwd, stdio: ["pipe", "pipe", "inherit"] },
  );
  let raw = "";
  let cursor = 0;
  let ended = false;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    raw += chunk;
    notify();
  });
  const exited = new Promise<{ code: number; output: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      ended = true;
      notify();
      resolve({ code: code ?? (signal ? 128 : -1), output: raw });
    });
  });

  return {
    waitFor: (pattern, timeoutMs = WAIT_MS) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          const text = plain(raw);
          const rest = text.slice(cursor);
          const match = typeof pattern === "string" ? rest.indexOf(pattern) : rest.search(pattern);
          if (match >= 0) {
            const length =
              typeof pattern === "string" ? pattern.length : (rest.match(pattern)?.[0].length ?? 0);
            cursor += match + length;
            done();
            resolve(rest.slice(match, match + length));
          } else if (ended) {
            done();
            reject(
              new Error(
                `the command ended before ${String(pattern)} appeared; the terminal showed:\n${text}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(
            new Error(
              `${String(pattern)} did not appear within ${timeoutMs} ms; the terminal showed:\n${plain(raw)}`,
            ),
          );
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
    type: (text) => {
      child.stdin!.write(text);
    },
    raw: () => raw,
    finished: (timeoutMs = WAIT_MS) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          killAll(child);
          reject(
            new Error(`the command did not end within ${timeoutMs} ms; the terminal showed:\n${plain(raw)}`),
          );
        }, timeoutMs);
        exited.then(
          (result) => {
            clearTimeout(timer);
            resolve(result);
          },
          (error) => {
            clearTimeout(timer);
            reject(error);
          },
        );
      }),
    terminate: () => {
      if (child.exitCode === null) child.kill("SIGTERM");
    },
    resizeToZero: () => {
      if (child.exitCode === null) child.kill("SIGUSR1");
    },
    kill: () => killAll(child),
  };
}

/** SIGKILL to the proxy's command (it would outlive the proxy), then to the proxy. */
function killAll(proxy: ChildProcess): void {
  if (proxy.exitCode !== null || proxy.pid === undefined) return;
  const listed = spawnSync("ps", ["-o", "pid=", "--ppid", String(proxy.pid)], { encoding: "utf8" });
  for (const pid of (listed.stdout ?? "").split(/\s+/).filter(Boolean)) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  proxy.kill("SIGKILL");
}

/** Terminal output as text: escape sequences and carriage returns removed. */
export function plain(text: string): string {
  return text
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "")
    .replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, "")
    .replace(/\x1b[()][0-9A-Za-z]/g, "")
    .replace(/\x1b[=>78]/g, "")
    .replace(/\r/g, "");
}

/** SGR sequences: the ones that colour or style text (cursor movement is not colour). */
export const SGR = /\x1b\[[0-9;]*m/;

/** A clean environment for the child: nothing leaks in from the test runner (CI, NO_COLOR...). */
export function terminalEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: freshDir("home"),
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    ...extra,
  };
}
