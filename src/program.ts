// The commander program: the global options, a command for every registry entry (only the
// one being run has its module loaded and its handler wired), and the whole tree for the
// completion scripts and the help checks.
import { Command } from "@commander-js/extra-typings";
import { commandWords, joinDashedValues } from "./argv.js";
import { COMMANDS, type CommandEntry, findEntry, GROUPS } from "./commands/registry.js";
import type { GlobalFlags, RunDeps } from "./context.js";
import { createContext, type SecretRegistry } from "./context-factory.js";
import { globalOptions } from "./global-options.js";
import {
  fitHelpText,
  GLOBAL_OPTIONS_HINT,
  HELP_LAYOUT,
  HELP_WIDTH,
  rootHelpCommands,
  rootHelpFooter,
} from "./help.js";
import type { OutputFormat } from "./model/enums.js";
import { writeText } from "./output/safe-text.js";
import { VERSION } from "./version.js";

/** The program, and the command argv names (its module loaded and its handler wired), if any. */
/** What a command line parses to: the command's arguments and options, and the global flags. */
export interface Parsed {
  args: unknown[];
  options: Record<string, unknown>;
  flags: GlobalFlags;
}

export async function buildProgram(
  deps: RunDeps,
  secrets: SecretRegistry,
  onFormat: (format: OutputFormat) => void,
  configureAll = false,
  /** Instead of running the command, hand what was parsed here (parseOnly). */
  capture?: (parsed: Parsed) => void,
): Promise<{ program: Command; matched: Command | undefined; command: string | undefined }> {
  const program = new Command("cpctl")
    .description("Manage agent-server deployments through the deployment control plane API.")
    .version(VERSION, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput(helpOutput(deps))
    .addHelpText("after", rootHelpFooter)
    // `cpctl help CMD` would show CMD's help without its flags (its module is not loaded):
    // `cpctl CMD --help` is the one way, and the root lists every command itself.
    .helpCommand(false)
    .configureHelp({ ...HELP_LAYOUT, sortSubcommands: false, visibleCommands: rootHelpCommands });
  for (const option of globalOptions()) program.addOption(option);

  const matchedEntry = findEntry(commandWords(deps.argv));
  let matched: Command | undefined;

  const nest = commandNester(program);
  for (const group of GROUPS) {
    nest(
      [group.name],
      configureParent(new Command(group.name).description(group.summary), deps).helpCommand(false),
    );
  }
  for (const entry of COMMANDS) {
    const command = configureParent(new Command(entry.path.at(-1)!).description(entry.summary), deps);
    for (const alias of entry.aliases ?? []) command.alias(alias);
    nest(entry.path, command);
    if (entry === matchedEntry) {
      await attach(command, entry, program, deps, secrets, onFormat, capture);
      matched = command;
    } else if (configureAll) (await entry.load()).default.configure(command);
    // After the command's own text. Not "afterAll": a subcommand's help (`emulator clock`)
    // would print its parent's too.
    command.addHelpText("after", GLOBAL_OPTIONS_HINT);
  }
  return { program, matched, command: matchedEntry?.path.join(" ") };
}

/**
 * Adds each command under its parent, by its full path: a group (`deploy`), or a command that is
 * also a parent (`emulator`, whose controls are its children), at any depth. A parent comes
 * before its children.
 */
export function commandNester(root: Command): (path: readonly string[], command: Command) => void {
  const byPath = new Map<string, Command>([["", root]]);
  return (path, command) => {
    const parentPath = path.slice(0, -1).join(" ");
    const parent = byPath.get(parentPath);
    if (!parent) throw new Error(`registry: ${path.join(" ")} comes before its parent ${parentPath}`);
    parent.addCommand(command);
    byPath.set(path.join(" "), command);
  };
}

/**
 * The whole command tree with every command's flags and arguments, for the completion
 * scripts and the help checks. It loads every command module: never on a command's path.
 */
export async function commandTree(): Promise<Command> {
  const sink = { write: () => {}, isTTY: false };
  const deps = {
    argv: [],
    io: { stdout: sink, stderr: sink, stdin: { isTTY: false } },
  } as unknown as RunDeps;
  return (await buildProgram(deps, new Set(), () => {}, true)).program;
}

/** Subcommands inherit the root's error handling, output routing and help layout. */
function configureParent(command: Command, deps: RunDeps): Command {
  return command
    .exitOverride()
    .configureOutput(helpOutput(deps))
    .configureHelp(HELP_LAYOUT)
    .showSuggestionAfterError(true);
}

/**
 * Where commander writes (help and version on stdout, help after a usage error on stderr), at
 * the width of the terminal it goes to (80 columns off a terminal, commander's default):
 * commander wraps its lists at that width, and the text commands add after them is fitted to
 * it (help.ts).
 */
function helpOutput(deps: RunDeps) {
  const widthOf = (stream: RunDeps["io"]["stdout"]) => (stream.isTTY && stream.columns) || HELP_WIDTH;
  return {
    writeOut: (text: string) => writeText(deps.io.stdout, fitHelpText(text, widthOf(deps.io.stdout))),
    writeErr: (text: string) => writeText(deps.io.stderr, fitHelpText(text, widthOf(deps.io.stderr))),
    getOutHelpWidth: () => widthOf(deps.io.stdout),
    getErrHelpWidth: () => widthOf(deps.io.stderr),
    // Commander's own errors are reported by reportCommanderError, in the CLI's format.
    outputError: () => {},
  };
}

/** Loads the matched command's module and wires its handler. */
async function attach(
  command: Command,
  entry: CommandEntry,
  program: Command,
  deps: RunDeps,
  secrets: SecretRegistry,
  onFormat: (format: OutputFormat) => void,
  capture?: (parsed: Parsed) => void,
): Promise<void> {
  const { default: spec } = await entry.load();
  spec.configure(command);
  command.action(async (...params: unknown[]) => {
    const options = params.at(-2) as Record<string, unknown>;
    const flags = program.opts() as GlobalFlags;
    if (capture) return capture({ args: params.slice(0, -2), options, flags });
    const ctx = await createContext({
      ...deps,
      command: entry.path.join(" "),
      flags,
      secrets,
      onFormat,
      commandTree,
    });
    await spec.run(ctx, params.slice(0, -2), options);
  });
}

/**
 * The seam for testing flag parsing with no server, no context and nothing run (as gh's
 * `runF`): what a command line parses to, through the same program, parsers and argv
 * pre-parsing as `run`. A usage error rejects as commander reports it.
 */
export async function parseOnly(argv: string[]): Promise<Parsed> {
  const sink = { write: () => {}, isTTY: false };
  const deps = {
    argv,
    io: { stdout: sink, stderr: sink, stdin: { isTTY: false } },
    env: {},
  } as unknown as RunDeps;
  let parsed: Parsed | undefined;
  const { program, matched } = await buildProgram(
    deps,
    new Set(),
    () => {},
    false,
    (p) => {
      parsed = p;
    },
  );
  await program.parseAsync(matched ? joinDashedValues(argv, matched) : argv, { from: "user" });
  if (!parsed) throw new Error(`no command ran: ${argv.join(" ")}`);
  return parsed;
}
