// The API client: URL and header building, JSON in and out, retries (retry.ts), the
// redacted debug trace (redact.ts) and pagination (pages.ts); a non-2xx answer becomes an
// ApiError in api-error.ts. It is the single object commands talk to; its transport is
// injectable for tests.
import { NetworkError, UsageError } from "../errors.js";
import { DEFAULT_TENANT_HEADER } from "../model/enums.js";
import { tenantHeaderProblem } from "../tenant-header.js";
import { formatBytes } from "../util/bytes.js";
import { apiErrorOf, type FailedRequest, type SentCredentials } from "./api-error.js";
import { isJsonType, mediaType } from "./media-type.js";
import { DEFAULT_PAGE_WINDOW, type Query, type QueryValue, readPages } from "./pages.js";
import { createTracer, type Tracer } from "./redact.js";
import {
  DEFAULT_RETRY_POLICY,
  defaultSleep,
  isRetrySafeMethod,
  ResponseTooLargeError,
  type RetryPolicy,
  type Sleep,
  UnreadableBodyError,
  withRetry,
} from "./retry.js";
import {
  BodyLimitExceeded,
  nodeTransport,
  parseHttpUrl,
  type StreamedBody,
  type Transport,
  type TransportResponse,
} from "./transport.js";

export interface Credentials {
  apiKey?: string;
  bearerToken?: string;
  tenantId?: string;
  /** Header carrying the tenant ID; default "X-Tenant-Id". */
  tenantHeader?: string;
}

export interface ApiClientOptions {
  baseUrl: string;
  credentials: Credentials;
  requestTimeoutMs: number;
  userAgent: string;
  /** Receives the redacted `--debug` trace, one line per call. */
  trace?: (line: string) => void;
  /**
   * Other secret strings the command has handled (secret values from flags and files): kept
   * out of the trace and of error messages wherever a server echoes them. Asked on each use.
   */
  knownSecrets?: () => Iterable<string>;
  retry?: Partial<RetryPolicy>;
  sleep?: Sleep;
  random?: () => number;
  /** Wall clock in ms, used only to turn an HTTP-date Retry-After into seconds. */
  now?: () => number;
  signal?: AbortSignal;
  transport?: Transport;
  /** Pages of a list in flight at once, at most (see pages.ts). */
  pageWindow?: number;
  /** The most of a control plane's 2xx answer that is read (default DEFAULT_RESPONSE_LIMIT). */
  maxResponseBytes?: number;
  /** Where the address and credentials come from (the profile in use, and why): said when they are refused. */
  credentialSource?: string;
}

const MiB = 1024 * 1024;
/**
 * The most of a control plane's answer cpctl reads: far above any real one (a page of 100
 * deployments, each made from a request body of at most 1 MiB), far below what would strain
 * memory. CPCTL_MAX_RESPONSE_MB changes it (context-factory.ts).
 */
export const DEFAULT_RESPONSE_LIMIT = 64 * MiB;
/** The largest request body the control plane takes (larger: 413, or a closed connection). */
const API_BODY_LIMIT = 1 * MiB;
/** The most of another service's answer (an upload URL's storage) that is read: it says "stored". */
const STORAGE_ANSWER_LIMIT = 1 * MiB;

export type { Query, QueryValue } from "./pages.js";
/** For CPCTL_PAGE_WINDOW's check (context-factory.ts), made only once a request is to be sent. */
export { MAX_PAGE_WINDOW } from "./pages.js";

export interface RequestOptions {
  /** Query parameters; undefined and null values are left out, an array's values each sent (`?a=1&a=2`). */
  query?: Record<string, QueryValue | readonly string[]>;
  /** Headers of this request beyond the client's own (the emulator's X-Control-Token). */
  headers?: Record<string, string>;
  /** JSON body. A Buffer is sent as it is (like rawBody). */
  body?: unknown;
  /** Bytes sent as they are: a Buffer, or a StreamedBody read afresh for each attempt. */
  rawBody?: Buffer | StreamedBody;
  /** Content-Type of the body; default application/json (or application/octet-stream for raw). */
  contentType?: string;
  /**
   * `path` is an absolute URL (an upload URL). Credentials are sent only when it has the
   * same origin as the base URL, so a key never leaks to a storage host.
   */
  absoluteUrl?: boolean;
  /**
   * With `absoluteUrl`: send the credentials to that other origin too. Only for a deployment's
   * own address (its agent server takes the same key: agent-health.ts decides where that is safe).
   */
  sendCredentials?: boolean;
  /**
   * Sent with no credential (no API key, bearer token or tenant header) and without `headers`:
   * a question to an address not yet known to deserve them (is it an emulator?).
   */
  withoutCredentials?: boolean;
  /** May be sent twice. Default: true for GET/HEAD/PUT/DELETE, false for POST/PATCH. */
  retrySafe?: boolean;
  signal?: AbortSignal;
  /**
   * Only `signal` can abort this request, not the client's own (Ctrl-C) signal: for the
   * bounded look-up after an interrupted create, which must still run once Ctrl-C was pressed.
   */
  detached?: boolean;
  /**
   * Deadline of the whole request, its attempts and the waits between them included; default:
   * the client's requestTimeoutMs (--request-timeout).
   */
  timeoutMs?: number;
  /** Attempts in all for this request; default: the client's retry policy. */
  maxAttempts?: number;
  /** Hears of each failed attempt that will be retried (the pager shrinks its window on 429). */
  onRetry?: (info: { attempt: number; delayMs: number; error: Error }) => void;
  /**
   * Statuses that, answered to a retry, mean an earlier attempt did the work: a DELETE whose
   * first answer was lost finds nothing (404) the second time. Returned as a success.
   */
  doneOnRetry?: number[];
}

interface ApiResponse<T> {
  status: number;
  headers: Record<string, string>;
  body: T;
}

interface PreparedRequest extends FailedRequest {
  headers: Record<string, string>;
  body?: Buffer | StreamedBody;
  retrySafe: boolean;
  absolute: boolean;
  withCredentials: boolean;
  signal?: AbortSignal;
  timeoutMs: number;
  policy: RetryPolicy;
  doneOnRetry: readonly number[];
  /** The most of a 2xx answer's body read (transport.ts). */
  maxBodyBytes: number;
}

export class ApiClient {
  private readonly base: URL;
  private readonly authHeaders: Record<string, string>;
  private readonly policy: RetryPolicy;
  private readonly tracer: Tracer | null;
  private readonly transport: Transport;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly now: () => number;

  constructor(private readonly options: ApiClientOptions) {
    this.base = parseBaseUrl(options.baseUrl);
    this.authHeaders = authHeadersOf(options.credentials);
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.transport = options.transport ?? nodeTransport;
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    const { tenantHeader } = options.credentials;
    this.tracer = options.trace
      ? createTracer(options.trace, {
          secrets: () => this.secrets(),
          keepVisibleHeaders: [tenantHeader ?? DEFAULT_TENANT_HEADER],
        })
      : null;
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    const prepared = this.prepare(method.toUpperCase(), path, opts);
    // --request-timeout is the request's deadline, its retries and the waits between them
    // included: each attempt gets what is left of it (monotonic time: attempts are real time,
    // whatever clock the sleeps run on). It starts with the first attempt, which gets all of it.
    const total = prepared.timeoutMs;
    let started: number | undefined;
    const deadline =
      total > 0 && Number.isFinite(total)
        ? { total, left: () => total - (monotonicMs() - (started ?? monotonicMs())) }
        : undefined;
    const attemptTimeout = () => {
      started ??= monotonicMs();
      return deadline ? Math.max(1, Math.round(deadline.left())) : total;
    };
    return withRetry((attempt) => this.attempt<T>(prepared, attempt, attemptTimeout()), {
      deadline,
      policy: prepared.policy,
      retrySafe: prepared.retrySafe,
      sleep: this.sleep,
      random: this.random,
      signal: prepared.signal,
      describe: prepared.display,
      onRetry: (info) => {
        this.tracer?.retry(info.delayMs, info.attempt + 1, prepared.policy.maxAttempts);
        opts.onRetry?.(info);
      },
    });
  }

  /** The address requests go to, for messages: the base URL without credentials, query or a trailing slash. */
  get address(): string {
    return `${this.base.origin}${this.base.pathname.replace(/\/+$/, "")}`;
  }

  /** The transport this client sends with (proxies and certificate authorities included), for other hosts of the same run: an image registry. */
  get httpTransport(): Transport {
    return this.transport;
  }

  get<T>(path: string, opts?: RequestOptions): Promise<ApiResponse<T>> {
    return this.request<T>("GET", path, opts);
  }

  post<T>(path: string, body?: unknown, opts?: RequestOptions): Promise<ApiResponse<T>> {
    return this.request<T>("POST", path, { ...opts, body });
  }

  patch<T>(path: string, body?: unknown, opts?: RequestOptions): Promise<ApiResponse<T>> {
    return this.request<T>("PATCH", path, { ...opts, body });
  }

  put<T>(path: string, body?: unknown, opts?: RequestOptions): Promise<ApiResponse<T>> {
    return this.request<T>("PUT", path, { ...opts, body });
  }

  delete<T = null>(path: string, opts?: RequestOptions): Promise<ApiResponse<T>> {
    return this.request<T>("DELETE", path, opts);
  }

  /**
   * Pages of a `{resources, offset}` list, in order, until a page is shorter than `pageSize`
   * (the service's rule for the last page): the first alone, then more at once while they come
   * back full (pages.ts).
   */
  paginate<T>(
    path: string,
    query: Query = {},
    { pageSize = 100 }: { pageSize?: number } = {},
  ): AsyncGenerator<T[], void, undefined> {
    return readPages<T>(this, path, query, pageSize, {
      window: this.options.pageWindow ?? DEFAULT_PAGE_WINDOW,
    });
  }

  private prepare(method: string, path: string, opts: RequestOptions): PreparedRequest {
    const absolute = opts.absoluteUrl === true;
    const url = absolute ? parseHttpUrl(path) : joinUrl(this.base, path);
    appendQuery(url, opts.query);
    const withCredentials =
      opts.withoutCredentials !== true &&
      (url.origin === this.base.origin || (absolute && opts.sendCredentials === true));
    const { body, contentType } = encodeBody(opts);
    const headers: Record<string, string> = {
      Accept: "application/json",
      "User-Agent": this.options.userAgent,
      ...(withCredentials ? this.authHeaders : {}),
      ...(withCredentials ? opts.headers : {}),
    };
    if (contentType) headers["Content-Type"] = contentType;
    return {
      method,
      url,
      display: `${method} ${url.pathname}`,
      errorPath: absolute ? `${url.origin}${url.pathname}` : (path.split("?")[0] ?? path),
      headers,
      body,
      retrySafe: opts.retrySafe ?? isRetrySafeMethod(method),
      absolute,
      withCredentials,
      signal: opts.detached ? opts.signal : combineSignals(this.options.signal, opts.signal),
      timeoutMs: opts.timeoutMs ?? this.options.requestTimeoutMs,
      doneOnRetry: opts.doneOnRetry ?? [],
      maxBodyBytes: absolute
        ? STORAGE_ANSWER_LIMIT
        : (this.options.maxResponseBytes ?? DEFAULT_RESPONSE_LIMIT),
      policy:
        opts.maxAttempts === undefined
          ? this.policy
          : { ...this.policy, maxAttempts: Math.max(1, Math.floor(opts.maxAttempts)) },
    };
  }

  private async attempt<T>(p: PreparedRequest, attempt: number, timeoutMs: number): Promise<ApiResponse<T>> {
    const url = p.url.toString();
    this.tracer?.request({
      method: p.method,
      url,
      headers: p.headers,
      body: p.body,
      attempt,
      maxAttempts: p.policy.maxAttempts,
    });
    // Wall-clock milliseconds are enough for the trace's timings (and cost nothing to load).
    const started = Date.now();
    let res: TransportResponse;
    try {
      res = await this.transport({
        method: p.method,
        url,
        headers: p.headers,
        body: p.body,
        timeoutMs,
        signal: p.signal,
        // A request we may not repeat gets its own connection: see transport.ts.
        reuseConnection: p.retrySafe,
        maxBodyBytes: p.maxBodyBytes,
      });
    } catch (error) {
      this.tracer?.failure(error as Error, Date.now() - started);
      if (error instanceof BodyLimitExceeded) throw this.tooLarge(p, error);
      if (
        error instanceof NetworkError &&
        error.kind === "connection_reset" &&
        !error.mayHaveReachedServer &&
        (p.body?.length ?? 0) > API_BODY_LIMIT &&
        !p.absolute
      )
        error.withHint(
          `a request body of ${formatBytes(p.body!.length)}: the control plane takes at most ${formatBytes(API_BODY_LIMIT)} (it answers 413, or closes the connection)`,
        );
      throw error;
    }
    this.tracer?.response({ ...res, elapsedMs: Date.now() - started });
    if (res.status >= 200 && res.status < 300) {
      return { status: res.status, headers: res.headers, body: successBody(res, p) as T };
    }
    if (attempt > 1 && p.doneOnRetry.includes(res.status)) {
      this.tracer?.note(`HTTP ${res.status} on attempt ${attempt}: an earlier attempt did the work`);
      return { status: res.status, headers: res.headers, body: null as T };
    }
    throw apiErrorOf(res, p, this.sentCredentials(p), this.now(), this.secrets());
  }

  private tooLarge(p: PreparedRequest, exceeded: BodyLimitExceeded): ResponseTooLargeError {
    const done = p.retrySafe ? "" : ` (HTTP ${exceeded.status}, so it was carried out)`;
    const error = new ResponseTooLargeError(
      `the answer to ${p.display}${done} is larger than ${formatBytes(exceeded.limit)}, the most cpctl reads from ${p.absolute ? "a storage service" : "the control plane"}; it was not read whole`,
    );
    if (!p.absolute)
      error.withHint(
        `If such an answer is expected, raise the limit: CPCTL_MAX_RESPONSE_MB=${Math.ceil((exceeded.limit * 2) / MiB)}`,
      );
    return error;
  }

  private sentCredentials(p: PreparedRequest): SentCredentials {
    const { apiKey, bearerToken, tenantId } = this.options.credentials;
    return {
      keyOrToken: p.withCredentials && Boolean(apiKey || bearerToken),
      tenant: p.withCredentials && Boolean(tenantId),
      source: this.options.credentialSource,
    };
  }

  private secrets(): string[] {
    const { apiKey, bearerToken } = this.options.credentials;
    const known = this.options.knownSecrets ? [...this.options.knownSecrets()] : [];
    return [apiKey, bearerToken, ...known].filter((s): s is string => Boolean(s));
  }
}

/**
 * Monotonic milliseconds, for deadlines. Not performance.now(): the global `performance`
 * loads node:perf_hooks on first use (about 1 ms of every command that sends a request).
 */
function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

// ---------------------------------------------------------------------------------------
// Building the request

function parseBaseUrl(raw: string): URL {
  const url = parseHttpUrl(raw);
  url.search = "";
  url.hash = "";
  url.username = "";
  url.password = "";
  return url;
}

/** Base URL + path, keeping a path prefix of the base ("https://host/prefix" + "/v2/x"). */
function joinUrl(base: URL, path: string): URL {
  const prefix = base.pathname.replace(/\/+$/, "");
  return new URL(`${base.origin}${prefix}${path.startsWith("/") ? path : `/${path}`}`);
}

function appendQuery(url: URL, query: RequestOptions["query"]): void {
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
  }
}

function encodeBody(opts: RequestOptions): { body?: Buffer | StreamedBody; contentType?: string } {
  const raw = opts.rawBody ?? (Buffer.isBuffer(opts.body) ? opts.body : undefined);
  if (raw) return { body: raw, contentType: opts.contentType ?? "application/octet-stream" };
  if (opts.body === undefined) return {};
  return {
    body: Buffer.from(JSON.stringify(opts.body), "utf8"),
    contentType: opts.contentType ?? "application/json",
  };
}

function combineSignals(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}

// Node refuses these characters in a header value with an error that names the header but
// not where the value came from; say which setting to fix (without printing the value).
const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

function authHeadersOf(credentials: Credentials): Record<string, string> {
  const headers: Record<string, string> = {};
  const add = (name: string, value: string | undefined, what: string, source: string): void => {
    if (!value) return;
    if (INVALID_HEADER_VALUE.test(value)) {
      throw new UsageError(`the ${what} contains a line break or a control character: check ${source}`);
    }
    headers[name] = value;
  };
  add("X-Api-Key", credentials.apiKey, "API key", "CPCTL_API_KEY or the file given to --api-key-file");
  add(
    "Authorization",
    credentials.bearerToken && `Bearer ${credentials.bearerToken}`,
    "bearer token",
    "CPCTL_BEARER_TOKEN",
  );
  const tenantHeader = credentials.tenantHeader || DEFAULT_TENANT_HEADER;
  const problem = tenantHeaderProblem(tenantHeader);
  if (problem)
    throw new UsageError(`the tenant header: ${problem}; check the profile or CPCTL_TENANT_HEADER`);
  add(tenantHeader, credentials.tenantId, "tenant ID", "--tenant-id or CPCTL_TENANT_ID");
  return headers;
}

// ---------------------------------------------------------------------------------------
// Reading the response

/**
 * A 2xx body: null when empty, parsed JSON otherwise. The control plane always answers
 * JSON, so anything else means --base-url points at something else. An absolute URL
 * (a storage upload) may answer in its own format: its body is returned as text.
 */
function successBody(res: TransportResponse, p: PreparedRequest): unknown {
  if (res.status === 204 || res.body.length === 0) return null;
  const type = mediaType(res.headers["content-type"]);
  if (p.absolute && !isJsonType(type)) return res.body.toString("utf8");
  try {
    return JSON.parse(res.body.toString("utf8"));
  } catch {
    if (isJsonType(type)) {
      // Said JSON, is not: cut short or garbled on the way, not a wrong --base-url.
      const done = p.retrySafe ? "" : " (so it was carried out)";
      throw new UnreadableBodyError(
        `the server answered HTTP ${res.status} to ${p.display}${done}, but its JSON body ` +
          `arrived cut short or malformed (${res.body.length} bytes)`,
        res.status,
      );
    }
    throw new NetworkError(
      `the server answered HTTP ${res.status} to ${p.display} with a body that is not valid JSON ` +
        `(${type || "no content type"}): is --base-url (${p.url.origin}) the control plane API?`,
      "bad_response",
      true,
    );
  }
}
