// One HTTP exchange over node:http / node:https, with a deadline, an abort signal and
// errors mapped to NetworkError / InterruptedError.
//
// Why node:http and not fetch/undici: measured in docs/transport-measurement.md, the
// built-in fetch adds ~150 ms and undici ~240 ms to every CLI start (undici compiles a
// WebAssembly HTTP parser at start-up), while node:http adds ~20 ms.
//
// Connections: a keep-alive agent per protocol, so `list --all` over 100 pages reuses one
// socket. Idle pooled sockets are unref'd by Node's agent, so a one-shot process still exits
// as soon as its work is done (measured: no slower than `agent: false` for a single call).
// Callers can ask for a fresh connection (`reuseConnection: false`): the client does so for
// requests it may not repeat (POST/PATCH), because a pooled socket the server closed while
// idle fails with ECONNRESET, and such a failure cannot be told apart from a server that
// crashed half-way through the request.
import http from "node:http";
import type https from "node:https";
import type { Socket } from "node:net";
import { Readable } from "node:stream";
import { InterruptedError, NetworkError, UsageError } from "../errors.js";
import { formatDuration } from "../util/duration.js";

/**
 * A body too large to hold in memory (an uploaded tarball): its length, and its bytes read at
 * a position, from the start again for each attempt.
 */
export interface StreamedBody {
  readonly length: number;
  /** Reads up to `target.length` bytes at `position` into `target`; resolves with how many. */
  readAt(target: Buffer, position: number): Promise<number>;
}

/** Bytes of a streamed body read and written at a time. */
const BODY_CHUNK = 256 * 1024;

/** A streamed body as a Readable (for undici), a new buffer a chunk. */
export function bodyStream(body: StreamedBody): Readable {
  let position = 0;
  return new Readable({
    highWaterMark: BODY_CHUNK,
    read() {
      const chunk = Buffer.allocUnsafe(Math.min(BODY_CHUNK, body.length - position));
      if (chunk.length === 0) return void this.push(null);
      body.readAt(chunk, position).then(
        (count) => {
          if (count === 0) return this.destroy(new Error("the body ended before its length"));
          position += count;
          this.push(chunk.subarray(0, count));
        },
        (error: Error) => this.destroy(error),
      );
    },
  });
}

export interface TransportRequest {
  method: string;
  /** Absolute http:// or https:// URL. */
  url: string;
  headers: Record<string, string>;
  body?: Buffer | StreamedBody;
  /** Deadline for the whole exchange (connect, send, response body); 0 or Infinity: none. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** false: open a new connection instead of taking one from the keep-alive pool. Default true. */
  reuseConnection?: boolean;
  /**
   * The most of a 2xx answer's body that is read: one announced or found larger fails with
   * BodyLimitExceeded, and the rest is never read. Default: no limit. The body of any other
   * answer is cut at ERROR_BODY_LIMIT (its status is what matters).
   */
  maxBodyBytes?: number;
}

/** The most of a non-2xx answer's body kept: its first MiB says all a message needs. */
export const ERROR_BODY_LIMIT = 1024 * 1024;

/** A 2xx answer larger than the request's maxBodyBytes: the client says what it means. */
export class BodyLimitExceeded extends Error {
  constructor(
    readonly limit: number,
    readonly status: number,
  ) {
    super(`the answer is larger than ${limit} bytes`);
  }
}

export interface TransportResponse {
  status: number;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** The body was cut at ERROR_BODY_LIMIT (a non-2xx answer only). */
  bodyCut?: boolean;
}

export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

/**
 * Ctrl-C cut an exchange short. `mayHaveReachedServer`: the connection was open, so the
 * request may have been sent whole and the server may act on it (a create may exist although
 * its answer never came).
 */
export class RequestInterruptedError extends InterruptedError {
  constructor(
    message: string,
    readonly mayHaveReachedServer: boolean,
  ) {
    super(message);
  }
}

/** Progress of one exchange, used to decide whether the server may have seen the request. */
interface ExchangeState {
  connected: boolean;
  /** The whole request was handed to the OS: from here on the server may act on it. */
  written: boolean;
  settled: boolean;
}

/** What an error message needs to name the target and the request. */
interface Target {
  /** "http://127.0.0.1:8124": scheme, host and port only (never user info or query). */
  origin: string;
  /** "127.0.0.1:8124" */
  hostPort: string;
  /** "GET /v2/deployments" (no query string: it may hold signed-URL credentials). */
  request: string;
}

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

const agents: { http?: http.Agent; https?: https.Agent } = {};

/**
 * node:https (with tls and crypto, about 3 ms to load) is needed only for an https:// control
 * plane, so it is loaded on first use: `deploy list` against the local emulator never pays.
 */
const httpsModule = (): typeof https => process.getBuiltinModule("node:https");

function pooledAgent(protocol: "http:" | "https:"): http.Agent {
  if (protocol === "https:") {
    agents.https ??= new (httpsModule().Agent)({ keepAlive: true });
    return agents.https;
  }
  agents.http ??= new http.Agent({ keepAlive: true });
  return agents.http;
}

/**
 * Destroys the keep-alive pools, in-flight sockets included. Only for tidy tests: idle
 * pooled sockets never keep a CLI process alive.
 */
export function closeIdleConnections(): void {
  agents.http?.destroy();
  agents.https?.destroy();
  agents.http = undefined;
  agents.https = undefined;
}

export const nodeTransport: Transport = async (request) => {
  const url = parseHttpUrl(request.url);
  const target = describeTarget(url, request.method);
  if (request.signal?.aborted) throw interrupted(target, null);
  return new Promise<TransportResponse>((resolve, reject) => {
    runExchange(request, url, target, resolve, reject);
  });
};

/**
 * The same transport trusting these certificate authorities for https:// (a profile's
 * caFile, added to Node's own and NODE_EXTRA_CA_CERTS's): its own keep-alive pool, so that
 * no connection made with other trust is reused.
 */
export function nodeTransportWithCa(ca: readonly string[]): Transport {
  const tls = { ca: [...ca] };
  let pool: https.Agent | undefined;
  return async (request) => {
    const url = parseHttpUrl(request.url);
    if (url.protocol !== "https:") return nodeTransport(request);
    const target = describeTarget(url, request.method);
    if (request.signal?.aborted) throw interrupted(target, null);
    pool ??= new (httpsModule().Agent)({ keepAlive: true, ...tls });
    return new Promise<TransportResponse>((resolve, reject) => {
      runExchange(request, url, target, resolve, reject, { agent: pool!, tls });
    });
  };
}

/** An http(s) URL, or a UsageError that says how to give one. Shared with the client. */
export function parseHttpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(
      `invalid URL "${raw}": set --base-url or CPCTL_BASE_URL to an http:// or https:// address`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(
      `unsupported URL scheme "${url.protocol}" in ${url.origin}: use http:// or https://`,
    );
  }
  return url;
}

function describeTarget(url: URL, method: string): Target {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const hostPort = `${url.hostname}:${port}`;
  return { origin: `${url.protocol}//${hostPort}`, hostPort, request: `${method} ${url.pathname}` };
}

function runExchange(
  request: TransportRequest,
  url: URL,
  target: Target,
  resolve: (response: TransportResponse) => void,
  reject: (error: Error) => void,
  trust?: { agent: http.Agent; tls: { ca: string[] } },
): void {
  const state: ExchangeState = { connected: false, written: false, settled: false };
  const protocol = url.protocol === "https:" ? "https:" : "http:";
  const lib = protocol === "https:" ? httpsModule() : http;
  const agent = request.reuseConnection === false ? false : (trust?.agent ?? pooledAgent(protocol));
  const headers: Record<string, string> = { ...request.headers };
  // A body is sent with its length (no chunked encoding, which some proxies refuse); a
  // bodiless POST/PUT/PATCH says "0" (servers may answer 411 otherwise), a GET says nothing.
  if (request.body || BODY_METHODS.has(request.method.toUpperCase())) {
    headers["Content-Length"] = String(request.body?.length ?? 0);
  }
  // The CA goes with the request too: a fresh connection (agent false) is made without a pool.
  const req = lib.request(url, { method: request.method, headers, agent, ...trust?.tls });

  let timer: NodeJS.Timeout | undefined;
  const onAbort = (): void => fail(interrupted(target, state));
  const settle = (): boolean => {
    if (state.settled) return false;
    state.settled = true;
    if (timer) clearTimeout(timer);
    request.signal?.removeEventListener("abort", onAbort);
    return true;
  };
  // Destroying the request also destroys its socket, so nothing of a failed exchange is
  // left in the keep-alive pool.
  const fail = (error: Error): void => {
    if (settle()) reject(error);
    req.destroy();
  };

  if (request.timeoutMs > 0 && Number.isFinite(request.timeoutMs)) {
    timer = setTimeout(() => fail(timeoutError(target, state, request.timeoutMs)), request.timeoutMs);
  }
  request.signal?.addEventListener("abort", onAbort, { once: true });

  req.on("socket", (socket: Socket) => trackConnection(socket, state));
  req.on("finish", () => {
    state.written = true;
  });
  req.on("error", (error: NodeJS.ErrnoException) => fail(networkErrorOf(error, target, state)));
  req.on("response", (res) => {
    readResponse(
      res,
      target,
      request.maxBodyBytes,
      (response) => {
        if (settle()) resolve(response);
        // A cut body: the rest is not read, and the connection is not reused.
        if (response.bodyCut) req.destroy();
      },
      fail,
    );
  });
  if (request.body === undefined || Buffer.isBuffer(request.body)) {
    req.end(request.body);
    return;
  }
  sendStreamed(req, request.body, () => state.settled).catch((error: NodeJS.ErrnoException) =>
    fail(
      new NetworkError(
        `could not read the body to send (${error.code ?? error.message}; ${target.request})`,
        "connection_reset",
        state.connected,
      ),
    ),
  );
}

/**
 * Writes a streamed body (an upload read from a file) through one buffer, reused once each
 * chunk is handed to the system: sending 100 MB takes one chunk of memory, not 100 MB of
 * buffers left for the garbage collector. Stops when the exchange is over (an early answer).
 */
async function sendStreamed(req: http.ClientRequest, body: StreamedBody, over: () => boolean): Promise<void> {
  const buffer = Buffer.allocUnsafe(Math.min(BODY_CHUNK, body.length));
  let position = 0;
  while (position < body.length && !over()) {
    const count = await body.readAt(
      buffer.subarray(0, Math.min(buffer.length, body.length - position)),
      position,
    );
    if (count === 0) throw new Error("the body ended before its length");
    position += count;
    const written = new Promise<void>((resolve) => req.write(buffer.subarray(0, count), () => resolve()));
    // A write that fails ends the exchange through the request's 'error' event, and `over` says so.
    await written;
  }
  if (!over()) req.end();
}

function trackConnection(socket: Socket, state: ExchangeState): void {
  if (!socket.connecting) {
    state.connected = true; // a reused keep-alive socket
    return;
  }
  socket.once("connect", () => {
    state.connected = true;
  });
}

function readResponse(
  res: http.IncomingMessage,
  target: Target,
  maxBodyBytes: number | undefined,
  done: (response: TransportResponse) => void,
  fail: (error: Error) => void,
): void {
  const status = res.statusCode ?? 0;
  const success = status >= 200 && status < 300;
  const limit = success ? (maxBodyBytes ?? Number.POSITIVE_INFINITY) : ERROR_BODY_LIMIT;
  const answer = (body: Buffer, bodyCut: boolean): void =>
    done({ status, headers: flattenHeaders(res.headers), body, ...(bodyCut ? { bodyCut } : {}) });
  // Announced larger than the limit: not one byte of the body is read.
  const declared = Number(res.headers["content-length"]);
  if (success && Number.isFinite(declared) && declared > limit) {
    fail(new BodyLimitExceeded(limit, status));
    return;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  let over = false;
  // The server closing the socket in the middle of the body shows up as 'aborted' and/or
  // 'error' (ECONNRESET "aborted"), or as an 'end'/'close' with res.complete still false.
  const truncated = (): void => {
    if (!over) fail(truncatedError(target));
  };
  res.on("data", (chunk: Buffer) => {
    if (over) return;
    total += chunk.length;
    if (total <= limit) {
      chunks.push(chunk);
      return;
    }
    over = true;
    if (success) {
      fail(new BodyLimitExceeded(limit, status));
      return;
    }
    chunks.push(chunk.subarray(0, chunk.length - (total - limit)));
    answer(Buffer.concat(chunks, limit), true);
  });
  res.on("aborted", truncated);
  res.on("error", truncated);
  res.on("close", () => {
    if (!res.complete) truncated();
  });
  res.on("end", () => {
    if (over) return;
    if (res.complete) answer(Buffer.concat(chunks, total), false);
    else truncated();
  });
}

/**
 * The same limits for a body that comes as a stream (the proxy transport's undici answer):
 * a 2xx body over `maxBodyBytes` (or announced so) is BodyLimitExceeded, another is cut at
 * ERROR_BODY_LIMIT; either way the rest is not read (the stream is destroyed).
 */
export async function readLimitedBody(
  stream: AsyncIterable<Uint8Array> & { destroy(): unknown },
  status: number,
  contentLength: string | undefined,
  maxBodyBytes: number | undefined,
): Promise<{ body: Buffer; bodyCut?: boolean }> {
  const success = status >= 200 && status < 300;
  const limit = success ? (maxBodyBytes ?? Number.POSITIVE_INFINITY) : ERROR_BODY_LIMIT;
  const declared = Number(contentLength);
  if (success && Number.isFinite(declared) && declared > limit) {
    stream.destroy();
    throw new BodyLimitExceeded(limit, status);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.length;
    if (total <= limit) {
      chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      continue;
    }
    stream.destroy();
    if (success) throw new BodyLimitExceeded(limit, status);
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength - (total - limit)));
    return { body: Buffer.concat(chunks, limit), bodyCut: true };
  }
  return { body: Buffer.concat(chunks, total) };
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

// ---------------------------------------------------------------------------------------
// Error mapping. Messages name host:port and say what to check; never a stack or raw dump.

const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: "connection refused by",
  ENOTFOUND: "host name not found (DNS):",
  EAI_AGAIN: "DNS lookup failed temporarily for",
  EAI_FAIL: "DNS lookup failed for",
  EHOSTUNREACH: "no route to host",
  ENETUNREACH: "network unreachable for",
  EADDRNOTAVAIL: "address not available:",
};

const RESET_CODES = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

function checkHint(target: Target): string {
  return `is the control plane running at ${target.origin}? set --base-url or CPCTL_BASE_URL`;
}

function networkErrorOf(error: NodeJS.ErrnoException, target: Target, state: ExchangeState): Error {
  if (error instanceof NetworkError || error instanceof InterruptedError) return error;
  const code = error.code ?? "";
  const unreachable = UNREACHABLE[code];
  if (unreachable) {
    return new NetworkError(`${unreachable} ${target.hostPort}: ${checkHint(target)}`, "unreachable", false);
  }
  if (isTlsError(code)) {
    // The handshake failed, so no byte of the request was sent; the next one would fail alike.
    return new NetworkError(
      `TLS handshake with ${target.hostPort} failed (${error.message}): check the certificate ` +
        `(a profile's caFile, or NODE_EXTRA_CA_CERTS, adds a certificate authority) and that the server speaks HTTPS on that port`,
      "unreachable",
      false,
      { permanent: true },
    );
  }
  if (code === "ETIMEDOUT") return timeoutError(target, state, null);
  if (code.startsWith("HPE_")) {
    return new NetworkError(
      `${target.hostPort} did not answer with valid HTTP (${target.request}): ${checkHint(target)}`,
      "bad_response",
      state.written,
    );
  }
  // Reset before the whole request was handed to the system (a server that refuses a body
  // too large and closes, say): it never had the request whole, so it cannot have acted on it.
  if (RESET_CODES.has(code) && state.connected && !state.written) {
    return new NetworkError(
      `the connection to ${target.hostPort} was reset while cpctl was still sending the request (${target.request}): the server did not take it whole`,
      "connection_reset",
      false,
    );
  }
  // ECONNRESET, EPIPE, "socket hang up" and anything unknown: the server may have seen the
  // request, so callers must treat it as possibly applied.
  const what = RESET_CODES.has(code) ? "was reset" : `failed (${code || error.message})`;
  return new NetworkError(
    `the connection to ${target.hostPort} ${what} before a complete answer arrived (${target.request})`,
    "connection_reset",
    true,
  );
}

/** A TLS handshake that failed: a certificate not trusted or not for that host, or no TLS there. */
export function isTlsError(code: string): boolean {
  return (
    code.startsWith("ERR_TLS_") ||
    code.startsWith("ERR_SSL_") ||
    code === "EPROTO" ||
    code.includes("CERT") ||
    code === "UNABLE_TO_VERIFY_LEAF_SIGNATURE"
  );
}

function truncatedError(target: Target): NetworkError {
  return new NetworkError(
    `the connection to ${target.hostPort} closed in the middle of the response (${target.request})`,
    "connection_reset",
    true,
  );
}

function timeoutError(target: Target, state: ExchangeState, timeoutMs: number | null): NetworkError {
  const within = timeoutMs === null ? "" : ` within ${formatDuration(timeoutMs, { exact: true })}`;
  if (!state.connected) {
    return new NetworkError(
      `could not connect to ${target.hostPort}${within}: ${checkHint(target)}`,
      "timeout",
      false,
    );
  }
  // Connected but the request not fully written: the server holds at most a partial request
  // (its Content-Length unmet), which it cannot act upon.
  return new NetworkError(
    `no complete answer from ${target.hostPort}${within} (${target.request}): ` +
      `the control plane may be overloaded; raise --request-timeout or check ${target.origin}`,
    "timeout",
    state.written,
  );
}

function interrupted(target: Target, state: ExchangeState | null): RequestInterruptedError {
  // Connected is the safe line, not written: "finish" may not have been seen yet although the
  // bytes are already on their way, while before "connect" nothing was sent at all.
  return new RequestInterruptedError(
    `interrupted (${target.request})`,
    Boolean(state?.connected || state?.written),
  );
}
