// A non-2xx answer as an ApiError: a message that says what went wrong and what to do (the
// server's own explanation, advice on credentials, a redirect or a page that is not JSON),
// a hint for a base URL that doubles the API version, Retry-After, and the body kept for
// JSON output with secrets masked. The client (client.ts) only hands the answer over.
import { STATUS_CODES } from "node:http";
import { ApiError } from "../errors.js";
import { issueLine } from "../model/issue-path.js";
import { createRedactor } from "../secrets.js";
import { mediaType } from "./media-type.js";
import { maskSecretValues, redactText, redactUrl, redactUrlIn } from "./redact.js";
import { parseRetryAfter } from "./retry.js";
import type { TransportResponse } from "./transport.js";

/** What the messages say of the request that failed. */
export interface FailedRequest {
  method: string;
  url: URL;
  /** "GET /v2/deployments": for messages and hints (no query string). */
  display: string;
  /** ApiError.path: the caller's path, or origin + path for an absolute URL. */
  errorPath: string;
}

/** What the error messages need to know about the credentials that were sent. */
export interface SentCredentials {
  keyOrToken: boolean;
  tenant: boolean;
}

type ErrorBody =
  | { kind: "empty" }
  | { kind: "json"; value: unknown }
  | { kind: "text"; text: string; contentType: string };

function parseErrorBody(res: TransportResponse): ErrorBody {
  if (res.body.length === 0) return { kind: "empty" };
  const text = res.body.toString("utf8");
  try {
    return { kind: "json", value: JSON.parse(text) as unknown };
  } catch {
    return { kind: "text", text, contentType: mediaType(res.headers["content-type"]) || "no content type" };
  }
}

export function apiErrorOf(
  res: TransportResponse,
  p: FailedRequest,
  sent: SentCredentials,
  nowMs: number,
  secrets: string[],
): ApiError {
  const parsed = parseErrorBody(res);
  const message = redactText(describeFailure(res, parsed, p, sent), secrets);
  const body =
    parsed.kind === "json"
      ? scrubErrorBody(parsed.value, secrets)
      : parsed.kind === "text"
        ? redactText(parsed.text.slice(0, 500), secrets)
        : null;
  const retryAfter = parseRetryAfter(res.headers["retry-after"], nowMs);
  const error = new ApiError(res.status, message, body, p.method, p.errorPath, retryAfter);
  // A base URL that ends in the API version (`.../v2`) doubles it in every path.
  const doubled = /^(.*?)\/(v\d+)\/(v\d+)\//.exec(p.url.pathname);
  if (res.status === 404 && doubled) {
    error.withHint(
      `--base-url / CPCTL_BASE_URL ends in /${doubled[2]}, and cpctl adds the version to every path itself: give the address without it (${p.url.origin}${doubled[1]})`,
    );
  }
  return error;
}

function describeFailure(
  res: TransportResponse,
  parsed: ErrorBody,
  p: FailedRequest,
  sent: SentCredentials,
): string {
  const status = res.status;
  if (status >= 300 && status < 400) return redirectMessage(res, p);
  const fromBody = parsed.kind === "json" ? messageFromBody(parsed.value) : null;
  // Auth first: a 401 page from a proxy still needs the advice on credentials.
  if (status === 401 || status === 403) return authMessage(status, fromBody, sent);
  if (parsed.kind === "text") return nonJsonMessage(status, parsed, p);
  // A server's own 5xx / 429 text ("Internal Server Error") says little on its own: say
  // which request failed and how.
  if (fromBody && (status >= 500 || status === 429)) {
    return (
      `the server answered HTTP ${status} ${STATUS_CODES[status] ?? ""}`.trimEnd() +
      ` to ${p.display}: ${fromBody}`
    );
  }
  // A bare "Not Found" (no such route) says nothing on its own: which request got it.
  if (fromBody && status === 404 && /^not found\.?$/i.test(fromBody))
    return `${p.display}: ${fromBody} (HTTP 404)`;
  if (fromBody) return fromBody;
  const empty = parsed.kind === "empty" ? " with an empty body" : "";
  return (
    `the server answered HTTP ${status} ${STATUS_CODES[status] ?? ""}`.trimEnd() + `${empty} to ${p.display}`
  );
}

function redirectMessage(res: TransportResponse, p: FailedRequest): string {
  const location = res.headers.location ? ` to ${redactUrl(res.headers.location)}` : "";
  return (
    `the server answered HTTP ${res.status} (redirect${location}) to ${p.display}: ` +
    `check --base-url / CPCTL_BASE_URL (http:// or https://, path prefix)`
  );
}

/** Never dumps the body (often an HTML page from a proxy); a short plain-text line is kept. */
function nonJsonMessage(
  status: number,
  parsed: { text: string; contentType: string },
  p: FailedRequest,
): string {
  const base = `the server answered HTTP ${status} with a non-JSON body (${parsed.contentType}) to ${p.display}`;
  const line = parsed.text.trim();
  const shortPlain =
    parsed.contentType === "text/plain" && line.length > 0 && line.length <= 200 && !line.includes("\n");
  return shortPlain ? `${base}: ${line}` : base;
}

function authMessage(status: number, fromBody: string | null, sent: SentCredentials): string {
  const what = status === 401 ? "authentication failed" : "permission denied";
  const first = fromBody ? `${what}: ${fromBody}` : `${what} (HTTP ${status})`;
  return `${first}\n${authAdvice(status, fromBody, sent)}`;
}

/**
 * The hosted service's words when an organisation-scoped key comes without a tenant
 * (service-facts.md): only then is the tenant what to fix. Any other 403 is about what the
 * credentials may do.
 */
const NEEDS_WORKSPACE = /requires workspace specification/i;

function authAdvice(status: number, fromBody: string | null, sent: SentCredentials): string {
  if (!sent.keyOrToken) {
    return (
      "no credentials were sent: set CPCTL_API_KEY (or --api-key-file PATH) or CPCTL_BEARER_TOKEN, " +
      "and --tenant-id (or CPCTL_TENANT_ID) for an organisation-scoped key"
    );
  }
  if (status === 401) {
    return "the credentials were refused: check CPCTL_API_KEY / --api-key-file or CPCTL_BEARER_TOKEN, and the profile in use";
  }
  if (fromBody !== null && NEEDS_WORKSPACE.test(fromBody)) {
    return sent.tenant
      ? "a tenant ID was sent, but the server still asks for one: check --tenant-id / CPCTL_TENANT_ID and the header that carries it (CPCTL_TENANT_HEADER)"
      : "an organisation-scoped API key also needs a tenant: set --tenant-id or CPCTL_TENANT_ID";
  }
  return `the credentials were accepted but may not do this: check what the API key or token is allowed to do${sent.tenant ? ", and --tenant-id / CPCTL_TENANT_ID" : ""}`;
}

const MAX_DETAIL_CHARS = 500;
const MAX_ISSUE_LINES = 20;

/** The server's own explanation: `detail` (string or 422 list), else `message` / `error`. */
function messageFromBody(body: unknown): string | null {
  if (!isRecord(body)) return null;
  if (Array.isArray(body.detail)) return summariseIssues(body.detail);
  for (const key of ["detail", "message", "error"]) {
    const value = body[key];
    if (typeof value === "string" && value.trim()) return clip(value.trim(), MAX_DETAIL_CHARS);
  }
  return null;
}

/** 422 `detail` list -> "source_config.build_on_push: <msg>" lines. */
function summariseIssues(items: readonly unknown[]): string | null {
  const lines = items.filter(isRecord).map((item) => {
    const msg = typeof item.msg === "string" ? item.msg : "invalid value";
    return issueLine(Array.isArray(item.loc) ? item.loc : [], msg);
  });
  if (lines.length === 0) return null;
  const shown = lines.slice(0, MAX_ISSUE_LINES);
  if (lines.length > shown.length) shown.push(`... and ${lines.length - shown.length} more`);
  return shown.join("\n");
}

/**
 * The error body kept in ApiError.details (printed in JSON mode): secret values masked,
 * including a 422 item's echoed `input` when it points into `secrets`, and known
 * credentials removed from every string.
 */
function scrubErrorBody(body: unknown, secrets: string[]): unknown {
  const redact = createRedactor(secrets);
  return maskSecretValues(body, (text) => redact(redactUrlIn(text)));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
