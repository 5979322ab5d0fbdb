// The global options, defined once: program.ts adds them to the program, and argv.ts, which
// reads the command line before commander does, learns from them which ones take a value.
import { Option } from "@commander-js/extra-typings";
import { OUTPUT_FORMATS } from "./model/enums.js";
import { oneOf } from "./util/one-of.js";

/** Fresh options for one program (commander keeps state on them), in the order help lists them. */
export function globalOptions(): Option[] {
  return [
    new Option("--profile <name>", "profile from the config file (env CPCTL_PROFILE)"),
    new Option("--base-url <url>", "control plane address (env CPCTL_BASE_URL)"),
    new Option("--tenant-id <uuid>", "tenant ID, sent in the tenant header (env CPCTL_TENANT_ID)"),
    new Option(
      "--api-key-file <path>",
      "read the API key from a file (at most 8 KiB), or - for stdin (env CPCTL_API_KEY holds a key)",
    ),
    new Option("-o, --output <format>", "output format (env CPCTL_OUTPUT; default: table)")
      .choices(OUTPUT_FORMATS)
      .argParser(oneOf(OUTPUT_FORMATS)),
    new Option("--json", "same as -o json"),
    new Option("--show-secrets", "print secret values instead of ****"),
    new Option("--no-color", "no colour (also NO_COLOR, TERM=dumb)"),
    new Option("--no-input", "never prompt; a missing value is an error (also when CI is set)"),
    new Option("-y, --yes", "confirm mutations without asking"),
    new Option("--debug", "HTTP trace on stderr, credentials and secret values redacted (env CPCTL_DEBUG=1)"),
    new Option(
      "--request-timeout <duration>",
      "the most one HTTP request may take, its retries and the waits between them included, e.g. 500ms, 30s, 2m",
    ).default("30s"),
  ];
}

/**
 * Each spelling of a global option that takes a value (`-o`, `--output`, `--profile`, ...),
 * with the long name it is joined to a value under (`--output=-x`).
 */
export const GLOBAL_VALUE_OPTIONS: ReadonlyMap<string, string> = new Map(
  globalOptions()
    .filter((option) => option.required || option.optional)
    .flatMap((option) => [option.short, option.long].map((flag) => [flag, option.long!] as const))
    .filter((entry): entry is readonly [string, string] => entry[0] !== undefined),
);
