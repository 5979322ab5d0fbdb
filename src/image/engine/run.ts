// One run of the container engine: arguments (never a credential: those go on stdin), its
// output kept (the last part of it, bounded) and, line by line, shown to whoever listens
// (`docker push` progress on stderr), and Ctrl-C passed on: the engine is stopped and the run
// ends as interrupted, so the caller's clean-up runs. The engine runs under a guard (guard.ts)
// that ends it when cpctl ends, kill -9 included.
import { type ChildProcess, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { InterruptedError, OperationError } from "../../errors.js";
import type { Env } from "../../io.js";
import type { Engine } from "./find.js";
import { GRACE_MS, guarded, spawnErrorIn } from "./guard.js";

/** What is kept of each stream: enough for a digest line and an error's last words. */
const KEEP_BYTES = 256 * 1024;

export interface EngineRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env: Env;
  signal?: AbortSignal;
  /** Written to the engine's stdin, then closed (a password for --password-stdin). */
  stdin?: string;
  /** Each line the engine writes, stdout and stderr alike. */
  onLine?: (line: string) => void;
}

export function runEngine(engine: Engine, args: string[], options: RunOptions): Promise<EngineRun> {
  if (options.signal?.aborted) return Promise.reject(new InterruptedError());
  return new Promise((resolve, reject) => {
    const guard = guarded(engine.path, args);
    const child: ChildProcess = spawn(guard.command, guard.args, {
      env: { ...options.env },
      stdio: ["pipe", "pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    // The guard's lifeline: never written to; its end (cpctl gone, or stopping) ends the engine.
    const lifeline = child.stdio[3] as Readable;
    let said = "";
    lifeline.setEncoding("utf8");
    lifeline.on("data", (text: string) => {
      said = (said + text).slice(-4096);
    });
    lifeline.on("error", () => {});
    const kept = { stdout: "", stderr: "" };
    const pending = { stdout: "", stderr: "" };
    const take = (stream: "stdout" | "stderr") => (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      kept[stream] = (kept[stream] + text).slice(-KEEP_BYTES);
      if (!options.onLine) return;
      const lines = (pending[stream] + text).split(/\r?\n|\r/);
      pending[stream] = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) options.onLine(line);
    };
    child.stdout!.on("data", take("stdout"));
    child.stderr!.on("data", take("stderr"));
    // An engine that exits without reading its stdin: not our failure to report.
    child.stdin!.on("error", () => {});
    child.stdin!.end(options.stdin ?? "");

    let interrupted = false;
    const onAbort = () => {
      interrupted = true;
      // The guard stops the engine (SIGTERM, then SIGKILL after GRACE_MS) and exits after it.
      lifeline.destroy();
      child.kill("SIGTERM");
      // A guard that does not end by then is stopped for good.
      setTimeout(() => child.kill("SIGKILL"), GRACE_MS + 3000).unref();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    child.once("error", (error) => {
      options.signal?.removeEventListener("abort", onAbort);
      reject(new OperationError(`could not run ${engine.path}: ${error.message}`, "engine"));
    });
    child.once("close", (code, signal) => {
      options.signal?.removeEventListener("abort", onAbort);
      for (const stream of ["stdout", "stderr"] as const) {
        if (pending[stream].trim()) options.onLine?.(pending[stream]);
      }
      if (interrupted) return reject(new InterruptedError());
      const spawnError = spawnErrorIn(said);
      if (spawnError !== null) {
        return reject(new OperationError(`could not run ${engine.path}: ${spawnError}`, "engine"));
      }
      resolve({ code: code ?? (signal ? 128 : 1), stdout: kept.stdout, stderr: kept.stderr });
    });
  });
}

/** The engine's last words on a failed run, for a message: its last few non-empty lines. */
export function lastWords(run: EngineRun, lines = 4): string {
  const text = (run.stderr.trim() ? run.stderr : run.stdout)
    .split(/\r?\n|\r/)
    .map((line) => line.trim())
    .filter(Boolean);
  return text.slice(-lines).join(" / ") || `exit code ${run.code}`;
}
