// One request from arrival to answer, a step a function: the path split from its query; a
// web page's request refused before it is counted or seen (cross-site.ts); the request
// counted and told to observers; a fault that answers instead of the route; the route run
// with a context that authenticates and reads the body on demand, within its limits; a
// fault's delay, drop or cut body; the answer written. Handlers return values
// (responses.ts), so a fault can delay, cut or drop an answer that is already complete.
// Controls (/_emulator/...) are the operator's: no faults (they could lock themselves
// out), not counted, not observed.
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { EmulatorFault } from "../../model/emulator-controls.js";
import { type EmulatorResponse, HttpError, tellOperator } from "../responses.js";
import { type AuthConfig, authenticate } from "./auth.js";
import { parseJsonBody, readBody } from "./body.js";
import { type ControlAuthConfig, checkOperator } from "./control-auth.js";
import { crossSiteRefusal } from "./cross-site.js";
import { faultDoesWork, faultStatus, htmlErrorPage, withRetryAfter } from "./faults.js";
import type { Core } from "./handler-parts.js";
import type { RouteContext, RouteMatch, Router } from "./router.js";

/**
 * An API request as an observer sees it: "received" when it arrives (faulted or not),
 * "handled" once its work is done and its answer is ready, before a fault delays, cuts or
 * drops that answer. `route` is the stats key ("POST /v2/deployments").
 */
export type RequestEvent =
  | { phase: "received"; method: string; route: string }
  | { phase: "handled"; method: string; route: string; status: number };

/** What the pipeline runs on: the emulator's parts and settings. */
export interface Pipeline {
  router: Router;
  core: Core;
  auth: AuthConfig;
  controlAuth: ControlAuthConfig;
  /** The host the emulator listens on (loopback or not changes the cross-site checks). */
  host: string;
  maxBodyBytes: number;
  /** The emulator's own address once it listens: for URLs it hands out when the Host header is unusable. */
  address: () => string;
  observers: ReadonlySet<(event: RequestEvent) => void>;
  held: HeldAnswers;
}

/** The timers of answers a fault's latency holds back: closing the emulator cuts them short. */
export class HeldAnswers {
  private readonly pending = new Set<NodeJS.Timeout>();

  /** Waits `ms` (not at all for 0). */
  delay(ms: number): Promise<void> | void {
    if (ms <= 0) return;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        resolve();
      }, ms);
      this.pending.add(timer);
    });
  }

  /** The answers still held are never written. */
  drop(): void {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }
}

/** node:http's request listener: the pipeline, and a last answer should writing fail. */
export function requestListener(
  pipeline: Pipeline,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    // The answer's time is the emulator's (a test's manual clock, a clock moved on), as a
    // server's Date header is its own: clients that measure ages by it see the same world.
    response.setHeader("Date", new Date(pipeline.core.clock.now()).toUTCString());
    handleRequest(pipeline, request, response).catch((error: unknown) => {
      // Only a failure to write could land here; answer if still possible.
      if (!response.headersSent) send(response, internalError(error));
      else response.destroy();
    });
  };
}

async function handleRequest(
  pipeline: Pipeline,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { core, observers, held } = pipeline;
  const method = request.method ?? "GET";
  const { path, search } = splitTarget(request.url ?? "/");
  const match = pipeline.router.match(method, path);
  const isControl = path.startsWith("/_emulator/");
  // Before anything else (counts, observers, faults): a web page's request is not one of ours.
  const refusal = crossSiteRefusal(request.headers, method, isControl, pipeline.host);
  if (refusal) return send(response, refusal.toResponse());
  const route = match.kind === "found" ? match.route.key : `${method} (unmatched)`;
  const notify = (event: RequestEvent): void => {
    if (isControl || observers.size === 0) return;
    for (const observer of observers) observer(event);
  };
  if (!isControl) core.stats.count(route);
  notify({ phase: "received", method, route });

  const fault = isControl ? null : core.faults.take(method, path);
  if (fault && !faultDoesWork(fault)) {
    await held.delay(fault.latency_ms);
    if (fault.drop === "before") return void request.socket.destroy();
    return send(response, withRetryAfter(injectedAnswer(fault), fault));
  }

  let answer = await runRoute(match, (params) =>
    routeContext(pipeline, request, method, path, search, params),
  );
  notify({ phase: "handled", method, route, status: answer.status });

  if (fault) {
    await held.delay(fault.latency_ms);
    if (fault.drop === "after") return void request.socket.destroy();
    answer = withRetryAfter(answer, fault);
  }
  send(response, answer, fault?.body === "truncated");
}

/** The path (a trailing slash dropped) and the query string. */
function splitTarget(target: string): { path: string; search: string } {
  // Split by hand: `new URL` would read "//x/y" as a host.
  const q = target.indexOf("?");
  let path = q < 0 ? target : target.slice(0, q);
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  return { path, search: q < 0 ? "" : target.slice(q + 1) };
}

/** The route's answer: 404 or 405 when there is none, an HttpError's answer, 500 for a bug. */
async function runRoute(
  match: RouteMatch,
  context: (params: Record<string, string>) => RouteContext,
): Promise<EmulatorResponse> {
  try {
    if (match.kind === "none") throw new HttpError(404, "Not Found");
    if (match.kind === "wrong_method")
      throw new HttpError(405, "Method Not Allowed", { Allow: match.allowed.join(", ") });
    return await match.route.handler(context(match.params));
  } catch (error) {
    return error instanceof HttpError ? error.toResponse() : internalError(error);
  }
}

/** What a handler may ask of its request: the tenant (authenticated once, on first ask), the operator, the body. */
function routeContext(
  pipeline: Pipeline,
  request: IncomingMessage,
  method: string,
  path: string,
  search: string,
  params: Record<string, string>,
): RouteContext {
  let tenant: string | null = null;
  const host = request.headers.host;
  return {
    method,
    path,
    params,
    query: new URLSearchParams(search),
    request,
    now: pipeline.core.clock.now(),
    tenant: () => {
      tenant ??= authenticate(request.headers, pipeline.auth);
      return tenant;
    },
    operator: () => checkOperator(request.headers, pipeline.controlAuth),
    jsonBody: async () => parseJsonBody(await readBody(request, pipeline.maxBodyBytes)),
    rawBody: (limit) => readBody(request, limit),
    // The address the client used, so URLs handed out work from where it stands.
    origin: host && /^[A-Za-z0-9.\-:[\]]+$/.test(host) ? `http://${host}` : pipeline.address(),
  };
}

/** The answer of a fault that stands in for the route: its status, in JSON or as an HTML page. */
function injectedAnswer(fault: EmulatorFault): EmulatorResponse {
  const status = faultStatus(fault);
  return fault.body === "html"
    ? { status, raw: { body: htmlErrorPage(status), contentType: "text/html; charset=utf-8" } }
    : { status, json: { detail: `Injected fault: ${status} ${http.STATUS_CODES[status] ?? ""}`.trim() } };
}

function internalError(error: unknown): EmulatorResponse {
  // A bug or a failed state write: say so (stderr and the answer), never crash the server.
  const message = error instanceof Error ? error.message : String(error);
  tellOperator(`internal error: ${error instanceof Error ? (error.stack ?? message) : message}`);
  return { status: 500, json: { detail: `Internal emulator error: ${message}` } };
}

/** Writes an answer. `truncate`: send only the first half of the body (a broken JSON document). */
function send(response: ServerResponse, answer: EmulatorResponse, truncate = false): void {
  if (response.writableEnded || response.destroyed) return;
  let body: Buffer | undefined;
  let contentType = "application/json";
  if (answer.raw) {
    body = answer.raw.body;
    contentType = answer.raw.contentType;
  } else if (answer.jsonText !== undefined) {
    body = Buffer.from(answer.jsonText);
  } else if (answer.json !== undefined) {
    body = Buffer.from(JSON.stringify(answer.json));
  }
  if (truncate && body) body = body.subarray(0, Math.floor(body.length / 2));
  const headers: Record<string, string | number> = { ...answer.headers };
  if (body) {
    headers["Content-Type"] = contentType;
    headers["Content-Length"] = body.length;
  }
  response.writeHead(answer.status, headers);
  response.end(body);
}

/** Requests too broken to parse never reach the pipeline: node:http's clientError, answered in JSON too. */
export function answerUnparsable(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === "ECONNRESET") return void socket.destroy();
  const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
  const body = JSON.stringify({
    detail:
      status === 431
        ? "Request headers are too large."
        : "Bad request: the HTTP request could not be parsed.",
  });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
