// What every layer of a run may use: its streams, environment, directory, clock, Ctrl-C,
// messages and the sink for secret values. A command's Ctx (context.ts) is this and more; a
// layer below the operations names the members it takes (Pick<RunContext, ...>), never Ctx.
import type { Clock } from "./clock.js";
import type { Env, IO } from "./io.js";
import type { Logger } from "./log.js";
import type { Paint } from "./output/safe-text.js";

export interface RunContext {
  readonly io: IO;
  readonly env: Env;
  readonly cwd: string;
  readonly clock: Clock;
  /** Aborted on Ctrl-C. */
  readonly signal: AbortSignal;
  readonly log: Logger;
  readonly paint: Paint;
  /** Remembers a secret value so that no message, trace or error can print it. */
  rememberSecret(value: string): void;
  /** Every credential and secret value this run has handled (for what is written outside the terminal). */
  knownSecrets(): Iterable<string>;
}
