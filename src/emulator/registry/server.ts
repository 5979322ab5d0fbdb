// The emulator's image registry: an OCI distribution API on a port of its own (docker and
// podman address a registry by host and port, with its API at /v2/ on the root), beside the
// control plane. It shares the emulator's store (tokens are checked against deployments and
// tenants), clock, faults and request statistics; its bytes live in a RegistryStorage.
//
// The modules, one job each:
//   server        listening, one request from arrival to answer (faults included), writing
//   paths         URL paths -> endpoint and repository name
//   access        push tokens as credentials: the Bearer challenge and the token endpoint
//   handlers      the endpoints, by path: the ping, the token service, blobs, tags
//   uploads, manifests   the endpoints that take blobs and manifests
//   request, bodies      what handlers share: the request, its checks, reading its body
//   storage       the rules of what is held (links per repository, uploads, quota)
//   backend, directory-backend   the bytes: memory, or files beside the state file
//   tokens        push tokens: signed, expiring claims
//   push-token    the control plane route that issues them
//   pull-check    whether a revision's image_uri can be pulled from here
//   errors        the OCI error shape
import { createReadStream } from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { EmulatorFault } from "../../model/emulator-controls.js";
import { faultDoesWork, faultStatus, htmlErrorPage, withRetryAfter } from "../api/faults.js";
import type { Core } from "../api/handler-parts.js";
import { HeldAnswers, type RequestEvent } from "../api/request-pipeline.js";
import { tellOperator } from "../responses.js";
import { listenOn } from "../start-error.js";
import { RegistryError } from "./errors.js";
import { handle, type Registry, type RegistryAnswer } from "./handlers.js";
import { parseRegistryPath, type RegistryPath, routeKey } from "./paths.js";
import type { RegistryStorage } from "./storage.js";

export interface RunningRegistry {
  /** `HOST:PORT`, as image references name it (IPv6 hosts in brackets). */
  readonly host: string;
  readonly port: number;
  /** http://HOST:PORT */
  readonly url: string;
  close(): Promise<void>;
}

/** `observers` hear of each request as the control plane's do (RunningEmulator.observe). */
export async function startRegistry(
  core: Core,
  storage: RegistryStorage,
  listen: { host: string; port: number },
  observers: ReadonlySet<(event: RequestEvent) => void> = new Set(),
): Promise<RunningRegistry> {
  const registry: Registry = { core, storage, observers };
  const held = new HeldAnswers();
  let address = "";
  const server = http.createServer((request, response) => {
    serve(registry, held, address, request, response).catch((error: unknown) => {
      if (!response.headersSent) write(request, response, internalError(error));
      else response.destroy();
    });
  });
  // Layers take as long as they take to arrive: no deadline on a whole request.
  server.requestTimeout = 0;
  server.on("clientError", (_error, socket) => socket.destroy());

  const { port, hostPort: host } = await listenOn(
    server,
    listen.host,
    listen.port,
    "the emulator's registry",
    "--registry-port",
  );
  address = `http://${host}`;
  return {
    host,
    port,
    url: address,
    close: () =>
      new Promise<void>((resolve) => {
        held.drop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function serve(
  registry: Registry,
  held: HeldAnswers,
  address: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { core } = registry;
  const method = request.method ?? "GET";
  const target = request.url ?? "/";
  const q = target.indexOf("?");
  const rawPath = q < 0 ? target : target.slice(0, q);
  const faultPath = rawPath.length > 1 ? rawPath.replace(/\/+$/, "") : rawPath;

  let path: RegistryPath;
  let answer: RegistryAnswer | null = null;
  try {
    path = parseRegistryPath(rawPath);
  } catch (error) {
    path = { kind: "unknown" };
    answer = errorAnswer(error);
  }
  const route = routeKey(method, path);
  core.stats.count(route);
  for (const observer of registry.observers) observer({ phase: "received", method, route });

  const fault = core.faults.take(method, faultPath);
  if (fault && !faultDoesWork(fault)) {
    await held.delay(fault.latency_ms);
    if (fault.drop === "before") return void request.socket.destroy();
    return write(request, response, withRetryAfter(injected(fault), fault));
  }

  answer ??= await handle(registry, {
    method,
    path,
    query: new URLSearchParams(q < 0 ? "" : target.slice(q + 1)),
    request,
    now: core.clock.now(),
    origin: originOf(request, address),
  }).catch(errorAnswer);

  for (const observer of registry.observers)
    observer({ phase: "handled", method, route, status: answer.status });
  if (fault) {
    await held.delay(fault.latency_ms);
    if (fault.drop === "after") return void request.socket.destroy();
    answer = withRetryAfter(answer, fault);
  }
  write(request, response, answer, fault?.body === "truncated");
}

/** The address the client used (so the token realm works from where it stands), else our own. */
function originOf(request: IncomingMessage, address: string): string {
  const host = request.headers.host;
  return host && /^[A-Za-z0-9.\-:[\]]+$/.test(host) ? `http://${host}` : address;
}

function errorAnswer(error: unknown): RegistryAnswer {
  if (!(error instanceof RegistryError)) return internalError(error);
  const data = error.body();
  return {
    status: error.status,
    headers: { ...error.headers, "Content-Type": "application/json", "Content-Length": String(data.length) },
    body: { kind: "buffer", data },
  };
}

function internalError(error: unknown): RegistryAnswer {
  const message = error instanceof Error ? error.message : String(error);
  tellOperator(`registry internal error: ${error instanceof Error ? (error.stack ?? message) : message}`);
  return errorAnswer(new RegistryError(500, "UNAVAILABLE", `internal emulator error: ${message}`));
}

function injected(fault: EmulatorFault): RegistryAnswer {
  const status = faultStatus(fault);
  if (fault.body === "html") {
    const data = htmlErrorPage(status);
    return {
      status,
      headers: { "Content-Type": "text/html; charset=utf-8", "Content-Length": String(data.length) },
      body: { kind: "buffer", data },
    };
  }
  return errorAnswer(
    new RegistryError(
      status,
      "UNAVAILABLE",
      `Injected fault: ${status} ${http.STATUS_CODES[status] ?? ""}`.trim(),
    ),
  );
}

/** Writes an answer; a HEAD gets the headers only. `truncate`: half the body, then the socket is cut. */
function write(
  request: IncomingMessage,
  response: ServerResponse,
  answer: RegistryAnswer,
  truncate = false,
): void {
  if (response.writableEnded || response.destroyed) return;
  response.writeHead(answer.status, {
    "Docker-Distribution-API-Version": "registry/2.0",
    ...answer.headers,
  });
  const body = answer.body;
  if (request.method === "HEAD" || !body) return void response.end();
  if (body.kind === "buffer") {
    if (!truncate) return void response.end(body.data);
    response.write(body.data.subarray(0, Math.floor(body.data.length / 2)));
    return void response.destroy();
  }
  if (truncate && body.size < 2) return void response.destroy();
  const stream = createReadStream(body.path, truncate ? { end: Math.floor(body.size / 2) - 1 } : {});
  stream.on("error", () => response.destroy());
  stream.on("end", () => {
    if (truncate) response.destroy();
  });
  stream.pipe(response, { end: !truncate });
}
