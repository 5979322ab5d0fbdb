// The shape of a command module: its flags and its handler, in one file per verb.
import type { Command, OptionValues } from "@commander-js/extra-typings";
import type { Ctx } from "../context.js";

export interface CommandSpec {
  /** Adds the command's arguments, options and help text. */
  // biome-ignore lint/suspicious/noExplicitAny: commander's typed command is generic in its args and options.
  configure(command: Command): Command<any, any, any>;
  run(ctx: Ctx, args: unknown[], options: OptionValues): Promise<void>;
}

/** A CommandSpec that still knows, as a type only, what its flags parse to. */
export type TypedCommandSpec<Opts> = CommandSpec & { readonly parses?: Opts };

/**
 * Ties a command's flag definitions to its handler so that `run` receives the argument and
 * option types commander infers from `configure`.
 */
export function defineCommand<Args extends unknown[], Opts extends OptionValues>(spec: {
  configure: (command: Command) => Command<Args, Opts, OptionValues>;
  run: (ctx: Ctx, args: Args, options: Opts) => Promise<void>;
}): TypedCommandSpec<Opts> {
  return spec as unknown as TypedCommandSpec<Opts>;
}

/**
 * Nothing when the flags parse to exactly `Input`'s options (the same names, each value of a
 * type `Input` takes); otherwise a property a command spec lacks, named after what differs, so
 * that the compiler's message names the options.
 */
export type FlagsMatch<Opts, Input> = [
  Exclude<keyof Opts, keyof Input>,
  Exclude<keyof Input, keyof Opts>,
] extends [never, never]
  ? [Opts] extends [Input]
    ? unknown
    : { flagsOfATypeTheInputDoesNotTake: { flags: Opts; input: Input } }
  : {
      flagsTheInputDoesNotRead: Exclude<keyof Opts, keyof Input>;
      inputNoFlagGives: Exclude<keyof Input, keyof Opts>;
    };

/**
 * For a command whose options go whole to one operation, whose input type (`Input`) is their
 * one statement: `npm run typecheck` fails when a flag is added without the input following,
 * or the reverse, naming them.
 *
 *   export default optionsAre<PushInput>()(defineCommand({ configure, run }));
 */
export function optionsAre<Input>() {
  return <Opts>(spec: TypedCommandSpec<Opts> & FlagsMatch<NoInfer<Opts>, Input>): CommandSpec => spec;
}
