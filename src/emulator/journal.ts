// FILE.journal: the changes made since FILE was written, one line of JSON per change
// (state-change.ts says what a line holds).
//
// Appends are synchronous and each is fdatasynced before append() returns, so a change is on
// disk before it is answered (the emulator answers a change only after its commit), and
// lines land in the order the changes were made. So only the end of a journal can be torn:
// a bad last line (cut short by a kill in the middle of an append, or the zeros a power cut
// can leave) was never answered and is dropped; a bad line with more after it is damage, and
// the journal is refused rather than lose what follows.
import { closeSync, fdatasyncSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { fsyncDirectory } from "./atomic-file.js";
import { entryProblem, type JournalEntry } from "./state-change.js";

export class JournalWriter {
  private constructor(
    private fd: number | null,
    private size: number,
  ) {}

  /**
   * An empty journal at `path`, replacing any file there (call only once FILE holds what it
   * held). Its directory is fsynced: the new name survives a power cut with the lines.
   */
  static create(path: string): JournalWriter {
    const fd = openSync(path, "w", 0o600);
    fsyncDirectory(dirname(path));
    return new JournalWriter(fd, 0);
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
    const line = Buffer.from(`${JSON.stringify(entry)}\n`);
    try {
      for (let at = 0; at < line.length; ) at += writeSync(this.fd, line, at, line.length - at);
      fdatasyncSync(this.fd);
    } catch (error) {
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        // Left for the loader, which drops a torn tail.
      }
      throw error;
    }
    this.size += line.length;
  }

  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}

export interface JournalContents {
  entries: JournalEntry[];
  /** Bytes of a torn last line, dropped (0: none). */
  tornBytes: number;
}

/** A journal that cannot be used: damaged before its end. */
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
  const entries: JournalEntry[] = [];
  for (let at = 0, line = 1; at < data.length; line++) {
    const newline = data.indexOf(0x0a, at);
    const end = newline < 0 ? data.length : newline + 1;
    const parsed = newline < 0 ? "has no end" : parseLine(data.toString("utf8", at, newline));
    if (typeof parsed !== "string") {
      entries.push(parsed);
      at = end;
      continue;
    }
    if (end === data.length) return { entries, tornBytes: data.length - at };
    throw new UnusableJournalError(`line ${line} ${parsed}, with more lines after it`);
  }
  return { entries, tornBytes: 0 };
}

/** The entry a line holds, or what is wrong with it. */
function parseLine(text: string): JournalEntry | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "is not JSON";
  }
  const problem = entryProblem(value);
  return problem ? `is not a change: ${problem}` : (value as JournalEntry);
}
