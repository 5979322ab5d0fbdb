// A lock between processes, which Node's fs cannot give (no flock(2)): a directory `DIR/` of
// numbered files, one per holder in turn, each naming its holder (PID, host, PID namespace).
// Taking the lock is linking a file written whole under a private name to the next number;
// link(2) fails when the name exists, so of two processes that both find the holder gone
// exactly one gets it (removing the old file and creating one's own would race: the slower
// could remove the faster's), and no one ever reads a holder's file half-written. A holder
// still holds the lock while its file is linked and no one took the next number. Whether the
// holder of the top number is gone is the caller's rule: the config file's lock
// (config/lock.ts) and the emulator's state lock (emulator/store/state-lock.ts).
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
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { holderState, ownHolder, type ProcessHolder, parseHolder } from "./process-holder.js";

/** Who holds a lock: enough to tell, on this machine, whether it is still running. */
export type LockHolder = ProcessHolder;

/** The file of the top number, as the caller's rule is shown it. */
export interface TopHolder {
  path: string;
  /** null: the file names no holder (unreadable, or not a lock's). */
  holder: LockHolder | null;
  /** It ran here (same host and PID namespace), so its PID can be checked. */
  here: boolean;
  /** It ran here and its PID is in use (by it, or by a process that reused the PID). */
  running: boolean;
  /** Since the file was written. */
  ageMs: number;
}

/** Who still holds the lock, in words for a message; null when its holder is gone. */
export type HolderRule = (top: TopHolder) => string | null;

/** "taken"; "moved": another process changed the lock meanwhile, look again at once. */
export type Attempt = "taken" | "moved" | { heldBy: string };

export class NumberedLock {
  private fd: number | null = null;
  private number = 0;

  /** `format` goes into each holder's file, to say what the file is. */
  constructor(
    readonly dir: string,
    private readonly rule: HolderRule,
    private readonly format: string,
  ) {}

  /** One try; errors other than another process moving (EACCES, ENOSPC...) are thrown. */
  tryTake(): Attempt {
    makeDirectory(this.dir);
    const top = this.numbers().at(-1) ?? 0;
    if (top > 0) {
      const found = readTop(join(this.dir, String(top)));
      if (found === null) return "moved";
      const heldBy = this.rule(found);
      if (heldBy !== null) return { heldBy };
    }
    const temp = join(this.dir, `.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
    let fd: number;
    try {
      fd = openSync(temp, "wx", 0o600);
    } catch (error) {
      // The directory went away: a holder that was done removed it.
      if (code(error) === "ENOENT") return "moved";
      throw error;
    }
    try {
      writeSync(fd, JSON.stringify({ format: this.format, ...ownHolder() }));
      linkSync(temp, join(this.dir, String(top + 1)));
    } catch (error) {
      closeSync(fd);
      // EEXIST: another process took this number first; ENOENT: the directory went away.
      if (code(error) === "EEXIST" || code(error) === "ENOENT") return "moved";
      throw error;
    } finally {
      removeIfThere(temp);
    }
    this.fd = fd;
    this.number = top + 1;
    // The holders before were judged gone: their files go, so that the directory can be
    // removed once free.
    for (const older of this.numbers()) if (older < this.number) removeIfThere(join(this.dir, String(older)));
    return "taken";
  }

  /** Still ours: our file still linked, and no one took the next number. */
  holds(): boolean {
    if (this.fd === null) return false;
    try {
      return fstatSync(this.fd).nlink > 0 && !existsSync(join(this.dir, String(this.number + 1)));
    } catch {
      return false;
    }
  }

  release(): void {
    if (this.fd === null) return;
    const path = join(this.dir, String(this.number));
    try {
      // Only our own file: after a takeover the number may be someone else's.
      if (this.holds() && statSync(path).ino === fstatSync(this.fd).ino) unlinkSync(path);
    } catch {
      // Gone already.
    }
    closeSync(this.fd);
    this.fd = null;
    try {
      rmdirSync(this.dir);
    } catch {
      // Not empty (the next holder is taking it) or gone: either is fine.
    }
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
}

function makeDirectory(dir: string): void {
  for (let tries = 1; ; tries++) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return;
    } catch (error) {
      // A holder that was done removed the directory between Node's mkdir and the stat its
      // recursive mkdir makes of what it found: the lock came free, make it again. Bounded,
      // for a path that can never be made (a dangling link in it).
      if (code(error) === "ENOENT" && tries < 100) continue;
      throw error;
    }
  }
}

/** null: the file went away meanwhile. */
function readTop(path: string): TopHolder | null {
  let text: string;
  let ageMs: number;
  try {
    ageMs = Date.now() - statSync(path).mtimeMs;
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (code(error) === "ENOENT") return null;
    throw error;
  }
  const holder = parseHolder(text);
  const { here, running } = holder ? holderState(holder) : { here: false, running: false };
  return { path, holder, here, running, ageMs };
}

function removeIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;
