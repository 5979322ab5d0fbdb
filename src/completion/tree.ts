// The command tree as plain data for the completion scripts: every command and subcommand,
// its flags (which take a value, and which values), and its positional arguments. Read from
// commander's own definitions (its choices, and the values ./values.ts attached), so a flag or
// an allowed value is written once, in its command.
import type { Argument, Command, Option } from "@commander-js/extra-typings";
import { completionsOf } from "./values.js";

export interface FlagSpec {
  /** "--output", or null for a short-only flag. */
  long: string | null;
  /** "-o", or null. */
  short: string | null;
  description: string;
  takesValue: boolean;
  /** The allowed values, when the flag has a fixed set. */
  values: readonly string[] | null;
  /** The value is a file or directory name. */
  files: boolean;
}

export interface ArgSpec {
  name: string;
  values: readonly string[] | null;
  files: boolean;
  variadic: boolean;
}

export interface CommandNode {
  name: string;
  /** Words after `cpctl`, e.g. ["deploy", "create"]; [] for the root. */
  path: string[];
  description: string;
  /** The command's own flags; for the root, the global flags every command accepts. */
  flags: FlagSpec[];
  args: ArgSpec[];
  children: CommandNode[];
}

/** Value placeholders that name a file or a directory: `<file>`, `<path>`, `<dir>`. */
const FILE_PLACEHOLDER = /^(file|path|dir|directory|tarball|[a-z-]+-(file|dir|path))$/i;
/** Positional arguments that name a file or a directory (upload's `<source>`). */
const FILE_ARGUMENT = /^(file|path|dir|directory|tarball|source)$/i;

export function treeFromProgram(program: Command): CommandNode {
  return node(program, []);
}

// biome-ignore lint/suspicious/noExplicitAny: any commander command, whatever its typed args and options
type AnyCommand = Command<any, any, any>;

function node(command: AnyCommand, path: string[]): CommandNode {
  const flags = command.options.filter((option) => !option.hidden).map(flagSpec);
  flags.push({
    long: "--help",
    short: "-h",
    description: "show help",
    takesValue: false,
    values: null,
    files: false,
  });
  return {
    name: command.name(),
    path,
    description: firstLine(command.description()),
    flags: dedupe(flags),
    args: command.registeredArguments.map(argSpec),
    children: command.commands
      .filter((child) => !(child as unknown as { _hidden?: boolean })._hidden)
      .map((child) => node(child, [...path, child.name()])),
  };
}

function flagSpec(option: Option): FlagSpec {
  const placeholder = /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1] ?? "";
  const takesValue = Boolean(option.required || option.optional);
  const values = option.argChoices ? [...option.argChoices] : completionsOf(option);
  return {
    long: option.long ?? null,
    short: option.short ?? null,
    description: firstLine(option.description),
    takesValue,
    values,
    files: takesValue && !values && FILE_PLACEHOLDER.test(placeholder),
  };
}

function argSpec(argument: Argument): ArgSpec {
  const values = argument.argChoices ? [...argument.argChoices] : completionsOf(argument);
  return {
    name: argument.name(),
    values,
    files: !values && FILE_ARGUMENT.test(argument.name()),
    variadic: argument.variadic,
  };
}

/** The root's -h/--help is already an option of its own on some commands. */
function dedupe(flags: FlagSpec[]): FlagSpec[] {
  const seen = new Set<string>();
  return flags.filter((flag) => {
    const key = flag.long ?? flag.short ?? "";
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").trim();
}
