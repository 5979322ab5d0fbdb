import { abortableSleep } from "./util/sleep.js";

/** The time of a run: the system's, or a test's that moves only when told. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with InterruptedError when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Sleeps end early, with InterruptedError, when the signal aborts (Ctrl-C). */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => abortableSleep(ms, signal),
};
