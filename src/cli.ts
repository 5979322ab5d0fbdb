// The process entry point (bundled to dist/cli.js, which bin/cpctl.cjs runs). It adapts the
// real process to `run`: streams, environment, clock, Ctrl-C.
//
// Start-up budget (docs/performance.md): builtins come from process.getBuiltinModule, which
// loads nothing that is not loaded yet. Output that is not a terminal is written to the file
// descriptor directly: creating process.stderr on a pipe costs about 4 ms (node:net and a
// socket), process.stdout on a file about 2 ms, and Node writes to pipes and files
// synchronously anyway.
import { systemClock } from "./clock.js";
import { run } from "./main.js";

export async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const controller = new AbortController();
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (interrupts === 1) controller.abort();
    void import("./io.js").then(({ readsWaiting }) => {
      // A FIFO, a pipe or a terminal is read through the event loop, so the abort ends its read
      // and the run exits 130 as after any interruption, SIGTERM included (CLI.md, docs). Only
      // a read of some other device may still hold one of libuv's threads, which neither the
      // abort nor process.exit can stop (exit would wait for that thread for good); nothing has
      // been sent yet. Then end by SIGINT, whichever signal came: a shell reports 130 for it.
      if (readsWaiting() > 0) {
        process.removeAllListeners("SIGINT");
        process.kill(process.pid, "SIGINT");
      } else if (interrupts > 1) {
        // A second Ctrl-C means "now": do not wait for the command to wind down.
        process.exit(130);
      }
    });
  };
  process.on("SIGINT", onInterrupt);
  process.on("SIGTERM", onInterrupt);

  const code = await run({
    argv,
    io: {
      stdout: outStream(1, stdoutStream),
      stderr: outStream(2, () => process.stderr),
      // process.stdin is created on first use: a command that reads nothing (most) does not
      // pay for the stream (for /dev/null or a file, a ReadStream and its module).
      stdin: {
        isTTY: isTerminal(0),
        get stream() {
          return process.stdin;
        },
      },
      // Read when a command asks (the emulator's "how to stop it"), not at every start.
      get job() {
        return terminalJob();
      },
    },
    env: process.env,
    cwd: process.cwd(),
    homeDir: process.getBuiltinModule("node:os").homedir(),
    clock: systemClock,
    signal: controller.signal,
  });
  process.exitCode = code;
}

/**
 * isatty(fd), without loading node:tty (and node:net with it, about 3 ms) when fstat already
 * tells: a pipe, a file or /dev/null is not a terminal. Only another character device asks tty.
 */
export function isTerminal(fd: number): boolean {
  const fs = process.getBuiltinModule("node:fs");
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isCharacterDevice()) return false;
    if (process.platform !== "win32" && stat.rdev === fs.statSync("/dev/null").rdev) return false;
  } catch {
    // A closed descriptor: tty says no.
  }
  return process.getBuiltinModule("node:tty").isatty(fd);
}

/**
 * Whether this process is its terminal's foreground job, from /proc/self/stat: its process
 * group against the terminal's foreground group. Undefined without /proc (macOS) or without a
 * controlling terminal.
 */
function terminalJob(): { background: boolean; pid: number } | undefined {
  let stat: string;
  try {
    stat = process.getBuiltinModule("node:fs").readFileSync("/proc/self/stat", "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp session tty_nr tpgid ...": comm may hold spaces and parentheses.
  const [, , pgrp, , ttyNr, tpgid] = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
  if (!ttyNr || !tpgid || tpgid < 0 || pgrp === undefined) return undefined;
  return { background: pgrp !== tpgid, pid: process.pid };
}

/** A terminal's width, or undefined when it tells none that text can be laid out in (0, say). */
function knownWidth(columns: number | undefined): number | undefined {
  return columns !== undefined && columns > 0 ? columns : undefined;
}

/** process.stdout, with the handler for a reader that went away, once it is created. */
let stdoutReady = false;
function stdoutStream(): NodeJS.WriteStream {
  if (!stdoutReady) {
    stdoutReady = true;
    // `cpctl ... | head -1` closes stdout early: that is not an error worth a stack trace.
    process.stdout.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    });
  }
  return process.stdout;
}

/**
 * Output on file descriptor `fd`. A terminal gets the process stream (created on first
 * write). Anything else (a pipe, a file, /dev/null) is written with fs.writeSync, as Node's
 * own stream does for pipes and files on POSIX, but without creating the stream. At the
 * first write that does not go through whole (a non-blocking pipe that is full, a reader
 * that went away, ...), or once a caller takes the stream itself (a spinner, a prompt), the
 * stream takes over for good, the rest of that write included: the order is kept, and
 * errors are what the stream makes of them (for stdout's EPIPE, a quiet exit).
 */
function outStream(fd: 1 | 2, stream: () => NodeJS.WriteStream) {
  const isTTY = isTerminal(fd);
  let direct = !isTTY;
  const take = () => {
    direct = false;
    return stream();
  };
  return {
    write: (text: string) => {
      if (!direct) {
        stream().write(text);
        return;
      }
      const bytes = Buffer.from(text);
      let written = 0;
      try {
        while (written < bytes.length) {
          const n = process.getBuiltinModule("node:fs").writeSync(fd, bytes, written);
          if (n <= 0) break;
          written += n;
        }
      } catch {
        // Handled below, by the stream.
      }
      if (written < bytes.length) take().write(bytes.subarray(written));
    },
    isTTY,
    // Only a terminal has a width (a pipe's or a file's stream says undefined). A terminal that
    // says 0 (a pty made by `script` with no terminal on its input) has none known either.
    get columns() {
      return isTTY ? knownWidth(stream().columns) : undefined;
    },
    get stream() {
      return take();
    },
  };
}
