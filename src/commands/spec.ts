// The shape of a command module: its flags and its handler, in one file per verb.
import type { Command, OptionValues } from "@commander-js/extra-typings";
import type { Ctx } from "../context.js";

export interface CommandSpec {
  /** Adds the command's arguments, options and help text. */
  // biome-ignore lint/suspicious/noExplicitAny: commander's typed command is generic in its args and options.
  configure(command: Command): Command<any, any, any>;
  run(ctx: Ctx, args: unknown[], options: OptionValues): Promise<void>;
}

/**
 * Ties a command's flag definitions to its handler so that `run` receives the argument and
 * option types commander infers from `configure`.
 */
export function defineCommand<Args extends unknown[], Opts extends OptionValues>(spec: {
  configure: (command: Command) => Command<Args, Opts, OptionValues>;
  run: (ctx: Ctx, args: Args, options: Opts) => Promise<void>;
}): CommandSpec {
  return spec as unknown as CommandSpec;
}
