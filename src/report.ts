// Every error as a message and an exit code, in one place: the CLI's typed errors, commander's
// own (an unknown command gets a "did you mean", a bad flag value plain words, every bad flag
// value at once), and a bug of ours (no stack unless --debug). Secrets never reach stderr.
import type { Command, CommanderError, CommandUnknownOpts } from "@commander-js/extra-typings";
import { commandWords } from "./argv.js";
import { onGitHubActions } from "./ci/detect.js";
import { FAMILIAR_NAMES, FAMILIAR_OPTIONS } from "./commands/registry.js";
import type { RunDeps } from "./context.js";
import type { SecretRegistry } from "./context-factory.js";
import { CliError, UsageError } from "./errors.js";
import { exitCodeOf } from "./exit-codes.js";
import type { OutputFormat } from "./model/enums.js";
import { jsonText } from "./output/encode.js";
import { isMachineFormat } from "./output/format.js";
import { visibleLines, writeText } from "./output/safe-text.js";
import { createMasker, maskSecretValues } from "./secrets.js";
import { closest } from "./util/did-you-mean.js";

/**
 * On GitHub Actions (CLI.md "In CI"), the error as annotations, in place of the plain message:
 * the runner shows an annotation in the log as well, and a plain copy, with its real line
 * breaks, was text a file or a server wrote (output/workflow-commands.ts keeps that from
 * becoming a command, but once is enough). A problem cpctl places in a file (`deploy.yaml:12: ...`) is
 * annotated at that file and line.
 */
async function annotate(
  error: unknown,
  deps: RunDeps,
  text: (message: string) => string,
  command: string | undefined,
): Promise<void> {
  const { annotateError } = await import("./ci/annotations.js");
  const words = command ?? commandWords(deps.argv).slice(0, 1).join(" ");
  const lines =
    error instanceof CliError
      ? [error.message, ...error.hints]
      : [
          `internal error: ${error instanceof Error ? error.message : String(error)}`,
          internalHint(error, deps),
        ];
  annotateError(deps.io.stderr, {
    title: `cpctl${words ? ` ${words}` : ""} failed`,
    message: text(lines.join("\n")),
    cwd: deps.cwd,
    workspace: deps.env.GITHUB_WORKSPACE,
  });
}

/** After a bug of ours: the stack with --debug, else how to get it. */
function internalHint(error: unknown, deps: RunDeps): string {
  const debug = deps.argv.includes("--debug") || deps.env.CPCTL_DEBUG === "1";
  return debug && error instanceof Error && error.stack
    ? error.stack
    : "Run again with --debug for details, and report it if it persists.";
}

export async function reportCommanderError(
  error: CommanderError,
  deps: RunDeps,
  format: OutputFormat,
  built?: { program: Command; matched: Command | undefined; command: string | undefined },
): Promise<number> {
  // Help and version were printed on stdout; they are successes.
  if (
    error.code === "commander.helpDisplayed" ||
    error.code === "commander.version" ||
    error.code === "commander.help"
  ) {
    return 0;
  }
  if (error.code === "commander.executeSubCommandAsync") return error.exitCode;
  // `cpctl emulator bogus`: a word after a command that has subcommands is a mistyped one.
  const mistyped =
    error.code === "commander.unknownCommand" ||
    (error.code === "commander.excessArguments" && (built?.matched?.commands.length ?? 0) > 0);
  const usage =
    mistyped && built
      ? unknownCommand(deps.argv, built.program)
      : error.code === "commander.invalidArgument" && built
        ? badOptionValues(error, deps.argv, built)
        : error.code === "commander.unknownOption"
          ? unknownOption(error, built?.command)
          : new UsageError(error.message.replace(/^error: /, ""));
  // A group run without a subcommand prints its help on stderr: a usage error.
  return report(usage.withHint("Run with --help for usage."), deps, format, new Set(), built?.command);
}

/**
 * `cpctl deploi`, `cpctl deploy creat`: the command nearest what was typed, at the level it was
 * typed at (the words that name commands with subcommands, followed down the tree).
 */
function unknownCommand(argv: readonly string[], program: Command): UsageError {
  const words = commandWords(argv);
  let level: CommandUnknownOpts = program;
  let depth = 0;
  for (; depth < words.length; depth++) {
    const child = level.commands.find((command) => command.name() === words[depth]);
    if (!child || child.commands.length === 0) break;
    level = child;
  }
  const typed = words[depth] ?? "";
  const familiar = FAMILIAR_NAMES[[...words.slice(0, depth), typed].join(" ")];
  if (familiar) {
    return new UsageError(
      `unknown command '${[...words.slice(0, depth), typed].join(" ")}'; cpctl calls it: ${familiar}`,
    );
  }
  const prefix = words
    .slice(0, depth)
    .map((word) => `${word} `)
    .join("");
  const candidates = level.commands.map((command) => command.name());
  const near = closest(typed, level === program ? [...candidates, "help"] : candidates);
  return new UsageError(
    `unknown command '${prefix}${typed}'${near ? `; did you mean '${prefix}${near}'?` : ""}`,
  );
}

/** An option of another tool (`deploy logs --tail`): the one cpctl has; else commander's own words. */
function unknownOption(error: CommanderError, command: string | undefined): UsageError {
  const typed = /unknown option '([^']+)'/.exec(error.message)?.[1];
  const familiar = typed && command ? FAMILIAR_OPTIONS[command]?.[typed.split("=")[0]!] : undefined;
  if (familiar) return new UsageError(`unknown option '${typed}'; cpctl ${command} has ${familiar}`);
  return new UsageError(error.message.replace(/^error: /, ""));
}

/**
 * A flag value its parser refused, in plain words (`--memory-mb 'abc': expected a whole
 * number`), and every other refused value of the line with it: commander stops at the first.
 */
function badOptionValues(
  error: CommanderError,
  argv: readonly string[],
  built: { program: Command; matched: Command | undefined },
): UsageError {
  const options = [...(built.matched?.options ?? []), ...built.program.options];
  const problems: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") break;
    const eq = token.startsWith("--") ? token.indexOf("=") : -1;
    const flag = eq > 0 ? token.slice(0, eq) : token;
    const option = options.find((o) => o.long === flag || o.short === flag);
    if (!option || !(option.required || option.optional) || !option.parseArg) continue;
    const value = eq > 0 ? token.slice(eq + 1) : argv[++i];
    if (value === undefined) continue;
    try {
      option.parseArg(value, undefined as never);
    } catch (refusal) {
      problems.push(`${option.long ?? flag} '${value}': ${plainReason((refusal as Error).message)}`);
    }
  }
  if (problems.length === 0) return new UsageError(error.message.replace(/^error: /, ""));
  return new UsageError(problems.join("\n"));
}

/** Commander's "Allowed choices are A, B." as "expected one of A, B"; a parser's own words as they are. */
function plainReason(message: string): string {
  const text = message.replace(/\.$/, "");
  const choices = /^Allowed choices are (.*)$/.exec(text);
  return choices ? `expected one of ${choices[1]}` : text;
}

export async function report(
  error: unknown,
  deps: RunDeps,
  format: OutputFormat,
  secrets: SecretRegistry,
  /** The command's words ("deploy create"), when the command line named one. */
  command?: string,
): Promise<number> {
  const code = exitCodeOf(error);
  if (error instanceof CliError && error.quiet) return code;
  // Last net: any credential or secret value this run handled, wherever a message (even one
  // quoted back by a server) would show it. Values of 4 characters or more: a user's own
  // short secret is still one, and error messages are few enough not to be garbled.
  const redact = createMasker(secrets);
  // A message may quote a server or a file: on a terminal its control characters are shown,
  // never acted on (writeText); the JSON error object escapes them (output/encode.ts).
  const text = (message: string) => visibleLines(redact(message));
  const say = (line: string) => writeText(deps.io.stderr, `${line}\n`);
  const json = (body: unknown) => jsonText(maskSecretValues(body, redact));
  // In json/ndjson mode stderr holds the JSON error object alone, GitHub Actions or not.
  if (!isMachineFormat(format) && onGitHubActions(deps.env)) {
    await annotate(error, deps, text, command);
    return code;
  }
  if (!(error instanceof CliError)) {
    // A bug of ours: say so plainly; the stack only with --debug.
    const message = error instanceof Error ? error.message : String(error);
    if (isMachineFormat(format)) {
      say(json({ error: { code: "internal", status: null, message, details: null } }));
    } else {
      say(`error: internal error: ${redact(message)}`);
      say(redact(internalHint(error, deps)));
    }
    return code;
  }
  if (isMachineFormat(format)) {
    // The shape is fixed by CLI.md; hints (such as the command that resumes a wait) join the message.
    const message = [error.message, ...error.hints].join("\n");
    const body = {
      error: { code: error.code, status: error.status, message, details: error.details ?? null },
    };
    say(json(body));
  } else {
    say(`error: ${redact(error.message)}`);
    for (const hint of error.hints) say(redact(hint));
  }
  return code;
}
