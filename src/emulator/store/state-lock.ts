// One emulator per state file: two writing one file would each overwrite changes the other
// had acknowledged.
//
// The lock is a directory, FILE.lock/, of numbered files, one per holder in turn, each naming
// its holder (PID, host, PID namespace). Taking the lock is creating the next number with
// link(2), which fails when the name exists: of two emulators starting at once on a dead
// holder's lock, exactly one gets the number (removing the dead one's file and creating one's
// own would race: the slower could remove the faster's). A holder is dead when it ran here
// (same host and PID namespace) and its PID is free. One that ran elsewhere (another container
// or host) cannot be checked: the lock is refused, and the message says to delete FILE.lock
// once that emulator is gone. After every save, before the answer leaves, a holder checks
// that it still holds the lock (its file still linked, no next number): an emulator whose
// lock was taken from it (FILE.lock deleted by hand) answers 503 rather than acknowledge.
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
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { HttpError, tellOperator } from "../responses.js";
import { EmulatorStartError } from "../start-error.js";

interface Holder {
  pid: number;
  host: string;
  /** /proc/self/ns/pid ("pid:[4026531836]"); null off Linux. */
  pid_ns: string | null;
}

export class StateLock {
  private fd: number | null = null;
  private number = 0;
  private lostReported = false;

  /** `dir` is `<state file>.lock`; `statePath` is for messages. */
  constructor(
    private readonly dir: string,
    private readonly statePath: string,
  ) {}

  /** Takes the lock, or throws EmulatorStartError saying who holds it. */
  acquire(): void {
    // Bounded: each round takes the lock, refuses, or saw another emulator move.
    for (let round = 0; round < 8; round++) {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const top = this.numbers().at(-1) ?? 0;
      if (top > 0) {
        const holder = this.liveHolder(join(this.dir, String(top)));
        if (holder === "gone") continue;
        if (holder) throw this.inUse(holder);
      }
      // Written whole under a private name, then linked to the number: the lock never exists
      // half-written for another emulator to judge.
      const temp = join(this.dir, `.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
      let fd: number;
      try {
        fd = openSync(temp, "wx", 0o600);
      } catch (error) {
        // The directory went away: a holder that was stopping removed it. Look again.
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw error;
      }
      try {
        writeFileSync(fd, JSON.stringify(ownHolder()));
        linkSync(temp, join(this.dir, String(top + 1)));
      } catch (error) {
        closeSync(fd);
        // EEXIST: another emulator took this number first; ENOENT: a holder that was stopping
        // removed the directory. Either way, look again.
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EEXIST" || code === "ENOENT") continue;
        throw error;
      } finally {
        removeIfThere(temp);
      }
      this.fd = fd;
      this.number = top + 1;
      // The holders before were judged dead: their files go.
      for (const older of this.numbers().filter((n) => n < this.number))
        removeIfThere(join(this.dir, String(older)));
      return;
    }
    throw new EmulatorStartError(
      `cannot start: could not lock the state file ${this.statePath}: other emulators kept taking its lock (${this.dir}); try again`,
    );
  }

  /** Still ours: our file still linked, and no other emulator took the next number. */
  holds(): boolean {
    if (this.fd === null) return false;
    try {
      return fstatSync(this.fd).nlink > 0 && !existsSync(join(this.dir, String(this.number + 1)));
    } catch {
      return false;
    }
  }

  /** Before a name is replaced, and after a save before its answer: nothing unlocked is acknowledged. */
  assertHeld(): void {
    if (this.holds()) return;
    if (!this.lostReported) {
      this.lostReported = true;
      tellOperator(
        `another emulator took over the state file ${this.statePath}; this one no longer saves changes: stop it.`,
      );
    }
    throw new HttpError(
      503,
      `This emulator no longer holds the lock of its state file ${this.statePath}: another emulator took it over, so this change may be lost. Stop this emulator.`,
    );
  }

  release(): void {
    if (this.fd === null) return;
    // Only our own file: once taken over, the number may be someone else's.
    if (this.holds()) removeIfThere(join(this.dir, String(this.number)));
    closeSync(this.fd);
    this.fd = null;
    try {
      rmdirSync(this.dir);
    } catch {
      // Not empty (another emulator is taking it) or gone: either is fine.
    }
  }

  /** Who holds the lock file at `path` and may still run ("process N on host H"), null for none. */
  private liveHolder(path: string): string | null | "gone" {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return "gone";
      throw error;
    }
    const holder = parseHolder(text);
    if (!holder)
      return `its lock file ${path} cannot be read; if no emulator uses the file, delete ${this.dir}`;
    const who = `process ${holder.pid} on host ${holder.host}`;
    const own = ownHolder();
    if (holder.host !== own.host || holder.pid_ns !== own.pid_ns) {
      return `${who}, in another container or on another host, so it cannot be checked from here; if that emulator is gone, delete ${this.dir}`;
    }
    return pidInUse(holder.pid) ? who : null;
  }

  private numbers(): number[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    return names
      .filter((name) => /^[1-9]\d{0,14}$/.test(name))
      .map(Number)
      .sort((a, b) => a - b);
  }

  private inUse(why: string): EmulatorStartError {
    return new EmulatorStartError(
      `cannot start: the state file ${this.statePath} is in use by another emulator (${why}); stop it or use another --state file`,
    );
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

function parseHolder(text: string): Holder | null {
  try {
    const value = JSON.parse(text) as Partial<Holder> | null;
    if (!Number.isInteger(value?.pid) || typeof value?.host !== "string") return null;
    return { pid: value.pid!, host: value.host, pid_ns: value.pid_ns ?? null };
  } catch {
    return null;
  }
}

/** A PID of this namespace in use (by the holder, or by a process that reused its PID: refused, to be safe). */
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

function removeIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}
