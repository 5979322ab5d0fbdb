// One emulator per state file: two writing one file would each overwrite changes the other
// had acknowledged. The lock is a directory, FILE.lock/ (util/numbered-lock.ts).
//
// Its holder is gone when it ran here (same host and PID namespace) and its PID is free. One
// that ran elsewhere (another container or host) cannot be checked: the lock is refused, and
// the message says to delete FILE.lock once that emulator is gone. A PID in use is refused
// too, even if reused: to be safe. After every save, before the answer leaves, a holder checks
// that it still holds the lock: an emulator whose lock was taken from it (FILE.lock deleted
// by hand) answers 503 rather than acknowledge.
import { NumberedLock, type TopHolder } from "../../util/numbered-lock.js";
import { HttpError, tellOperator } from "../responses.js";
import { EmulatorStartError } from "../start-error.js";

export class StateLock {
  private readonly lock: NumberedLock;
  private lostReported = false;

  /** `dir` is `<state file>.lock`; `statePath` is for messages. */
  constructor(
    private readonly dir: string,
    private readonly statePath: string,
  ) {
    this.lock = new NumberedLock(dir, (top) => this.stillHeldBy(top), "cpctl-emulator-lock");
  }

  /** Takes the lock, or throws EmulatorStartError saying who holds it. */
  acquire(): void {
    // Bounded: each round takes the lock, refuses, or saw another emulator move.
    for (let round = 0; round < 8; round++) {
      const taken = this.lock.tryTake();
      if (taken === "taken") return;
      if (taken !== "moved")
        throw new EmulatorStartError(
          `cannot start: the state file ${this.statePath} is in use by another emulator (${taken.heldBy}); stop it or use another --state file`,
        );
    }
    throw new EmulatorStartError(
      `cannot start: could not lock the state file ${this.statePath}: other emulators kept taking its lock (${this.dir}); try again`,
    );
  }

  holds(): boolean {
    return this.lock.holds();
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
    this.lock.release();
  }

  private stillHeldBy({ path, holder, here, running }: TopHolder): string | null {
    if (!holder)
      return `its lock file ${path} cannot be read; if no emulator uses the file, delete ${this.dir}`;
    const who = `process ${holder.pid} on host ${holder.host}`;
    if (!here)
      return `${who}, in another container or on another host, so it cannot be checked from here; if that emulator is gone, delete ${this.dir}`;
    return running ? who : null;
  }
}
