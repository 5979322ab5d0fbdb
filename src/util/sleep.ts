import { InterruptedError } from "../errors.js";

/**
 * Waits `ms`, or ends early with `interrupted()` (an InterruptedError) when the signal aborts
 * (Ctrl-C). A timer rather than node:timers/promises, which would load with every command.
 */
export function abortableSleep(
  ms: number,
  signal?: AbortSignal,
  interrupted: () => Error = () => new InterruptedError(),
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(interrupted());
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(interrupted());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
