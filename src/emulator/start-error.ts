// Why `cpctl emulator` (or startEmulator) could not start: the state file is locked by
// another emulator, unusable, or in a directory that cannot be written; the port is taken.
// These are the user's situation to resolve, not bugs: a typed error, so that main.ts prints
// the message as it is (exit 1) instead of "internal error ... report it".
import { OperationError } from "../errors.js";

export class EmulatorStartError extends OperationError {
  constructor(message: string) {
    super(message, "emulator_start");
    this.name = "EmulatorStartError";
  }
}
