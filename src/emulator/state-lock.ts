// One emulator per state file. Two emulators writing one file would each overwrite the
// other's changes, losing writes both had acknowledged.
//
// How, and why this way. Node has no flock(2), and a lock that is only a PID cannot be
// judged: in a container the emulator is PID 1, which is alive in every namespace, so a
// lock left by a killed container was never taken over; and taking over by "remove the
// dead one's file, then create mine" races, because a second newcomer can remove the file
// the first just created. So:
// - The lock is a directory, `FILE.lock/`, of numbered files (epochs). Taking the lock
//   means creating the next number exclusively (link(2) of a file written whole, which fails
//   when the name exists, as O_EXCL does): of two newcomers that both found the holder dead,
//   exactly one creates it, and nobody ever removes a file it does not hold. The winner then
//   removes the older numbers.
// - The file records who holds it (util/process-identity.ts: host, boot ID, PID namespace, PID,
//   start time). A newcomer that shares the holder's boot and PID namespace checks the PID
//   and start time: a free PID, or one reused by a younger process, is a dead holder, taken
//   over at once (the usual kill -9 and restart).
// - Otherwise (another container, another host over a shared volume, no /proc) the PID says
//   nothing, and the holder's heartbeat decides: it refreshes the file's mtime every
//   LOCK_HEARTBEAT_MS of real time, and a lock unrefreshed for LOCK_STALE_MS is dead.
// - A holder wrongly judged dead (frozen longer than that) must not go on writing: after
//   every save, before the answer leaves, it checks that it still holds the lock (its file
//   still linked, no next number). A save it finds it lost is answered 503, never
//   acknowledged; and a newcomer loads the state only after taking the lock, so every
//   acknowledged write is in what it loads.
// An old cpctl's lock is a plain `FILE.lock` file holding a PID: taken over only when that
// PID is free, as that version did.

import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  fstatSync,
  futimesSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import {
  liveness,
  ownIdentity,
  type ProcessIdentity,
  pidExists,
  sharesPidSpace,
} from "../util/process-identity.js";
import { HttpError } from "./responses.js";
import { EmulatorStartError } from "./start-error.js";

/** How often a holder refreshes its lock's mtime (real time, not the emulator's clock). */
export const LOCK_HEARTBEAT_MS = 2_000;
/** A lock whose holder cannot be checked is dead once unrefreshed this long. */
export const LOCK_STALE_MS = 10_000;

const LOCK_FORMAT = "cpctl-emulator-lock";

interface LockRecord extends ProcessIdentity {
  format: typeof LOCK_FORMAT;
}

type Verdict = { kind: "free" } | { kind: "gone" } | { kind: "held"; why: string };

export class StateLock {
  private fd: number | null = null;
  private epoch = 0;
  private heartbeat: NodeJS.Timeout | null = null;
  private lostReported = false;
  private readonly own = ownIdentity();

  /** `dir` is `<state file>.lock`; `statePath` is for messages. */
  constructor(
    private readonly dir: string,
    private readonly statePath: string,
    private readonly realNow: () => number = Date.now,
  ) {}

  /** Takes the lock, or throws EmulatorStartError saying who holds it. */
  acquire(): void {
    // Bounded: each round either takes the lock, refuses, or saw another newcomer move.
    for (let round = 0; round < 8; round++) {
      const legacy = this.legacyVerdict();
      if (legacy.kind === "held") throw this.inUse(legacy.why);
      if (legacy.kind === "free") removeIfFile(this.dir);
      try {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      } catch (error) {
        // An old cpctl's lock file appeared meanwhile: judge it in the next round.
        if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
        throw error;
      }

      const top = this.epochs().at(-1) ?? 0;
      if (top > 0) {
        const verdict = this.judge(join(this.dir, String(top)));
        if (verdict.kind === "held") throw this.inUse(verdict.why);
        if (verdict.kind === "gone") continue;
      }
      const path = join(this.dir, String(top + 1));
      // Written whole under a private name, then linked to the number: link(2) fails if the
      // name exists, like O_EXCL, and the lock never exists half-written for others to judge.
      const temp = join(this.dir, `.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
      let fd: number;
      try {
        fd = openSync(temp, "wx", 0o600);
      } catch (error) {
        // The directory went away: a holder that was closing removed it. Look again.
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw error;
      }
      try {
        writeFileSync(fd, JSON.stringify({ format: LOCK_FORMAT, ...this.own } satisfies LockRecord));
        linkSync(temp, path);
      } catch (error) {
        closeSync(fd);
        const code = (error as NodeJS.ErrnoException).code;
        // EEXIST: another newcomer took this number first; ENOENT: a holder that was
        // closing removed the directory. Either way, look again.
        if (code === "EEXIST" || code === "ENOENT") continue;
        throw error;
      } finally {
        removeIfFile(temp);
      }
      this.fd = fd;
      this.epoch = top + 1;
      for (const older of this.epochs()) if (older < this.epoch) removeIfFile(join(this.dir, String(older)));
      this.startHeartbeat();
      return;
    }
    throw new EmulatorStartError(
      `cannot start: could not lock the state file ${this.statePath}: other emulators kept taking its lock (${this.dir}); try again`,
    );
  }

  /** Still ours: our file still linked, and no newcomer took the next number. */
  holds(): boolean {
    if (this.fd === null) return false;
    try {
      return fstatSync(this.fd).nlink > 0 && !existsSync(join(this.dir, String(this.epoch + 1)));
    } catch {
      return false;
    }
  }

  /** After a save, before its answer: a save made without the lock is never acknowledged. */
  assertHeld(): void {
    if (this.holds()) return;
    this.reportLost();
    throw new HttpError(
      503,
      `This emulator no longer holds the lock of its state file ${this.statePath}: another emulator took it over, so this change may be lost. Stop this emulator.`,
    );
  }

  release(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    if (this.fd === null) return;
    const path = join(this.dir, String(this.epoch));
    try {
      // Only our own file: after a takeover, that number may be someone else's.
      if (this.holds() && statSync(path).ino === fstatSync(this.fd).ino) unlinkSync(path);
    } catch {
      // Already gone.
    }
    closeSync(this.fd);
    this.fd = null;
    try {
      rmdirSync(this.dir);
    } catch {
      // Not empty (a newcomer is taking it) or gone: either is fine.
    }
  }

  private startHeartbeat(): void {
    this.heartbeat = setInterval(() => {
      if (!this.holds()) {
        this.reportLost();
        if (this.heartbeat) clearInterval(this.heartbeat);
        return;
      }
      const now = this.realNow() / 1000;
      try {
        futimesSync(this.fd!, now, now);
      } catch {
        // Closed meanwhile: release() is under way.
      }
    }, LOCK_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private reportLost(): void {
    if (this.lostReported) return;
    this.lostReported = true;
    process.stderr.write(
      `cpctl emulator: another emulator took over the state file ${this.statePath}; this one no longer saves changes: stop it.\n`,
    );
  }

  private judge(path: string): Verdict {
    let text: string;
    let mtimeMs: number;
    try {
      mtimeMs = statSync(path).mtimeMs;
      text = readFileSync(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "gone" };
      throw error;
    }
    const age = Math.max(0, this.realNow() - mtimeMs);
    const record = parseRecord(text);
    if (!record) {
      // Damaged (locks are written whole, see acquire): only its age tells.
      return age > LOCK_STALE_MS
        ? { kind: "free" }
        : { kind: "held", why: `its lock file ${path} cannot be read` };
    }
    const who = `process ${record.pid} on host ${record.host}`;
    if (sharesPidSpace(record, this.own)) {
      const state = liveness(record);
      if (state === "dead") return { kind: "free" };
      if (state === "alive") return { kind: "held", why: `${who}` };
    }
    if (age > LOCK_STALE_MS) return { kind: "free" };
    const lapse = Math.ceil((LOCK_STALE_MS - age) / 1000);
    return {
      kind: "held",
      why:
        `${who}, whose PID cannot be checked from here (another container, host or boot); ` +
        `it refreshed its lock ${Math.round(age / 1000)} s ago. If that emulator is gone, its lock lapses ` +
        `${LOCK_STALE_MS / 1000} s after its last refresh: start again in ${lapse} s`,
    };
  }

  /** A plain `FILE.lock` file holding a PID, left by an older cpctl. */
  private legacyVerdict(): Verdict {
    try {
      if (!lstatSync(this.dir).isFile()) return { kind: "gone" };
    } catch {
      return { kind: "gone" };
    }
    let pid: number;
    try {
      pid = Number(readFileSync(this.dir, "utf8").trim());
    } catch {
      return { kind: "gone" };
    }
    if (!pidExists(pid)) return { kind: "free" };
    return {
      kind: "held",
      why: `process ${pid} (a lock of an older cpctl, ${this.dir}: if no emulator uses the file, delete it)`,
    };
  }

  private epochs(): number[] {
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

function parseRecord(text: string): LockRecord | null {
  try {
    const value = JSON.parse(text) as Partial<LockRecord> | null;
    if (value?.format !== LOCK_FORMAT || typeof value.pid !== "number" || typeof value.host !== "string")
      return null;
    return {
      format: LOCK_FORMAT,
      pid: value.pid,
      host: value.host,
      boot_id: value.boot_id ?? null,
      pid_ns: value.pid_ns ?? null,
      start_ticks: value.start_ticks ?? null,
    };
  } catch {
    return null;
  }
}

function removeIfFile(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already, or a directory (another newcomer replaced the old file first).
  }
}
