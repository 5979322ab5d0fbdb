// `cpctl emulator` flags (strings, as the command parser hands them over) -> startEmulator
// options. Pure: no I/O, no defaults read from the environment; a bad value throws a
// UsageError naming the flag, which main.ts maps to exit 2.
import { UsageError } from "../errors.js";
import { parseKeyGrant } from "./api/key-grants.js";
import { DEFAULT_PORT } from "./defaults.js";
import type { EmulatorOptions } from "./server.js";

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

/** RFC 9110 token characters: what an HTTP header name may contain. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Headers that already carry another credential: the tenant header cannot be one of them. */
const RESERVED_HEADERS = new Set(["x-api-key", "authorization", "host", "content-type", "content-length"]);

export function parseEmulatorArgs(args: EmulatorArgs): EmulatorOptions {
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

  if (args.apiKey !== undefined && args.apiKey.length > 0) {
    for (const spec of args.apiKey) {
      const grant = parseKeyGrant(spec);
      if (typeof grant === "string") throw new UsageError(`--api-key ${grant}`);
      if (!isHeaderSafe(grant.key)) {
        throw new UsageError(
          "--api-key must be a non-empty key without surrounding spaces or control characters (it is sent in a header), optionally followed by =TENANT[,TENANT...]",
        );
      }
    }
    options.apiKeys = [...new Set(args.apiKey)];
  }

  if (args.controlToken !== undefined) {
    if (!isHeaderSafe(args.controlToken)) {
      throw new UsageError(
        "--control-token must be non-empty, without surrounding spaces or control characters (it is sent in a header)",
      );
    }
    options.controlToken = args.controlToken;
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
