// Reading the command line before commander does: which command it names (to load only that
// command's module, and for messages and CI reports that name it), the output format errors
// should take before settings are known, and `cpctl help CMD`.
import type { Command } from "@commander-js/extra-typings";
import { GLOBAL_VALUE_OPTIONS } from "./global-options.js";
import type { Env } from "./io.js";
import { isOutputFormat, type OutputFormat } from "./model/enums.js";
import { type FormatFlags, formatWithoutConfig } from "./output/format.js";

/**
 * The words that may name the command: argv's leading non-option tokens, global option values
 * skipped (a command's positional arguments among them: the registry's longest match says
 * which are the command's).
 */
export function commandWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") break;
    if (token.startsWith("-")) {
      if (GLOBAL_VALUE_OPTIONS.has(token)) i++;
      continue;
    }
    words.push(token);
  }
  return words;
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
    const long = option?.long ?? GLOBAL_VALUE_OPTIONS.get(token);
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
export function guessFormat(argv: readonly string[], env: Env): OutputFormat {
  return formatWithoutConfig(formatFlagsIn(argv), env);
}

/**
 * --json and -o as commander will parse them (formatWithoutConfig then reads them as it reads
 * the parsed flags): commander keeps the last value of a repeated option; one that is no
 * format is passed over here (the settings report it).
 */
function formatFlagsIn(argv: readonly string[]): FormatFlags {
  const flags: FormatFlags = {};
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") break;
    if (token === "--json") flags.json = true;
    const value =
      token === "-o" || token === "--output"
        ? argv[i + 1]
        : token.startsWith("--output=")
          ? token.slice(9)
          : token.startsWith("-o") && token.length > 2
            ? token.slice(2)
            : undefined;
    if (value && isOutputFormat(value)) flags.output = value;
    // Another option's value ("--" included) is not an option.
    if (GLOBAL_VALUE_OPTIONS.has(token)) i++;
  }
  return flags;
}

/** `cpctl help [COMMAND...]` is `cpctl [COMMAND...] --help`, as with git and gh. */
export function withHelpCommand(argv: readonly string[]): string[] {
  return argv[0] === "help" ? [...argv.slice(1), "--help"] : [...argv];
}
