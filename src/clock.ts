import type { Clock } from "./context.js";
import { InterruptedError } from "./errors.js";

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
