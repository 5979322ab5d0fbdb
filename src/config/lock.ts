// The user config file's lock. `config set` reads the file, changes one key and renames a new
// copy over it; two processes doing that at once both start from the same old text, and the
// second rename drops the first one's change (a profile, a trustedHosts entry) although both
// said "set". So the read, the edit and the rename happen while holding this lock, a
// directory `FILE.lock/` beside the file (util/numbered-lock.ts).
//
// Its holder is gone when it ran here (same host and PID namespace) and its PID is free, or,
// whoever it was, once its file is older than LOCK_STALE_MS: a config write takes
// milliseconds, so a lock that old was left by a process that died (in another container
// sharing the home directory, or whose PID was reused since). Before it renames, the holder
// checks that it still holds the lock (stillHeld), and write.ts starts again from a fresh
// read if not.
import { InterruptedError, OperationError } from "../errors.js";
import { type Attempt, NumberedLock, type TopHolder } from "../util/numbered-lock.js";
import { abortableSleep } from "../util/sleep.js";

/** A lock this old was abandoned, whoever holds it: a config write takes milliseconds. */
export const LOCK_STALE_MS = 10_000;
/** How long a writer waits for another one before giving up (writes take milliseconds). */
export const LOCK_WAIT_MS = 15_000;

/**
 * Runs `work` holding the lock of `path` (a directory `path.lock` beside it, created on
 * demand, removed after). `stillHeld` says whether the lock is still this process's: check it
 * right before making the change visible.
 */
export async function withFileLock<T>(
  path: string,
  work: (stillHeld: () => boolean) => Promise<T>,
  options: { waitMs?: number; signal?: AbortSignal } = {},
): Promise<T> {
  const lock = new NumberedLock(`${path}.lock`, stillHeldBy, "cpctl-config-lock");
  const waitMs = options.waitMs ?? LOCK_WAIT_MS;
  const deadline = Date.now() + waitMs;
  let last: string | undefined;
  for (let attempt = 0; ; attempt++) {
    const taken = tryTake(lock);
    if (taken === "taken") break;
    if (taken !== "moved") last = taken.heldBy;
    if (Date.now() >= deadline)
      throw new OperationError(
        `${path} is being changed by another cpctl (${last ?? "several, one after another"}), for more than ${waitMs / 1000} s: nothing was written; try again`,
      ).withHint(`If no cpctl is running, remove the lock directory ${lock.dir} and try again.`);
    // A short, growing, random pause: two waiters do not keep colliding.
    if (taken !== "moved")
      await pause(Math.min(100, 5 * 2 ** Math.min(attempt, 5)) * Math.random(), options.signal);
  }
  try {
    return await work(() => lock.holds());
  } finally {
    lock.release();
  }
}

function stillHeldBy(top: TopHolder): string | null {
  if ((top.here && !top.running) || top.ageMs > LOCK_STALE_MS) return null;
  if (!top.holder) return `its lock ${top.path}`;
  return top.here ? `process ${top.holder.pid}` : `process ${top.holder.pid} on host ${top.holder.host}`;
}

function tryTake(lock: NumberedLock): Attempt {
  try {
    return lock.tryTake();
  } catch (error) {
    throw new OperationError(
      `cannot lock the config file (${lock.dir}: ${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return abortableSleep(
    ms,
    signal,
    () => new InterruptedError("interrupted while waiting for the config file's lock: nothing was written"),
  );
}
