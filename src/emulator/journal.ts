// FILE.journal: the changes made since the snapshot in FILE, one record per change
// (journal-record.ts frames them, state-change.ts says what is in them).
//
// The first record is a header: the format, and the number of the first change record that
// may follow. A journal is created whole (header written and fsynced under a temp name, then
// renamed into place and the directory fsynced), so under its name it always has its header,
// and the rename gives it a new inode: an emulator that lost the lock and still appends
// through its old descriptor writes to a file nobody reads.
//
// Appends are synchronous and each is fdatasynced before append() returns, so the change is
// on disk before it is answered (the emulator answers a change only after its commit), and
// records land in the order the changes were made.
import { closeSync, fdatasyncSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { writeFileAtomic } from "./atomic-file.js";
import { decodeRecords, encodeRecord } from "./journal-record.js";
import { entryProblem, type JournalEntry } from "./state-change.js";

export const JOURNAL_FORMAT = "cpctl-emulator-journal";
export const JOURNAL_VERSION = 1;

interface JournalHeader {
  format: typeof JOURNAL_FORMAT;
  version: typeof JOURNAL_VERSION;
  /** Number of the first change record that may follow. */
  from: number;
}

export class JournalWriter {
  private constructor(
    private fd: number | null,
    private size: number,
  ) {}

  /** A new, empty journal at `path` (replacing any file there), its records numbered from `from`. */
  static create(path: string, from: number): JournalWriter {
    const header: JournalHeader = { format: JOURNAL_FORMAT, version: JOURNAL_VERSION, from };
    const record = encodeRecord(JSON.stringify(header));
    writeFileAtomic(path, record);
    return new JournalWriter(openSync(path, "a"), record.length);
  }

  /** Bytes in the file. */
  get bytes(): number {
    return this.size;
  }

  /**
   * Appends `entry` and waits until it is on disk. On a failure the file is cut back to
   * where it was (best effort: a torn tail is dropped on load anyway) and the error thrown.
   */
  append(entry: JournalEntry): void {
    if (this.fd === null) throw new Error("the journal is closed");
    const record = encodeRecord(JSON.stringify(entry));
    try {
      for (let at = 0; at < record.length; ) at += writeSync(this.fd, record, at, record.length - at);
      fdatasyncSync(this.fd);
    } catch (error) {
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        // Left for the loader, which drops a torn tail.
      }
      throw error;
    }
    this.size += record.length;
  }

  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}

export interface JournalContents {
  entries: JournalEntry[];
  /** Bytes of a torn last record, dropped (0: none). */
  tornBytes: number;
}

/** A journal that cannot be used: damaged in the middle, foreign, or out of order. */
export class UnusableJournalError extends Error {}

/** The entries of the journal at `path`, or null when there is none. Throws UnusableJournalError. */
export function readJournal(path: string): JournalContents | null {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  let decoded: ReturnType<typeof decodeRecords>;
  try {
    decoded = decodeRecords(data);
  } catch (error) {
    throw new UnusableJournalError((error as Error).message);
  }
  const [headerText, ...records] = decoded.payloads;
  const header = headerText === undefined ? null : parse(headerText, 0);
  if (
    !header ||
    header.format !== JOURNAL_FORMAT ||
    header.version !== JOURNAL_VERSION ||
    typeof header.from !== "number"
  ) {
    throw new UnusableJournalError(
      `it does not start with a ${JOURNAL_FORMAT} version ${JOURNAL_VERSION} header`,
    );
  }
  const entries: JournalEntry[] = [];
  let last = (header.from as number) - 1;
  for (const [index, text] of records.entries()) {
    const entry = parse(text, index + 1);
    const problem = entryProblem(entry);
    if (problem) throw new UnusableJournalError(`record ${index + 1}: ${problem}`);
    const { n } = entry as unknown as JournalEntry;
    if (n <= last) throw new UnusableJournalError(`record ${index + 1} is numbered ${n}, after ${last}`);
    last = n;
    entries.push(entry as unknown as JournalEntry);
  }
  return { entries, tornBytes: decoded.torn };
}

function parse(text: string, index: number): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Its checksum matched, so it was written like this: not a torn append.
    throw new UnusableJournalError(`record ${index} is not JSON`);
  }
}
