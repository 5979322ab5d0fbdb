// The `--debug` HTTP trace, and the redaction it relies on.
//
// What is hidden: credentials in headers (by header name), secret values in JSON bodies
// (`secrets[].value`), secret-looking query parameters (signed upload URLs carry their
// signature there), and, as a last net over every line, any known secret string (the API
// key, the bearer token) wherever it occurs.
//
// What stays visible on purpose: the tenant ID. It is an identifier, not a credential (it
// grants nothing without a key or token), and seeing which tenant a request went to is the
// first thing one needs when debugging a 403 or a deployment that "does not exist".
import { STATUS_CODES } from "node:http";
import { maskSecretValues, REDACTED, redactText } from "../secrets.js";
import { formatBytes } from "../util/bytes.js";
import { formatDuration } from "../util/duration.js";

// The secret-value rules live in src/secrets.ts; re-exported as part of the HTTP module's API.
export { maskSecretValues, redactText };

/** Default cap on a body printed in the trace. */
const TRACE_BODY_LIMIT = 4096;

const SECRET_NAME = /key|token|secret|auth|cookie|session|password|passwd|signature|credential/i;
/** Never shown, even if a caller asks to keep them visible. */
const ALWAYS_SECRET = new Set(["authorization", "proxy-authorization", "x-api-key", "cookie", "set-cookie"]);

function isSecretHeaderName(name: string): boolean {
  return ALWAYS_SECRET.has(name.toLowerCase()) || SECRET_NAME.test(name);
}

/**
 * Copy of `headers` with credential-like values replaced by `[redacted]`.
 * `keepVisible` names headers to show although their name looks secret (the tenant header,
 * whose name is configurable and might contain "auth").
 */
export function redactHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  keepVisible: readonly string[] = [],
): Record<string, string> {
  const visible = new Set(keepVisible.map((name) => name.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    const shown = !isSecretHeaderName(name) || (visible.has(lower) && !ALWAYS_SECRET.has(lower));
    const text = Array.isArray(value) ? value.join(", ") : value;
    out[name] = !shown ? REDACTED : URL_HEADERS.has(lower) ? redactUrlIn(text) : text;
  }
  return out;
}

/**
 * A string that is a URL which may carry a credential (a signed upload URL: user info, or a
 * query), redacted; any other as it is.
 */
export function redactUrlIn(text: string): string {
  return /^https?:\/\/([^\s/?#]*@|[^\s]*\?)/.test(text) ? redactUrl(text) : text;
}

/** Headers whose value is a URL, which may carry user info or a signature. */
const URL_HEADERS = new Set(["location", "content-location"]);

/** A URL for display: no user info, secret-looking query parameter values redacted. */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw;
  }
  url.username = "";
  url.password = "";
  for (const name of [...new Set(url.searchParams.keys())]) {
    if (SECRET_NAME.test(name)) url.searchParams.set(name, REDACTED);
  }
  return url.toString();
}

// ---------------------------------------------------------------------------------------
// The tracer

export interface TraceRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** A streamed body (an upload) is shown by its length only. */
  body?: Buffer | { readonly length: number };
  attempt: number;
  maxAttempts: number;
}

export interface TraceResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  elapsedMs: number;
}

export interface Tracer {
  request(info: TraceRequest): void;
  response(info: TraceResponse): void;
  failure(error: Error, elapsedMs: number): void;
  retry(delayMs: number, nextAttempt: number, maxAttempts: number): void;
  /** A remark of the client's own. */
  note(text: string): void;
}

interface TracerOptions {
  /**
   * Known secret strings (API key, bearer token, secret values) removed from every line; a
   * function is asked again for each line, so values learnt later are covered too.
   */
  secrets?: readonly (string | undefined | null)[] | (() => readonly (string | undefined | null)[]);
  /** Header names shown although they look secret (the tenant header). */
  keepVisibleHeaders?: readonly string[];
  /** Max characters of a body to print. */
  bodyLimit?: number;
}

/** A tracer writing redacted lines (`> ` request, `< ` response, `! ` failure) to `write`. */
export function createTracer(write: (line: string) => void, options: TracerOptions = {}): Tracer {
  const given = options.secrets ?? [];
  const secrets = typeof given === "function" ? given : () => given;
  const keep = options.keepVisibleHeaders ?? [];
  const limit = options.bodyLimit ?? TRACE_BODY_LIMIT;
  const emit = (line: string): void => write(redactText(line, secrets()));
  const emitBody = (
    prefix: string,
    body: Buffer | { length: number },
    contentType: string | undefined,
  ): void => {
    const text = Buffer.isBuffer(body)
      ? renderBody(body, contentType)
      : `[${formatBytes(body.length)} of ${(contentType ?? "").split(";")[0]}, streamed]`;
    // Known secrets are removed before truncating, so a cut never leaves half a secret.
    if (text !== null) emit(prefix + truncate(redactText(text, secrets()), limit));
  };
  return {
    request(info) {
      const attempt = info.attempt > 1 ? ` (attempt ${info.attempt} of ${info.maxAttempts})` : "";
      emit(`> ${info.method} ${redactUrl(info.url)}${attempt}`);
      for (const [name, value] of Object.entries(redactHeaders(info.headers, keep)))
        emit(`> ${name}: ${value}`);
      if (info.body) emitBody("> ", info.body, headerValue(info.headers, "content-type"));
    },
    response(info) {
      const reason = STATUS_CODES[info.status] ?? "";
      emit(
        `< ${info.status}${reason ? ` ${reason}` : ""} (${formatDuration(info.elapsedMs)}, ${formatBytes(info.body.length)})`,
      );
      for (const [name, value] of Object.entries(redactHeaders(info.headers, keep)))
        emit(`< ${name}: ${value}`);
      emitBody("< ", info.body, info.headers["content-type"]);
    },
    failure(error, elapsedMs) {
      emit(`! failed after ${formatDuration(elapsedMs)}: ${error.message}`);
    },
    retry(delayMs, nextAttempt, maxAttempts) {
      emit(
        `! retrying in ${formatDuration(delayMs, { exact: true })} (attempt ${nextAttempt} of ${maxAttempts})`,
      );
    },
    note(text) {
      emit(`! ${text}`);
    },
  };
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/** A one-line rendering of a body: masked compact JSON, escaped text, or a size for binary. */
function renderBody(body: Buffer, contentType: string | undefined): string | null {
  if (body.length === 0) return null;
  const type = (contentType ?? "").toLowerCase();
  const textual = type === "" || type.includes("json") || type.startsWith("text/") || type.includes("xml");
  if (!textual) return `[${formatBytes(body.length)} of ${type.split(";")[0]}]`;
  const text = body.toString("utf8");
  try {
    return JSON.stringify(maskCredentialFields(maskSecretValues(JSON.parse(text) as unknown, redactUrlIn)));
  } catch {
    return text.replace(/\r?\n/g, "\\n");
  }
}

/**
 * Fields that hold a credential by their very name: a push token, a token service's answer
 * (`token`, `access_token`, `refresh_token`). Not known as secrets before the answer that
 * carries them is read, so hidden by name.
 */
const CREDENTIAL_FIELDS = new Set(["token", "access_token", "refresh_token", "id_token", "password"]);

function maskCredentialFields(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(maskCredentialFields);
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      CREDENTIAL_FIELDS.has(key.toLowerCase()) && typeof value === "string"
        ? REDACTED
        : maskCredentialFields(value),
    ]),
  );
}

function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}… [truncated, ${text.length} characters in all]`;
}
