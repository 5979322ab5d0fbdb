// The user config file's lock. `config set` reads the file, changes one key and renames a new
// copy over it; two processes doing that at once both start from the same old text, and the
// second rename drops the first one's change (a profile, a trustedHosts entry) although both
// said "set". So the read, the edit and the rename happen while holding this lock.
//
// Node has no flock(2). As the emulator's state lock (emulator/store/state-lock.ts), the lock is a
// directory beside the file, `FILE.lock/`, of numbered files: taking it means linking a file
// written whole under the next number, which fails when that number exists, so of two
// processes that both find the holder gone exactly one gets it. A holder is gone when it ran
// here (same host and PID namespace) and its PID is free, or, whoever it was, once its file is
// older than LOCK_STALE_MS: a config write takes milliseconds, so a lock that old was left by
// a process that died (in another container sharing the home directory, or whose PID was
// reused since). Before it renames, the holder checks that it still holds the lock
// (stillHeld), and write.ts starts again from a fresh read if not.
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { InterruptedError, OperationError } from "../errors.js";
import { abortableSleep } from "../util/sleep.js";

/** A lock this old was abandoned, whoever holds it: a config write takes milliseconds. */
export const LOCK_STALE_MS = 10_000;
/** How long a writer waits for another one before giving up (writes take milliseconds). */
export const LOCK_WAIT_MS = 15_000;

const FORMAT = "cpctl-config-lock";

/** Who holds a lock: enough to tell, on this machine, whether it is still running. */
interface Holder {
  pid: number;
  host: string;
  /** /proc/self/ns/pid ("pid:[4026531836]"); null off Linux. */
  pid_ns: string | null;
}

interface Held {
  fd: number;
  dir: string;
  epoch: number;
}

type Verdict = { kind: "gone" } | { kind: "held"; who: string };

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
  const holder = await acquire(`${path}.lock`, path, options.waitMs ?? LOCK_WAIT_MS, options.signal);
  try {
    return await work(() => holds(holder));
  } finally {
    release(holder);
  }
}

async function acquire(dir: string, path: string, waitMs: number, signal?: AbortSignal): Promise<Held> {
  const own = ownHolder();
  const deadline = Date.now() + waitMs;
  let last: Verdict = { kind: "gone" };
  for (let attempt = 0; ; attempt++) {
    const taken = tryTake(dir, own);
    if ("fd" in taken) return taken;
    if (taken.kind === "held") last = taken;
    if (Date.now() >= deadline) break;
    // A short, growing, random pause: two waiters do not keep colliding.
    if (taken.kind === "held")
      await pause(Math.min(100, 5 * 2 ** Math.min(attempt, 5)) * Math.random(), signal);
  }
  throw new OperationError(
    `${path} is being changed by another cpctl (${last.kind === "held" ? last.who : "several, one after another"}), for more than ${waitMs / 1000} s: nothing was written; try again`,
  ).withHint(`If no cpctl is running, remove the lock directory ${dir} and try again.`);
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return abortableSleep(
    ms,
    signal,
    () => new InterruptedError("interrupted while waiting for the config file's lock: nothing was written"),
  );
}

/** One try: the lock, or why not ("gone": something moved, look again at once). */
function tryTake(dir: string, own: Holder): Held | Verdict {
  makeLockDirectory(dir);
  const top = epochs(dir).at(-1) ?? 0;
  if (top > 0) {
    const verdict = judge(join(dir, String(top)), own);
    if (verdict.kind === "held") return verdict;
  }
  // Written whole under a private name, then linked to the number: link(2) fails when the
  // name exists (as O_EXCL does), and no one ever sees a lock file half-written.
  const temp = join(dir, `.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  let fd: number;
  try {
    fd = openSync(temp, "wx", 0o600);
  } catch (error) {
    // The directory went away: a holder that was done removed it.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "gone" };
    throw cannot(dir, error);
  }
  try {
    writeSync(fd, JSON.stringify({ format: FORMAT, ...own }));
    linkSync(temp, join(dir, String(top + 1)));
  } catch (error) {
    closeSync(fd);
    const code = (error as NodeJS.ErrnoException).code;
    // Another process took this number first, or the directory went away: look again.
    if (code === "EEXIST" || code === "ENOENT") return { kind: "gone" };
    throw cannot(dir, error);
  } finally {
    unlinkQuietly(temp);
  }
  const holder = { fd, dir, epoch: top + 1 };
  for (const older of epochs(dir)) if (older < holder.epoch) unlinkQuietly(join(dir, String(older)));
  return holder;
}

function makeLockDirectory(dir: string): void {
  for (let tries = 1; ; tries++) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return;
    } catch (error) {
      // A holder that was done removed the directory between Node's mkdir and the stat its
      // recursive mkdir makes of what it found: the lock came free, make it again. Bounded,
      // for a path that can never be made (a dangling link in it).
      if ((error as NodeJS.ErrnoException).code === "ENOENT" && tries < 100) continue;
      throw cannot(dir, error);
    }
  }
}

/** Still ours: our file still linked, and no one took the next number. */
function holds(holder: Held): boolean {
  try {
    return fstatSync(holder.fd).nlink > 0 && !existsSync(join(holder.dir, String(holder.epoch + 1)));
  } catch {
    return false;
  }
}

function release(holder: Held): void {
  const path = join(holder.dir, String(holder.epoch));
  try {
    // Only our own file: after a takeover the number may be someone else's.
    if (holds(holder) && statSync(path).ino === fstatSync(holder.fd).ino) unlinkSync(path);
  } catch {
    // Gone already.
  }
  closeSync(holder.fd);
  try {
    rmdirSync(holder.dir);
  } catch {
    // Not empty (the next writer is taking it) or gone: either is fine.
  }
}

function judge(path: string, own: Holder): Verdict {
  let text: string;
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
    text = readFileSync(path, "utf8");
  } catch {
    return { kind: "gone" };
  }
  const record = parseRecord(text);
  const here = record !== null && record.host === own.host && record.pid_ns === own.pid_ns;
  if (here && !pidInUse(record.pid)) return unlinkQuietly(path);
  if (Date.now() - mtimeMs > LOCK_STALE_MS) return unlinkQuietly(path);
  return {
    kind: "held",
    who: record
      ? here
        ? `process ${record.pid}`
        : `process ${record.pid} on host ${record.host}`
      : `its lock ${path}`,
  };
}

/**
 * The abandoned lock file goes, so that the directory can be removed once free; the next
 * number is still taken by link(2), so removing it never lets two writers in.
 */
function unlinkQuietly(path: string): Verdict {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
  return { kind: "gone" };
}

function parseRecord(text: string): Holder | null {
  try {
    const value = JSON.parse(text) as Partial<Holder> & { format?: string };
    if (value.format !== FORMAT || !Number.isInteger(value.pid) || typeof value.host !== "string")
      return null;
    return { pid: value.pid!, host: value.host, pid_ns: value.pid_ns ?? null };
  } catch {
    return null;
  }
}

function ownHolder(): Holder {
  let pidNs: string | null = null;
  try {
    pidNs = readlinkSync("/proc/self/ns/pid");
  } catch {
    // Not Linux: the host alone says where a process ran.
  }
  return { pid: process.pid, host: hostname(), pid_ns: pidNs };
}

/** A PID of this namespace in use (by the holder, or by one that reused its PID: the lock's age decides then). */
function pidInUse(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function epochs(dir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => /^[1-9]\d{0,14}$/.test(name))
    .map(Number)
    .sort((a, b) => a - b);
}

function cannot(dir: string, error: unknown): OperationError {
  return new OperationError(
    `cannot lock the config file (${dir}: ${(error as NodeJS.ErrnoException).code ?? String(error)})`,
  );
}
