// The state file (`--state FILE`): the state in FILE, the changes made since in FILE.journal,
// uploaded tarballs in FILE.uploads/, and the lock in FILE.lock/. What it guarantees, and how:
//
// - Nothing answered is lost to a `kill -9` (nor to a power cut): each change is appended to
//   the journal and fdatasynced before it is answered (journal.ts; the store commits before
//   a handler answers).
// - No torn file: FILE is only ever replaced whole (atomic-file.ts); a journal line cut short
//   by a kill was never answered, and is dropped at the next start.
// - One emulator per file (state-lock.ts).
// - A change costs the same however large the state: its line holds what it touched
//   (state-change.ts), not the state. The journal is folded into FILE (FILE written whole
//   from memory, the journal emptied) at start, at a clean stop, and once it has grown past
//   FILE's size (and FOLD_MIN_BYTES): FILE is then at most its old size plus the journal's,
//   so a fold writes at most twice what the changes since the last one wrote.
//
// A kill between a fold's rename of FILE and its removal of the journal leaves lines that
// FILE already holds: replayed at the next start, they change nothing (each sets records to
// what they became: state-change.ts).
//
// Synchronous on purpose: the emulator is single-threaded, so a change is on disk before the
// next request is looked at, and lines land in the order the changes were made.
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
import { HttpError, tellOperator } from "../responses.js";
import { EmulatorStartError } from "../start-error.js";
import { isStaleTempFile, writeFileAtomic } from "./atomic-file.js";
import { JournalWriter, readJournal, UnusableJournalError } from "./journal.js";
import { replay } from "./replay.js";
import { checkStateShape, type EmulatorState } from "./state.js";
import type { StateChange } from "./state-change.js";
import { StateLock } from "./state-lock.js";

/** The journal is folded into FILE once past this size, or past FILE's size if larger. */
export const FOLD_MIN_BYTES = 1024 * 1024;

export interface StateFileOptions {
  /** Overrides FOLD_MIN_BYTES (tests make folds happen with little data). */
  foldMinBytes?: number;
}

/** What the files of a state hold, read without writing anything. */
export interface SavedState {
  /** FILE with its journal replayed; null when there is no FILE yet. */
  state: EmulatorState | null;
  /** Size of FILE. */
  fileBytes: number;
  /** Whether there was a journal. */
  journal: boolean;
  /** Bytes of a torn last line, dropped. */
  tornBytes: number;
}

/**
 * Reads FILE and its journal: the state they stand for. Throws EmulatorStartError, naming
 * the file and what is wrong, for files that cannot be used (starting empty instead would
 * lose everything in them on the next write).
 */
export function readStateFiles(path: string): SavedState {
  const journalPath = `${path}.journal`;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new EmulatorStartError(
        `cannot start: cannot read the emulator state file ${path}: ${(error as Error).message}`,
      );
    }
    if (existsSync(journalPath)) {
      throw new EmulatorStartError(
        `cannot start: the journal ${journalPath} exists but the emulator state file ${path} does not: ` +
          "the journal holds only the changes made after the state file was written. Restore the state file, " +
          "or move the journal away to start with an empty state.",
      );
    }
    return { state: null, fileBytes: 0, journal: false, tornBytes: 0 };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, `it is not valid JSON (${(error as Error).message})`);
  }
  const problem = checkStateShape(parsed);
  if (problem) throw corrupt(path, problem);
  const snapshot = parsed as EmulatorState;

  let journal: ReturnType<typeof readJournal>;
  try {
    journal = readJournal(journalPath);
  } catch (error) {
    if (!(error instanceof UnusableJournalError)) throw error;
    throw unusableJournal(journalPath, path, error.message);
  }
  if (!journal) return { state: snapshot, fileBytes: text.length, journal: false, tornBytes: 0 };
  const state = replay(snapshot, journal.entries);
  const stateProblem = checkStateShape(state);
  if (stateProblem) throw unusableJournal(journalPath, path, `replayed over the state file, ${stateProblem}`);
  return { state, fileBytes: text.length, journal: true, tornBytes: journal.tornBytes };
}

export class StateFile {
  /** Uploaded tarballs live in `<state file>.uploads/`, one file per upload ID. */
  readonly uploadsDir: string;
  readonly journalPath: string;

  private readonly stateLock: StateLock;
  private readonly foldMinBytes: number;
  private contents: (() => EmulatorState) | null = null;
  private journal: JournalWriter | null = null;
  /** The journal is folded into FILE once it is this large. */
  private foldAt = 0;
  /**
   * FILE and its journal may not hold every committed change (there is no FILE yet, or an
   * append failed): the next commit writes the whole state instead.
   */
  private wholeWriteDue = true;
  /** A commit since FILE was last written whole: a clean stop writes it. */
  private dirty = false;
  private closed = false;

  constructor(
    readonly path: string,
    options: StateFileOptions = {},
  ) {
    this.uploadsDir = `${path}.uploads`;
    this.journalPath = `${path}.journal`;
    this.stateLock = new StateLock(`${path}.lock`, path);
    this.foldMinBytes = options.foldMinBytes ?? FOLD_MIN_BYTES;
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
   * The saved state, or null when there is no file yet; a journal is folded into FILE here.
   * Call with the lock held: whatever was acknowledged under the lock before is in what this
   * reads.
   */
  load(): EmulatorState | null {
    this.removeStaleTempFiles();
    const saved = readStateFiles(this.path);
    if (saved.tornBytes > 0) {
      tellOperator(
        `dropped the last line of ${this.journalPath} (${saved.tornBytes} bytes): it was cut short by a crash while being written, so it was never acknowledged.`,
      );
    }
    const { state } = saved;
    if (!state) return null;
    this.foldAt = Math.max(this.foldMinBytes, saved.fileBytes);
    if (saved.journal) this.write(state);
    this.wholeWriteDue = false;
    return state;
  }

  /** Where whole writes read the state from: the store (call before commits). */
  attach(contents: () => EmulatorState): void {
    this.contents = contents;
  }

  /**
   * Makes `change` durable before it is acknowledged: one journal line, or the whole state
   * when that is due. Throws when it cannot, or when this emulator lost the lock (503).
   */
  commit(change: StateChange): void {
    if (this.closed) throw new HttpError(503, "The emulator is stopping: this change was not saved.");
    this.dirty = true;
    // Never replace a name while another emulator holds the lock.
    if (this.wholeWriteDue || !this.journal) this.stateLock.assertHeld();
    if (this.wholeWriteDue) {
      this.writeWhole();
      return;
    }
    try {
      this.journal ??= JournalWriter.create(this.journalPath);
      this.journal.append(change.entry());
    } catch (error) {
      this.wholeWriteDue = true;
      throw error;
    }
    // Written, durable, and still ours: a change made after a takeover is never acknowledged.
    this.stateLock.assertHeld();
    if (this.journal.bytes >= this.foldAt) this.fold();
  }

  /** A clean stop: the journal folded into FILE, then the lock released. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.dirty && this.stateLock.holds()) this.writeWhole();
    } catch (error) {
      tellOperator(
        `could not fold the journal into ${this.path} at the stop: ${(error as Error).message}; it is read again at the next start.`,
      );
    } finally {
      this.journal?.close();
      this.journal = null;
      this.unlock();
    }
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

  /** The change is in the journal already: a fold that fails costs nothing but the journal's growth. */
  private fold(): void {
    try {
      this.writeWhole();
    } catch (error) {
      this.foldAt = 2 * this.foldAt;
      tellOperator(
        `could not fold the journal into ${this.path}: ${(error as Error).message}; the journal keeps every change.`,
      );
    }
  }

  private writeWhole(): void {
    if (!this.contents) throw new Error("StateFile.attach was not called");
    this.write(this.contents());
  }

  /** `state` as FILE, at once; the journal is then void, and removed. */
  private write(state: EmulatorState): void {
    const text = JSON.stringify(state);
    writeFileAtomic(this.path, text);
    this.foldAt = Math.max(this.foldMinBytes, text.length);
    this.wholeWriteDue = false;
    this.dirty = false;
    this.journal?.close();
    this.journal = null;
    rmSync(this.journalPath, { force: true });
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

function unusableJournal(journal: string, path: string, problem: string): Error {
  return new EmulatorStartError(
    `cannot start: the journal ${journal} of the emulator state file ${path} is unusable: ${problem}. ` +
      "It holds the changes made after the state file was written: move it away to start from the state file alone " +
      "(losing those changes), or restore it; the emulator will not overwrite it.",
  );
}
