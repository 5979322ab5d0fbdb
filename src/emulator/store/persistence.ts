// The state file (`--state FILE`): the whole state in FILE, uploaded tarballs in
// FILE.uploads/, and the lock in FILE.lock/. What it guarantees, and how:
//
// - Nothing answered is lost to a `kill -9` (nor to a power cut): every change writes the
//   whole state to FILE before it is answered (the store commits before a handler answers).
// - No torn file: FILE is only ever replaced whole (atomic-file.ts).
// - One emulator per file (state-lock.ts).
//
// A whole write per change, because a local stand-in holds hundreds of deployments, not
// millions: at 300 a change writes about 0.4 MB, some 20 ms on a slow disk, half of it the
// two fsyncs any durable replace pays (docs/performance.md, issue 35).
//
// Synchronous on purpose: the emulator is single-threaded, so a change is on disk before the
// next request is looked at.
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { HttpError } from "../responses.js";
import { EmulatorStartError } from "../start-error.js";
import { isStaleTempFile, writeFileAtomic } from "./atomic-file.js";
import { checkStateShape, type EmulatorState } from "./state.js";
import { StateLock } from "./state-lock.js";

/**
 * Reads FILE: the state it holds, or null when there is none yet. Throws EmulatorStartError,
 * naming the file and what is wrong, for a file that cannot be used (starting empty instead
 * would lose everything in it on the next write), and for the journal an earlier emulator
 * may have left beside it.
 */
export function readStateFile(path: string): EmulatorState | null {
  refuseOldJournal(path);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new EmulatorStartError(
      `cannot start: cannot read the emulator state file ${path}: ${(error as Error).message}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, `it is not valid JSON (${(error as Error).message})`);
  }
  const problem = checkStateShape(parsed);
  if (problem) throw corrupt(path, problem);
  return parsed as EmulatorState;
}

/**
 * Emulators before issue 35 kept the changes since FILE was written in FILE.journal, and
 * wrote them into FILE at a clean stop; one that was killed left them there. This emulator
 * does not read journals: it refuses the start rather than lose those changes unseen.
 */
function refuseOldJournal(path: string): void {
  const journal = `${path}.journal`;
  if (!existsSync(journal)) return;
  throw new EmulatorStartError(
    `cannot start: ${journal} exists: an earlier cpctl emulator kept there changes that ${path} may not hold, ` +
      "and this one no longer reads such journals. To keep those changes, start that earlier cpctl on the file " +
      "and stop it with Ctrl-C (a clean stop writes them into the state file and removes the journal); " +
      "or move the journal away to start from the state file alone, without them.",
  );
}

export class StateFile {
  /** Uploaded tarballs live in `<state file>.uploads/`, one file per upload ID. */
  readonly uploadsDir: string;

  private readonly stateLock: StateLock;
  private closed = false;

  constructor(readonly path: string) {
    this.uploadsDir = `${path}.uploads`;
    this.stateLock = new StateLock(`${path}.lock`, path);
  }

  /**
   * Claims the file for this process (state-lock.ts), after checking that its directory can
   * be written: both before anything is served.
   */
  lock(): void {
    const dir = dirname(this.path);
    try {
      accessSync(dir, constants.W_OK);
    } catch {
      throw new EmulatorStartError(
        `cannot start: the directory of the state file (${dir}) does not exist or cannot be written`,
      );
    }
    try {
      this.stateLock.acquire();
    } catch (error) {
      if (error instanceof EmulatorStartError) throw error;
      throw new EmulatorStartError(
        `cannot start: could not lock the state file ${this.path}: ${(error as Error).message}`,
      );
    }
  }

  unlock(): void {
    this.stateLock.release();
  }

  /**
   * The saved state, or null when there is no file yet. Call with the lock held: whatever was
   * acknowledged under the lock before is in what this reads.
   */
  load(): EmulatorState | null {
    this.removeStaleTempFiles();
    return readStateFile(this.path);
  }

  /**
   * Makes `state` durable before a change is acknowledged: FILE written whole. Throws when it
   * cannot, or when this emulator lost the lock (503).
   */
  save(state: EmulatorState): void {
    if (this.closed) throw new HttpError(503, "The emulator is stopping: this change was not saved.");
    // Never replace the name while another emulator holds the lock...
    this.stateLock.assertHeld();
    writeFileAtomic(this.path, JSON.stringify(state));
    // ...and acknowledge nothing written after a takeover.
    this.stateLock.assertHeld();
  }

  /** A clean stop: every change is in FILE already; the lock is released. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unlock();
  }

  writeUpload(id: string, data: Buffer): void {
    mkdirSync(this.uploadsDir, { recursive: true, mode: 0o700 });
    writeFileAtomic(this.uploadFile(id), data);
  }

  readUpload(id: string): Buffer | undefined {
    try {
      return readFileSync(this.uploadFile(id));
    } catch {
      return undefined;
    }
  }

  removeUpload(id: string): void {
    try {
      unlinkSync(this.uploadFile(id));
    } catch {
      // Already gone: nothing to do.
    }
  }

  private uploadFile(id: string): string {
    return join(this.uploadsDir, `${id}.tar.gz`);
  }

  /** Temp files of a writer killed between open and rename: never the state, safe to drop. */
  private removeStaleTempFiles(): void {
    let names: string[];
    try {
      names = readdirSync(dirname(this.path));
    } catch {
      return;
    }
    for (const name of names) {
      if (isStaleTempFile(this.path, name)) rmSync(join(dirname(this.path), name), { force: true });
    }
  }
}

function corrupt(path: string, problem: string): Error {
  return new EmulatorStartError(
    `cannot start: the emulator state file ${path} is unusable: ${problem}. ` +
      "Move it away to start with an empty state (or fix it); the emulator will not overwrite it.",
  );
}
