// The state file (`--state FILE`) and the uploaded tarballs beside it.
//
// Every write is atomic and durable before the emulator answers: write a temp file in the
// same directory, fsync it, rename it over the target, fsync the directory. rename(2) within
// one file system replaces the name in one step, so a `kill -9` (or a power cut, thanks to
// the fsyncs) at any moment leaves either the old file or the new one, never a torn one; and
// because the answer goes out only after the rename is durable, whatever a client was told
// happened is in the file.
//
// Synchronous calls on purpose: the emulator is single-threaded, so each mutation's write
// completes before the next request is looked at, and writes can never land out of order.
import {
  accessSync,
  closeSync,
  constants,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { type StateContents, snapshotText } from "./snapshot.js";
import { EmulatorStartError } from "./start-error.js";
import { checkStateShape, type EmulatorState } from "./state.js";
import { StateLock } from "./state-lock.js";

let tempCounter = 0;

export function writeFileAtomic(path: string, data: string | Buffer): void {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${++tempCounter}.tmp`);
  // 0600: the state holds secret values.
  const fd = openSync(temp, "w", 0o600);
  try {
    writeFileSync(fd, data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
  fsyncDirectory(dir);
}

function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export class StateFile {
  /** Uploaded tarballs live in `<state file>.uploads/`, one file per upload ID. */
  readonly uploadsDir: string;

  private readonly stateLock: StateLock;

  constructor(readonly path: string) {
    this.uploadsDir = `${path}.uploads`;
    this.stateLock = new StateLock(`${path}.lock`, path);
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
   * The saved state, or null when there is no file yet. A file that is not a state refuses
   * the start (throws): silently starting empty would lose everything in it on the next write.
   */
  load(): EmulatorState | null {
    this.removeStaleTempFiles();
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new EmulatorStartError(
        `cannot start: cannot read the emulator state file ${this.path}: ${(error as Error).message}`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw corrupt(this.path, `it is not valid JSON (${(error as Error).message})`);
    }
    const problem = checkStateShape(parsed);
    if (problem) throw corrupt(this.path, problem);
    return parsed as EmulatorState;
  }

  /** Written, durable, and still ours (a save made after a takeover is never acknowledged). */
  save(contents: StateContents): void {
    writeFileAtomic(this.path, snapshotText(contents));
    this.stateLock.assertHeld();
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
    const prefix = `.${basename(this.path)}.`;
    let names: string[];
    try {
      names = readdirSync(dirname(this.path));
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith(prefix) && name.endsWith(".tmp"))
        rmSync(join(dirname(this.path), name), { force: true });
    }
  }
}

function corrupt(path: string, problem: string): Error {
  return new EmulatorStartError(
    `cannot start: the emulator state file ${path} is unusable: ${problem}. ` +
      "Move it away to start with an empty state (or fix it); the emulator will not overwrite it.",
  );
}
