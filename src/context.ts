// What a command is given to do its work. Everything is created on demand, so a command
// pays only for what it uses (no config file read for `schema`, no HTTP client for
// `completion`), and tests build a context around captured streams and a fake clock.
import type { Command } from "@commander-js/extra-typings";
import type { ApiClient } from "./api/client.js";
import type { Settings } from "./config/settings.js";
import type { IO } from "./io.js";
import type { Logger } from "./log.js";
import type { Printer } from "./output/printer.js";
import type { Paint } from "./output/safe-text.js";

export type Env = Readonly<Record<string, string | undefined>>;

/** What a run is given by the process (or by a test): the command line, streams, environment, clock. */
export interface RunDeps {
  argv: string[];
  io: IO;
  env: Env;
  cwd: string;
  homeDir: string;
  clock: Clock;
  signal: AbortSignal;
}

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with InterruptedError when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The global options of CLI.md as commander parsed them. */
export interface GlobalFlags {
  profile?: string;
  baseUrl?: string;
  tenantId?: string;
  apiKeyFile?: string;
  output?: string;
  json?: boolean;
  color: boolean;
  input: boolean;
  yes?: boolean;
  debug?: boolean;
  requestTimeout?: string;
  showSecrets?: boolean;
}

export interface Ctx {
  /** The command line after `cpctl`, for messages that show how to run it again. */
  readonly argv: readonly string[];
  /** The words of argv that name the command ("deploy create"), for CI reports. */
  readonly command: string;
  readonly io: IO;
  readonly env: Env;
  readonly cwd: string;
  readonly clock: Clock;
  /** Aborted on Ctrl-C. */
  readonly signal: AbortSignal;
  readonly flags: GlobalFlags;
  readonly log: Logger;
  readonly paint: Paint;
  /** True when prompting is allowed: stdin and stdout are terminals, no --no-input, CI unset. */
  readonly interactive: boolean;
  readonly requestTimeoutMs: number;
  /** Remembers a secret value so that no message, trace or error can print it. */
  rememberSecret(value: string): void;
  /** Every credential and secret value this run has handled (for what is written outside the terminal). */
  knownSecrets(): Iterable<string>;
  /** Flags > environment > project config > user config > defaults. */
  settings(): Promise<Settings>;
  api(): Promise<ApiClient>;
  printer(): Promise<Printer>;
  /**
   * Every command with its flags (every command module loaded): for `cpctl completion`. Given
   * by the program, so that no command imports the program that imports the commands.
   */
  commandTree(): Promise<Command>;
}
