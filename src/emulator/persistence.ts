// The state file (`--state FILE`): a snapshot of the state in FILE, the changes made since in
// FILE.journal, uploaded tarballs in FILE.uploads/, and the lock in FILE.lock/.
//
// Durability. Every change is appended to the journal and fdatasynced before the emulator
// answers it (journal.ts; the store commits before a handler answers), so whatever a client
// was told happened survives a `kill -9`, and a power cut too. A record cut short by a kill
// in the middle of an append fails its length or checksum and is dropped at the next start:
// it was never answered (journal-record.ts).
//
// Cost. A change's record holds what the change touched (state-change.ts), not the state: a
// write costs the same at 10,000 deployments as at none. The journal is folded into the
// snapshot (compaction) once it is larger than the snapshot (and COMPACTION_MIN_BYTES): the
// new snapshot is at most the old one plus what the journal added, so no more than twice the
// journal's bytes; all in all a change costs a bounded multiple of its own size, and a start
// replays at most about a snapshot's worth of journal.
//
// Compaction does not stop the emulator, nor lose a change made while it runs:
//   1. the journal is renamed FILE.journal.old, and a new FILE.journal, whose records are
//      numbered on from there, takes the changes from then on;
//   2. the snapshot is written to a temp file a slice at a time, between requests
//      (snapshot.ts), fsynced, and renamed over FILE. Its journal_from is the first record of
//      the new journal: replaying that journal over it sets right whatever the slices caught
//      of the changes made meanwhile (records are after-images);
//   3. FILE.journal.old is removed.
// A kill at any step leaves files that a start reads correctly: it replays FILE.journal.old
// and FILE.journal over FILE, skipping the records numbered below FILE's journal_from.
//
// At start, when there was a journal, the state read is written as the new snapshot and the
// journals removed (a torn tail is then gone for good); a clean stop does the same. So after
// a clean stop FILE alone holds everything, in the format emulators before the journal read.
//
// Synchronous writes on purpose: the emulator is single-threaded, so a change's record is on
// disk before the next request is looked at, and records land in the order the changes were
// made. Only compaction's snapshot is written asynchronously.
import {
  accessSync,
  constants,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { isStaleTempFile, writeFileAtomic, writeFileAtomicInSlices } from "./atomic-file.js";
import { JournalWriter, readJournal, UnusableJournalError } from "./journal.js";
import { replay } from "./replay.js";
import { HttpError } from "./responses.js";
import { type StateContents, snapshotSlices, snapshotText } from "./snapshot.js";
import { EmulatorStartError } from "./start-error.js";
import { checkStateShape, type EmulatorState } from "./state.js";
import type { JournalEntry, StateChange } from "./state-change.js";
import { StateLock } from "./state-lock.js";

/** The journal is compacted once past this size, or past the snapshot's size if larger. */
export const COMPACTION_MIN_BYTES = 1024 * 1024;

export interface StateFileOptions {
  /** Overrides COMPACTION_MIN_BYTES (tests make compaction happen with little data). */
  compactionMinBytes?: number;
  /** Overrides snapshot.ts's SLICE_CHARS (tests make a small snapshot take many slices). */
  compactionSliceChars?: number;
}

/** What the files of a state hold, read without writing anything. */
export interface SavedState {
  /** Snapshot and journals together; null when there is no state file yet. */
  state: EmulatorState | null;
  /** Size of FILE. */
  snapshotBytes: number;
  /** How many journal files there were (FILE.journal.old, FILE.journal). */
  journals: number;
  /** Bytes of torn last records dropped. */
  tornBytes: number;
}

/**
 * Reads FILE and its journals: the state they stand for. Throws EmulatorStartError, naming
 * the file and what is wrong, for files that cannot be used (starting empty instead would
 * lose everything in them on the next write).
 */
export function readStateFiles(path: string): SavedState {
  const { current, previous } = journalPaths(path);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new EmulatorStartError(
        `cannot start: cannot read the emulator state file ${path}: ${(error as Error).message}`,
      );
    }
    for (const journal of [previous, current]) {
      if (exists(journal)) {
        throw new EmulatorStartError(
          `cannot start: the journal ${journal} exists but the emulator state file ${path} does not: ` +
            "the journal holds only the changes made after the state file was written. Restore the state file, " +
            "or move the journal away to start with an empty state.",
        );
      }
    }
    return { state: null, snapshotBytes: 0, journals: 0, tornBytes: 0 };
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

  const entries: JournalEntry[] = [];
  let journals = 0;
  let tornBytes = 0;
  for (const journal of [previous, current]) {
    let contents: ReturnType<typeof readJournal>;
    try {
      contents = readJournal(journal);
    } catch (error) {
      if (!(error instanceof UnusableJournalError)) throw error;
      throw unusableJournal(journal, path, error.message);
    }
    if (!contents) continue;
    journals++;
    tornBytes += contents.tornBytes;
    const first = contents.entries[0];
    const last = entries.at(-1);
    if (first && last && first.n <= last.n)
      throw unusableJournal(journal, path, `its records are numbered from ${first.n}, after ${last.n}`);
    entries.push(...contents.entries);
  }
  if (journals === 0) return { state: snapshot, snapshotBytes: text.length, journals, tornBytes };
  const state = replay(snapshot, entries);
  const stateProblem = checkStateShape(state);
  if (stateProblem) throw unusableJournal(current, path, `replayed over the state file, ${stateProblem}`);
  return { state, snapshotBytes: text.length, journals, tornBytes };
}

export class StateFile {
  /** Uploaded tarballs live in `<state file>.uploads/`, one file per upload ID. */
  readonly uploadsDir: string;
  readonly journalPath: string;
  /** The journal being compacted into the snapshot (step 1 above). */
  readonly previousJournalPath: string;

  private readonly stateLock: StateLock;
  private readonly compactionMinBytes: number;
  private readonly sliceChars: number | undefined;
  private contents: (() => StateContents) | null = null;
  private journal: JournalWriter | null = null;
  /** Number of the next journal record. */
  private nextRecord = 0;
  /** Size of the last snapshot: the journal is compacted once it outgrows it. */
  private snapshotBytes = 0;
  /**
   * FILE and its journal may not hold every committed change (there is no FILE yet, or an
   * append or a compaction failed): the next commit writes the whole state instead.
   */
  private wholeWriteDue = true;
  /** A commit since the last whole write (at start or since): a clean stop writes one. */
  private dirty = false;
  private compaction: { cancelled: boolean; done: Promise<void> } | null = null;
  private closed = false;

  constructor(
    readonly path: string,
    options: StateFileOptions = {},
  ) {
    this.uploadsDir = `${path}.uploads`;
    ({ current: this.journalPath, previous: this.previousJournalPath } = journalPaths(path));
    this.stateLock = new StateLock(`${path}.lock`, path);
    this.compactionMinBytes = options.compactionMinBytes ?? COMPACTION_MIN_BYTES;
    this.sliceChars = options.compactionSliceChars;
  }

  /**
   * Claims the file for this process (state-lock.ts): two emulators writing one state file
   * would each overwrite the other's changes. Also checks, before anything is served, that
   * the directory can be written.
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
    this.stateLock.acquire();
  }

  unlock(): void {
    this.stateLock.release();
  }

  /**
   * The saved state, or null when there is no file yet; a journal is folded into the state
   * file here (see above). Call with the lock held: whatever was acknowledged under the lock
   * before is in what this reads.
   */
  load(): EmulatorState | null {
    this.removeStaleTempFiles();
    const saved = readStateFiles(this.path);
    if (saved.tornBytes > 0) {
      process.stderr.write(
        `cpctl emulator: dropped the last record of ${this.journalPath} (${saved.tornBytes} bytes): it was cut short by a crash while being written, so it was never acknowledged.\n`,
      );
    }
    const { state } = saved;
    if (!state) return null;
    this.nextRecord = state.journal_from ?? 0;
    this.snapshotBytes = saved.snapshotBytes;
    if (saved.journals > 0) {
      const text = snapshotText(state, this.nextRecord);
      writeFileAtomic(this.path, text);
      this.snapshotBytes = text.length;
      this.removeJournals();
    }
    this.wholeWriteDue = false;
    return state;
  }

  /** Where compaction and whole writes read the state from: the store (call before commits). */
  attach(contents: () => StateContents): void {
    this.contents = contents;
  }

  /**
   * Makes `change` durable before it is acknowledged: one journal record, or the whole state
   * when that is due. Throws when it cannot, or when this emulator lost the lock (503).
   */
  commit(change: StateChange): void {
    if (this.closed) throw new HttpError(503, "The emulator is stopping: this change was not saved.");
    this.dirty = true;
    if (this.wholeWriteDue) {
      // Never replace a name while another emulator holds the lock.
      this.stateLock.assertHeld();
      this.writeWhole();
      return;
    }
    if (!this.journal) {
      this.stateLock.assertHeld();
      try {
        this.journal = JournalWriter.create(this.journalPath, this.nextRecord);
      } catch (error) {
        this.wholeWriteDue = true;
        throw error;
      }
    }
    try {
      this.journal.append(change.entry(this.nextRecord++));
    } catch (error) {
      this.wholeWriteDue = true;
      throw error;
    }
    // Written, durable, and still ours: a change made after a takeover is never acknowledged.
    this.stateLock.assertHeld();
    if (!this.compaction && this.journal.bytes >= Math.max(this.compactionMinBytes, this.snapshotBytes)) {
      this.startCompaction();
    }
  }

  /** A clean stop: the journal folded into FILE (see above), then the lock released. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const compaction = this.compaction;
    if (compaction) {
      compaction.cancelled = true;
      await compaction.done;
    }
    try {
      if (this.dirty && this.stateLock.holds()) this.writeWhole();
    } catch (error) {
      process.stderr.write(
        `cpctl emulator: could not fold the journal into ${this.path} at the stop: ${(error as Error).message}; it is read again at the next start.\n`,
      );
    } finally {
      this.journal?.close();
      this.journal = null;
      this.unlock();
    }
  }

  /** Settles once no compaction is under way (for tests: nothing waits for one otherwise). */
  async compactionSettled(): Promise<void> {
    while (this.compaction) await this.compaction.done;
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

  /** The whole state as FILE, at once; the journals are then void and removed. */
  private writeWhole(): void {
    if (!this.contents) throw new Error("StateFile.attach was not called");
    this.cancelCompaction();
    const text = snapshotText(this.contents(), this.nextRecord);
    writeFileAtomic(this.path, text);
    this.snapshotBytes = text.length;
    this.wholeWriteDue = false;
    this.dirty = false;
    this.removeJournals();
  }

  /** Steps 1 to 3 above; step 1 now, the rest in the background. */
  private startCompaction(): void {
    // A holder that lost the lock replaces no names.
    if (!this.stateLock.holds() || !this.contents) return;
    const from = this.nextRecord;
    // Every path that ends a compaction removes FILE.journal.old or makes the next commit a
    // whole write (which does); should one still be there, its records must not be renamed over.
    if (exists(this.previousJournalPath)) {
      this.wholeWriteDue = true;
      return;
    }
    try {
      this.journal?.close();
      this.journal = null;
      renameSync(this.journalPath, this.previousJournalPath);
      // Its directory fsync makes the rename durable too.
      this.journal = JournalWriter.create(this.journalPath, from);
    } catch (error) {
      this.wholeWriteDue = true;
      this.report(`could not start compacting the journal: ${(error as Error).message}`);
      return;
    }
    const job = { cancelled: false, done: Promise.resolve() };
    const slices = snapshotSlices(this.contents(), from, this.sliceChars);
    job.done = writeFileAtomicInSlices(this.path, slices, () => !job.cancelled && this.stateLock.holds())
      .then(
        (bytes) => {
          if (bytes === null || job.cancelled) return;
          this.snapshotBytes = bytes;
          rmSync(this.previousJournalPath, { force: true });
        },
        (error: unknown) => {
          if (job.cancelled) return;
          // FILE.journal.old still holds what the snapshot was to: the next rotation must not
          // replace it, so the next commit writes the whole state instead.
          this.wholeWriteDue = true;
          this.report(`could not compact the journal into ${this.path}: ${(error as Error).message}`);
        },
      )
      .finally(() => {
        if (this.compaction === job) this.compaction = null;
      });
    this.compaction = job;
  }

  /** Stops a compaction under way: its snapshot is not renamed into place. */
  private cancelCompaction(): void {
    if (this.compaction) this.compaction.cancelled = true;
    this.compaction = null;
  }

  private removeJournals(): void {
    this.journal?.close();
    this.journal = null;
    rmSync(this.previousJournalPath, { force: true });
    rmSync(this.journalPath, { force: true });
  }

  private report(problem: string): void {
    process.stderr.write(`cpctl emulator: ${problem}; the next change writes the whole state.\n`);
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

function journalPaths(statePath: string): { current: string; previous: string } {
  return { current: `${statePath}.journal`, previous: `${statePath}.journal.old` };
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
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
