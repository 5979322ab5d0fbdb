// Builds the program, runs one command, and turns every error into a message and an exit
// code, in one place. `run` takes its streams, environment and clock as arguments so that
// tests run the CLI in-process.
import { Command, CommanderError, Option } from "@commander-js/extra-typings";
import { commandWords, VALUE_OPTIONS } from "./argv.js";
import { errorAnnotation, onGitHubActions } from "./ci/detect.js";
import { COMMANDS, type CommandEntry, findEntry, GROUPS } from "./commands/registry.js";
import type { Clock, Env, GlobalFlags } from "./context.js";
import { createContext, type SecretRegistry } from "./context-factory.js";
import { CliError, UsageError } from "./errors.js";
import { exitCodeOf } from "./exit-codes.js";
import { GLOBAL_OPTIONS_HINT, rootHelpCommands, rootHelpFooter } from "./help.js";
import type { IO } from "./io.js";
import { jsonText } from "./output/encode.js";
import { isMachineFormat, isOutputFormat, OUTPUT_FORMATS, type OutputFormat } from "./output/format.js";
import { visibleLines } from "./output/safe-text.js";
import { createRedactor, MASK, maskSecretValues } from "./secrets.js";
import { VERSION } from "./version.js";

export interface RunDeps {
  argv: string[];
  io: IO;
  env: Env;
  cwd: string;
  homeDir: string;
  clock: Clock;
  signal: AbortSignal;
}

export async function run(deps: RunDeps): Promise<number> {
  const secrets: SecretRegistry = new Set();
  let format: OutputFormat = guessFormat(deps.argv, deps.env);
  try {
    const { program, matched } = await buildProgram(deps, secrets, (resolved) => {
      format = resolved;
    });
    await program.parseAsync(matched ? joinDashedValues(deps.argv, matched) : deps.argv, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return reportCommanderError(error, deps, format);
    return report(error, deps, format, secrets);
  }
}

/** The program, and the command argv names (its module loaded and its handler wired), if any. */
async function buildProgram(
  deps: RunDeps,
  secrets: SecretRegistry,
  onFormat: (format: OutputFormat) => void,
  configureAll = false,
): Promise<{ program: Command; matched: Command | undefined }> {
  const program = new Command("cpctl")
    .description("Manage agent-server deployments through the deployment control plane API.")
    .version(VERSION, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .option("--profile <name>", "profile from the config file (env CPCTL_PROFILE)")
    .option("--base-url <url>", "control plane address (env CPCTL_BASE_URL)")
    .option("--tenant-id <uuid>", "tenant ID, sent in the tenant header (env CPCTL_TENANT_ID)")
    .option(
      "--api-key-file <path>",
      "read the API key from a file (at most 8 KiB), or - for stdin (env CPCTL_API_KEY holds a key)",
    )
    .addOption(
      new Option("-o, --output <format>", "output format (env CPCTL_OUTPUT; default: table)").choices(
        OUTPUT_FORMATS,
      ),
    )
    .option("--json", "same as -o json")
    .option("--show-secrets", "print secret values instead of ****")
    .option("--no-color", "no colour (also NO_COLOR, TERM=dumb)")
    .option("--no-input", "never prompt; a missing value is an error (also when CI is set)")
    .option("-y, --yes", "confirm mutations without asking")
    .option("--debug", "HTTP trace on stderr, credentials and secret values redacted (env CPCTL_DEBUG=1)")
    .option("--request-timeout <duration>", "timeout of each HTTP request, e.g. 500ms, 30s, 2m", "30s")
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => deps.io.stdout.write(text),
      writeErr: (text) => deps.io.stderr.write(text),
      // Commander's own errors are reported by reportCommanderError, in the CLI's format.
      outputError: () => {},
    })
    .addHelpText("after", rootHelpFooter)
    // `cpctl help CMD` would show CMD's help without its flags (its module is not loaded):
    // `cpctl CMD --help` is the one way, and the root lists every command itself.
    .helpCommand(false)
    .configureHelp({ sortSubcommands: false, visibleCommands: rootHelpCommands });

  const matchedEntry = findEntry(commandWords(deps.argv));
  let matched: Command | undefined;

  for (const group of GROUPS) {
    program.addCommand(
      configureParent(new Command(group.name).description(group.summary), deps).helpCommand(false),
    );
  }
  for (const entry of COMMANDS) {
    const parent =
      entry.path.length === 2
        ? (program.commands.find((c) => c.name() === entry.path[0]) as Command)
        : program;
    const command = configureParent(new Command(entry.path.at(-1)!).description(entry.summary), deps);
    command.addHelpText("afterAll", GLOBAL_OPTIONS_HINT);
    parent.addCommand(command);
    if (entry === matchedEntry) {
      await attach(command, entry, program, deps, secrets, onFormat);
      matched = command;
    } else if (configureAll) (await entry.load()).default.configure(command);
  }
  return { program, matched };
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

/** Subcommands inherit the root's error handling and output routing. */
function configureParent(command: Command, deps: RunDeps): Command {
  return command
    .exitOverride()
    .configureOutput({
      writeOut: (text) => deps.io.stdout.write(text),
      writeErr: (text) => deps.io.stderr.write(text),
      outputError: () => {},
    })
    .showSuggestionAfterError(true);
}

/** Loads the matched command's module and wires its handler. */
async function attach(
  command: Command,
  entry: CommandEntry,
  program: Command,
  deps: RunDeps,
  secrets: SecretRegistry,
  onFormat: (format: OutputFormat) => void,
): Promise<void> {
  const { default: spec } = await entry.load();
  spec.configure(command);
  command.action(async (...params: unknown[]) => {
    const options = params.at(-2) as Record<string, unknown>;
    const flags = program.opts() as GlobalFlags;
    const ctx = createContext({ ...deps, flags, secrets, onFormat });
    await spec.run(ctx, params.slice(0, -2), options);
  });
}

/**
 * Joins to its flag each value that an option of `command` requires and that starts with "-"
 * (`--name -V` becomes `--name=-V`). Commander's root program looks through every argument for
 * its own options, which may come anywhere (`cpctl deploy list -o json`), and so took such a
 * value for one of them: `cpctl deploy create --name -V` printed the version, `--name -o` ate
 * the next argument. Joined, the root leaves the value alone and the command reads it as
 * before.
 */
export function joinDashedValues(argv: readonly string[], command: Command): string[] {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") {
      joined.push(...argv.slice(i));
      break;
    }
    // The command's own options, and the global ones that take a value (`--request-timeout --`
    // took "--" for the end of the options, and the root then read a later -V as --version).
    const option = command.options.find((o) => o.required && (o.long === token || o.short === token));
    const long =
      option?.long ?? (VALUE_OPTIONS.has(token) ? (token === "-o" ? "--output" : token) : undefined);
    const value = argv[i + 1];
    if (long && value?.startsWith("-")) {
      joined.push(`${long}=${value}`);
      i++;
    } else {
      joined.push(token);
    }
  }
  return joined;
}

/** The output format before settings are resolved, so that early errors use the right shape. */
function guessFormat(argv: readonly string[], env: Env): OutputFormat {
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") break;
    if (token === "--json") return "json";
    const value =
      token === "-o" || token === "--output"
        ? argv[i + 1]
        : token.startsWith("--output=")
          ? token.slice(9)
          : undefined;
    if (value && isOutputFormat(value)) return value;
    // Another option's value ("--" included) is not an option.
    if (VALUE_OPTIONS.has(token)) i++;
  }
  const fromEnv = env.CPCTL_OUTPUT;
  return fromEnv && isOutputFormat(fromEnv) ? fromEnv : "table";
}

/** A GitHub Actions annotation for the failure (CLI.md "In CI"), secrets redacted as in every message. */
function annotate(error: unknown, deps: RunDeps, secrets: SecretRegistry): void {
  const words = commandWords(deps.argv).join(" ");
  const message = error instanceof CliError ? [error.message, ...error.hints].join("\n") : String(error);
  const redacted = createRedactor(secrets, { marker: MASK, minLength: 4 })(message);
  deps.io.stderr.write(errorAnnotation(`cpctl${words ? ` ${words}` : ""} failed`, visibleLines(redacted)));
}

function reportCommanderError(error: CommanderError, deps: RunDeps, format: OutputFormat): number {
  // Help and version were printed on stdout; they are successes.
  if (
    error.code === "commander.helpDisplayed" ||
    error.code === "commander.version" ||
    error.code === "commander.help"
  ) {
    return 0;
  }
  if (error.code === "commander.executeSubCommandAsync") return error.exitCode;
  const message = error.message.replace(/^error: /, "");
  // A group run without a subcommand prints its help on stderr: a usage error.
  return report(new UsageError(message).withHint("Run with --help for usage."), deps, format, new Set());
}

function report(error: unknown, deps: RunDeps, format: OutputFormat, secrets: SecretRegistry): number {
  const code = exitCodeOf(error);
  if (error instanceof CliError && error.quiet) return code;
  if (onGitHubActions(deps.env)) annotate(error, deps, secrets);
  // Last net: any credential or secret value this run handled, wherever a message (even one
  // quoted back by a server) would show it. Values of 4 characters or more: a user's own
  // short secret is still one, and error messages are few enough not to be garbled.
  const redact = createRedactor(secrets, { marker: MASK, minLength: 4 });
  // A message may quote a server or a file: on a terminal its control characters are shown,
  // never acted on; the JSON error object escapes them (output/safe-text.ts, output/encode.ts).
  const text = (message: string) => visibleLines(redact(message));
  const json = (body: unknown) => jsonText(maskSecretValues(body, redact));
  const stderr = deps.io.stderr;
  if (!(error instanceof CliError)) {
    // A bug of ours: say so plainly; the stack only with --debug.
    const message = error instanceof Error ? error.message : String(error);
    const debug = deps.argv.includes("--debug") || deps.env.CPCTL_DEBUG === "1";
    if (isMachineFormat(format)) {
      stderr.write(`${json({ error: { code: "internal", status: null, message, details: null } })}\n`);
    } else {
      stderr.write(`error: internal error: ${text(message)}\n`);
      stderr.write(
        debug && error instanceof Error && error.stack
          ? `${text(error.stack)}\n`
          : "Run again with --debug for details, and report it if it persists.\n",
      );
    }
    return code;
  }
  if (isMachineFormat(format)) {
    // The shape is fixed by CLI.md; hints (such as the command that resumes a wait) join the message.
    const message = [error.message, ...error.hints].join("\n");
    const body = {
      error: { code: error.code, status: error.status, message, details: error.details ?? null },
    };
    stderr.write(`${json(body)}\n`);
  } else {
    stderr.write(`error: ${text(error.message)}\n`);
    for (const hint of error.hints) stderr.write(`${text(hint)}\n`);
  }
  return code;
}
