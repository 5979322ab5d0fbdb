// The output format chosen before the settings resolve, and the decisions that depend on the
// terminal. The formats themselves are CLI.md's vocabulary (model/enums.ts), which config/ reads too.
import type { Env } from "../io.js";
import { DEFAULT_FORMAT, FORMAT_ENV, isOutputFormat, type OutputFormat } from "../model/enums.js";

/** What the global flags say of the format. */
export interface FormatFlags {
  output?: string;
  json?: boolean;
}

/** The format the flags name, if any: --json is -o json, and wins over it. */
export function flagFormat(flags: FormatFlags): string | undefined {
  return flags.json ? "json" : flags.output;
}

/**
 * The format when the config files are not read (not yet, or because they are what is
 * broken): the flags, then CPCTL_OUTPUT, then table. A value that is no format is passed
 * over here; the settings report it when they resolve.
 */
export function formatWithoutConfig(flags: FormatFlags, env: Env): OutputFormat {
  for (const value of [flagFormat(flags), env[FORMAT_ENV]]) {
    if (value && isOutputFormat(value)) return value;
  }
  return DEFAULT_FORMAT;
}

/** In these formats an error is printed as one JSON object on stderr. */
export function isMachineFormat(format: OutputFormat): boolean {
  return format === "json" || format === "ndjson";
}

interface ColorInputs {
  isTTY: boolean;
  env: Env;
  /** false when --no-color was given. */
  colorFlag: boolean;
}

/**
 * Colour only on a terminal, never with NO_COLOR (any value, per no-color.org), --no-color or
 * TERM=dumb; FORCE_COLOR, read as Node reads it, overrides all but --no-color: 0 or false
 * turns colour off, 1, 2, 3, true or an empty value turns it on, on a terminal or not.
 */
export function colorEnabled({ isTTY, env, colorFlag }: ColorInputs): boolean {
  if (!colorFlag) return false;
  const forced = forcedColor(env.FORCE_COLOR);
  if (forced !== null) return forced;
  if (!isTTY) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return env.TERM !== "dumb";
}

/** FORCE_COLOR's verdict; null when unset or not a value Node gives a meaning to. */
function forcedColor(value: string | undefined): boolean | null {
  if (value === undefined) return null;
  if (value === "0" || value === "false") return false;
  if (value === "" || value === "true" || value === "1" || value === "2" || value === "3") return true;
  return null;
}

/**
 * Running in CI: CI set to anything but "", "false" or "0". There cpctl never prompts, and a
 * terminal gets progress lines rather than a spinner (a CI log keeps every frame).
 */
export function isCi(env: Env): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== "" && ci !== "false" && ci !== "0";
}
