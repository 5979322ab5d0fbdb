import { InterruptedError } from "./errors.js";

/** The time of a run: the system's, or a test's that moves only when told. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with InterruptedError when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Sleeps that end early, with InterruptedError, when the signal aborts (Ctrl-C). */
function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new InterruptedError());
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new InterruptedError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export const systemClock: Clock = { now: () => Date.now(), sleep: abortableSleep };
