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
import { checkStateShape, type EmulatorState } from "./state.js";

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

  private readonly lockPath: string;
  private locked = false;

  constructor(readonly path: string) {
    this.uploadsDir = `${path}.uploads`;
    this.lockPath = `${path}.lock`;
  }

  /**
   * Claims the file for this process: two emulators writing one state file would each
   * overwrite the other's changes. A lock left by a process that is gone (kill -9) is taken
   * over. Also checks, before anything is served, that the directory can be written.
   */
  lock(): void {
    const dir = dirname(this.path);
    try {
      accessSync(dir, constants.W_OK);
    } catch {
      throw new Error(
        `cannot start: the directory of the state file (${dir}) does not exist or cannot be written`,
      );
    }
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(this.lockPath, "wx", 0o600);
        writeFileSync(fd, String(process.pid));
        closeSync(fd);
        this.locked = true;
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const owner = Number(readFileSync(this.lockPath, "utf8").trim());
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new Error(
          `cannot start: the state file ${this.path} is in use by another emulator (process ${owner}); stop it or use another --state file`,
        );
      }
      rmSync(this.lockPath, { force: true });
    }
    throw new Error(
      `cannot start: could not lock the state file ${this.path} (${this.lockPath} keeps coming back)`,
    );
  }

  unlock(): void {
    if (this.locked) rmSync(this.lockPath, { force: true });
    this.locked = false;
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
      throw new Error(`cannot read the emulator state file ${this.path}: ${(error as Error).message}`);
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

  save(state: EmulatorState): void {
    writeFileAtomic(this.path, JSON.stringify(state));
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
  return new Error(
    `cannot start: the emulator state file ${path} is unusable: ${problem}. ` +
      "Move it away to start with an empty state (or fix it); the emulator will not overwrite it.",
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
