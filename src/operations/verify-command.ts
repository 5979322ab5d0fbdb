// `--verify-cmd CMD`: the user's own check of a release, run through the shell (`sh -c`) with
// the release's address and IDs in its environment. Its output is passed through to stderr
// (control characters made visible, as everything cpctl shows), stdout included, so that
// cpctl's stdout stays the result (JSON for a script). It stays in
// cpctl's process group: Ctrl-C on the terminal reaches it too, and it is stopped when cpctl
// is interrupted or the verification's deadline passes.
import { spawn } from "node:child_process";
import type { Ctx } from "../context.js";
import { InterruptedError, OperationError } from "../errors.js";
import { writeText } from "../output/safe-text.js";

/** How long a command that ignores SIGTERM is given before SIGKILL. */
const KILL_GRACE_MS = 3_000;

/** Null when CMD exited 0; otherwise why it did not pass, for the verification's reason. */
export function runVerifyCommand(
  ctx: Ctx,
  command: string,
  release: Record<string, string>,
  timeoutMs: number,
): Promise<string | null> {
  if (ctx.signal.aborted) return Promise.reject(new InterruptedError());
  ctx.log.info(`running --verify-cmd: ${command}`);
  return new Promise((resolve, reject) => {
    const child = spawn(command, {
      shell: true,
      env: { ...ctx.env, ...release },
      cwd: ctx.cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    // Whole characters (a chunk may end inside one), written as every text for a person is:
    // what a command prints may quote a server (curl), whose escapes must not reach the terminal.
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    const relay = (text: string) => writeText(ctx.io.stderr, text);
    child.stdout.on("data", relay);
    child.stderr.on("data", relay);
    let stopped: "interrupted" | "timed out" | null = null;
    const stop = (why: "interrupted" | "timed out") => {
      stopped = why;
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS).unref();
    };
    const onAbort = () => stop("interrupted");
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    // Real time, as the command's own: the verification's deadline bounds it.
    const timer = setTimeout(() => stop("timed out"), Math.max(1, timeoutMs));
    const done = () => {
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", onAbort);
    };
    child.once("error", (error) => {
      done();
      reject(new OperationError(`could not run --verify-cmd: ${error.message}`, "verify_cmd"));
    });
    child.once("close", (code, signal) => {
      done();
      if (stopped === "interrupted") return reject(new InterruptedError());
      if (stopped === "timed out") return resolve("--verify-cmd did not finish within --verify-timeout");
      if (code === 0) return resolve(null);
      resolve(code !== null ? `--verify-cmd exited with ${code}` : `--verify-cmd ended by ${signal}`);
    });
  });
}
