// `cpctl emulator` flags (strings, as the command parser hands them over) and the two variables
// that may stand in for the secret ones -> startEmulator options. Pure: no I/O, the environment
// is what the caller passes (the run's, never process.env); a bad value throws a UsageError
// naming the flag or variable, which main.ts maps to exit 2, and never quotes a key or token.
// The command's own (run.ts): the emulator takes options, and knows nothing of flags.
import { parseKeyGrant } from "../../emulator/api/key-grants.js";
import { API_KEYS_ENV, CONTROL_TOKEN_ENV, DEFAULT_PORT } from "../../emulator/defaults.js";
import type { EmulatorOptions } from "../../emulator/server.js";
import { UsageError } from "../../errors.js";

export interface EmulatorArgs {
  port?: string;
  registryPort?: string;
  agentsPort?: string;
  host?: string;
  state?: string;
  stageMs?: string;
  /** Repeatable --api-key: KEY or KEY=TENANT[,TENANT...]. */
  apiKey?: string[];
  controlToken?: string;
  tenantHeader?: string;
}

/** The environment of the run: only API_KEYS_ENV and CONTROL_TOKEN_ENV are read. */
export type EmulatorEnv = Readonly<Record<string, string | undefined>>;

/** RFC 9110 token characters: what an HTTP header name may contain. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Headers that already carry another credential: the tenant header cannot be one of them. */
const RESERVED_HEADERS = new Set(["x-api-key", "authorization", "host", "content-type", "content-length"]);

/** Where the accepted keys come from (a flag wins over the variable); null: any key is accepted. */
export function emulatorKeySource(
  args: EmulatorArgs,
  env: EmulatorEnv,
): "--api-key" | typeof API_KEYS_ENV | null {
  if (args.apiKey !== undefined && args.apiKey.length > 0) return "--api-key";
  return env[API_KEYS_ENV] !== undefined ? API_KEYS_ENV : null;
}

export function parseEmulatorArgs(args: EmulatorArgs, env: EmulatorEnv = {}): EmulatorOptions {
  const options: EmulatorOptions = { port: DEFAULT_PORT };

  if (args.port !== undefined) options.port = portFlag("--port", args.port);
  if (args.registryPort !== undefined) options.registryPort = portFlag("--registry-port", args.registryPort);
  if (args.agentsPort !== undefined) options.agentsPort = portFlag("--agents-port", args.agentsPort);

  if (args.host !== undefined) {
    const host = args.host.trim();
    if (host === "" || /[\s/]/.test(host)) {
      throw new UsageError(
        `--host must be a host name or IP address to listen on, e.g. 127.0.0.1, not ${quote(args.host)}`,
      );
    }
    // Accept "[::1]" as well as "::1": listen() wants it bare.
    options.host = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  }

  if (args.state !== undefined) {
    if (args.state.trim() === "") throw new UsageError("--state must be a file path");
    options.statePath = args.state;
  }

  if (args.stageMs !== undefined) {
    const stageMs = wholeNumber(args.stageMs);
    if (stageMs === null) {
      throw new UsageError(
        `--stage-ms must be a whole number of milliseconds, 0 or more, not ${quote(args.stageMs)}`,
      );
    }
    options.stageMs = stageMs;
  }

  const keySource = emulatorKeySource(args, env);
  if (keySource === "--api-key") options.apiKeys = checkedKeys(args.apiKey!, "--api-key", "");
  else if (keySource === API_KEYS_ENV) options.apiKeys = keysFromEnv(env[API_KEYS_ENV]!);

  if (args.controlToken !== undefined) {
    if (!isHeaderSafe(args.controlToken)) {
      throw new UsageError(
        "--control-token must be non-empty, without surrounding spaces or control characters (it is sent in a header)",
      );
    }
    options.controlToken = args.controlToken;
  } else if (env[CONTROL_TOKEN_ENV] !== undefined) {
    // Trimmed, as the control commands trim it: a token read from a file keeps its newline.
    const token = env[CONTROL_TOKEN_ENV].trim();
    if (token === "") throw emptyVariable(CONTROL_TOKEN_ENV, "require no control token");
    if (!isHeaderSafe(token)) {
      throw new UsageError(
        `${CONTROL_TOKEN_ENV} must be a token without control characters (it is sent in a header)`,
      );
    }
    options.controlToken = token;
  }

  if (args.tenantHeader !== undefined) {
    const name = args.tenantHeader.trim();
    if (!HEADER_NAME.test(name)) {
      throw new UsageError(
        `--tenant-header must be an HTTP header name, e.g. X-Tenant-Id, not ${quote(args.tenantHeader)}`,
      );
    }
    if (RESERVED_HEADERS.has(name.toLowerCase())) {
      throw new UsageError(`--tenant-header cannot be ${name}: that header already has another meaning`);
    }
    options.tenantHeader = name;
  }
  return options;
}

/**
 * CPCTL_EMULATOR_API_KEYS: keys separated by white space (spaces, tabs, line breaks: none can be
 * part of a key that is sent in a header, nor of a tenant list), each `KEY` or
 * `KEY=TENANT[,TENANT...]`. A key with white space inside can only be given with --api-key.
 */
function keysFromEnv(value: string): string[] {
  const specs = value.split(/\s+/).filter((spec) => spec !== "");
  // A CI system turns a missing secret into an empty string: that must not open the emulator
  // to every key, which is what no keys at all means.
  if (specs.length === 0) throw emptyVariable(API_KEYS_ENV, "accept any key");
  return checkedKeys(
    specs,
    API_KEYS_ENV,
    "; keys are separated by white space, so a list of tenants has none: KEY=TENANT,TENANT",
  );
}

/** Each spec a valid grant with a key that can go in a header; the same spec given twice, once. */
function checkedKeys(specs: readonly string[], source: string, hint: string): string[] {
  // "--api-key must be ...", "CPCTL_EMULATOR_API_KEYS: a key must be ...".
  const [subject, tenants] = source.startsWith("--")
    ? [source, `${source} `]
    : [`${source}: a key`, `${source}: `];
  for (const spec of specs) {
    const grant = parseKeyGrant(spec);
    if (typeof grant === "string") throw new UsageError(`${tenants}${grant}${hint}`);
    if (!isHeaderSafe(grant.key)) {
      throw new UsageError(
        `${subject} must be a non-empty key without surrounding spaces or control characters (it is sent in a header), optionally followed by =TENANT[,TENANT...]`,
      );
    }
  }
  return [...new Set(specs)];
}

function emptyVariable(name: string, unsetMeans: string): UsageError {
  return new UsageError(
    `${name} is set but empty: give a value, or unset it to ${unsetMeans} (a missing CI secret often arrives as an empty string)`,
  );
}

function portFlag(flag: string, text: string): number {
  const port = wholeNumber(text);
  if (port === null || port > 65535)
    throw new UsageError(
      `${flag} must be a whole number from 0 to 65535 (0 picks a free port), not ${quote(text)}`,
    );
  return port;
}

function isHeaderSafe(value: string): boolean {
  return value.trim() !== "" && value === value.trim() && !/[\x00-\x1f\x7f]/.test(value);
}

function wholeNumber(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d{1,15}$/.test(trimmed)) return null;
  return Number(trimmed);
}

function quote(text: string): string {
  return JSON.stringify(text);
}
