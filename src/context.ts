// What a command is given to do its work. Everything is created on demand, so a command
// pays only for what it uses (no config file read for `schema`, no HTTP client for
// `completion`), and tests build a context around captured streams and a fake clock.
import type { Command } from "@commander-js/extra-typings";
import type { ApiClient } from "./api/client.js";
import type { Clock } from "./clock.js";
import type { Settings } from "./config/settings.js";
import type { Env, IO } from "./io.js";
import type { Printer } from "./output/printer.js";
import type { RunContext } from "./run-context.js";

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

export interface Ctx extends RunContext {
  /** The command line after `cpctl`, for messages that show how to run it again. */
  readonly argv: readonly string[];
  /** The words of argv that name the command ("deploy create"), for CI reports. */
  readonly command: string;
  readonly flags: GlobalFlags;
  /** True when prompting is allowed: stdin and stdout are terminals, no --no-input, CI unset. */
  readonly interactive: boolean;
  readonly requestTimeoutMs: number;
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
