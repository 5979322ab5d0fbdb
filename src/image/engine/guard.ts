// The engine runs under a guard, so that it ends when cpctl ends, however cpctl ends.
//
// docker and podman are started in cpctl's process group (spawn's default), so a Ctrl-C on the
// terminal reaches them with cpctl, and cpctl stops them itself on SIGINT and SIGTERM. But a
// `kill -9` of cpctl alone reaches no one else: a child outlives its parent, and a push went
// on for minutes, orphaned. Linux's parent-death signal (prctl) is not available from Node, and
// an engine never reads the stdin pipe a `docker push` is given, so its end would tell it
// nothing. Hence the guard: a small Node process between cpctl and the engine, which starts
// the engine (its stdin, stdout and stderr are cpctl's pipes, as before) and holds a
// lifeline, an extra pipe (fd 3) to cpctl that cpctl never writes to. When cpctl ends, kill -9
// included, the kernel closes cpctl's end and the guard reads end-of-file; it then sends the
// engine SIGTERM, SIGKILL after GRACE_MS, and exits once the engine is gone. SIGINT, SIGTERM or
// SIGHUP to the guard do the same. The guard's own exit code is the engine's (128 + the signal
// when a signal ended it); an engine that cannot be started is reported on the lifeline.
//
// Not covered: a kill -9 of the guard itself (it leaves the engine as before), and a machine
// that stops. What the engine wrote is the caller's to clean (temp-dirs.ts).

/** How long the engine has to end after SIGTERM before it gets SIGKILL. */
export const GRACE_MS = 2000;

/** Its first words name it in `ps`, where its whole text shows. */
const GUARD = String.raw`/* cpctl: the guard of a docker or podman run (ends it when cpctl ends) */ "use strict";
const { spawn } = require("node:child_process");
const { Socket } = require("node:net");
const { constants } = require("node:os");
const [file, ...args] = process.argv.slice(1);
const lifeline = new Socket({ fd: 3, readable: true, writable: true });
let engine = null;
let ending = false;
const end = () => {
  if (ending) return;
  ending = true;
  if (engine && engine.exitCode === null && engine.signalCode === null) {
    engine.kill("SIGTERM");
    setTimeout(() => engine.kill("SIGKILL"), ${GRACE_MS}).unref();
  }
};
lifeline.on("error", end);
lifeline.on("end", end);
lifeline.on("close", end);
lifeline.resume();
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, end);
engine = spawn(file, args, { stdio: "inherit", windowsHide: true });
engine.on("error", (error) => {
  process.exitCode = 127;
  lifeline.end(JSON.stringify({ spawnError: error.message }) + "\n");
});
engine.on("exit", (code, signal) => {
  process.exitCode = code ?? 128 + (constants.signals[signal] ?? 0);
  lifeline.destroy();
});
`;

/** The command that runs `file` with `args` under the guard: Node (this one) and its arguments. */
export function guarded(file: string, args: readonly string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: ["-e", GUARD, "--", file, ...args] };
}

/** What the guard says on the lifeline: the engine could not be started. */
export function spawnErrorIn(text: string): string | null {
  for (const line of text.split("\n")) {
    try {
      const message = (JSON.parse(line) as { spawnError?: unknown }).spawnError;
      if (typeof message === "string") return message;
    } catch {
      // Not a line of the guard's.
    }
  }
  return null;
}
