// The stand-in agent servers. Every deployment has an address (its source_config.custom_url,
// api/views.ts) where an agent server would answer: here, http://HOST:PORT/<deployment ID>, one
// port for all of them (a port each would be hundreds of sockets, and ports to win back after a
// restart). It answers as an agent server does (service-facts, "The address of a deployment"),
// with the same credentials as the control plane, a tenant's own deployments only:
//   GET /<id>/ok    200 {"ok": true} while the active revision is DEPLOYED; 503 before any
//                   revision is; 500 when the health control made the active revision unhealthy
//   GET /<id>/info  the agent server's version and the revision that answers (503 before one)
// So that a release that fails its checks, and its rollback, can be rehearsed with the real
// CLI (`cpctl emulator health`). Faults (the /_emulator/faults control) do not apply here.
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { isUuid } from "../../model/enums.js";
import { type AuthConfig, authenticate } from "../api/auth.js";
import type { Core } from "../api/handler-parts.js";
import type { RequestEvent } from "../api/request-pipeline.js";
import { deploymentStatusAt, EMULATED_IMAGE_VERSION } from "../api/views.js";
import { HttpError, tellOperator } from "../responses.js";
import { listenOn } from "../start-error.js";

export interface RunningAgents {
  /** http://HOST:PORT */
  readonly url: string;
  readonly port: number;
  /** The address of a deployment's agent server: what its custom_url says. */
  addressOf(deploymentId: string): string;
  close(): Promise<void>;
}

/** `observers` hear of each request as the control plane's do (RunningEmulator.observe). */
export async function startAgents(
  core: Core,
  auth: AuthConfig,
  listen: { host: string; port: number },
  observers: ReadonlySet<(event: RequestEvent) => void> = new Set(),
): Promise<RunningAgents> {
  const server = http.createServer((request, response) => {
    const method = request.method ?? "GET";
    const path = pathOf(request.url ?? "/");
    const route = `${method} /{deployment_id}/${path?.endpoint ?? "(unmatched)"}`;
    core.stats.count(route);
    for (const observer of observers) observer({ phase: "received", method, route });
    const answer = answerOf(core, auth, request, path);
    for (const observer of observers) observer({ phase: "handled", method, route, status: answer.status });
    write(request, response, answer);
  });
  server.on("clientError", (_error, socket) => socket.destroy());
  const { port, hostPort } = await listenOn(
    server,
    listen.host,
    listen.port,
    "the emulator's agent servers",
    "--agents-port",
  );
  const url = `http://${hostPort}`;
  return {
    url,
    port,
    addressOf: (deploymentId) => `${url}/${deploymentId}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type Endpoint = "ok" | "info";

interface AgentPath {
  deploymentId: string;
  endpoint: Endpoint;
}

/** `/<deployment ID>/ok` or `/<deployment ID>/info` (a trailing slash and a query allowed). */
function pathOf(target: string): AgentPath | null {
  const q = target.indexOf("?");
  const path = (q < 0 ? target : target.slice(0, q)).replace(/\/+$/, "");
  const [, id, endpoint, ...rest] = path.split("/");
  if (rest.length > 0 || !id || !isUuid(id) || (endpoint !== "ok" && endpoint !== "info")) return null;
  return { deploymentId: id.toLowerCase(), endpoint };
}

interface Answer {
  status: number;
  json: unknown;
  headers?: Record<string, string>;
}

function answerOf(core: Core, auth: AuthConfig, request: IncomingMessage, path: AgentPath | null): Answer {
  try {
    if (!path)
      return {
        status: 404,
        json: { detail: "Not Found: an agent server answers /<deployment ID>/ok and /info" },
      };
    if (request.method !== "GET" && request.method !== "HEAD") {
      return { status: 405, json: { detail: "Method Not Allowed" }, headers: { Allow: "GET, HEAD" } };
    }
    const tenantId = authenticate(request.headers, auth);
    const deployment = core.store.findAnyTenant(path.deploymentId);
    if (!deployment)
      return { status: 404, json: { detail: `No deployment ${path.deploymentId} answers here.` } };
    if (deployment.tenant_id !== tenantId) {
      return {
        status: 403,
        json: {
          detail: `This API key or token may not call the agent server of deployment ${deployment.id}.`,
        },
      };
    }
    const { active } = deploymentStatusAt(deployment, core.clock.now());
    if (!active) {
      return {
        status: 503,
        json: { detail: `No revision of deployment ${deployment.id} is DEPLOYED yet: nothing serves here.` },
      };
    }
    if (path.endpoint === "info") {
      return {
        status: 200,
        json: { version: EMULATED_IMAGE_VERSION, deployment_id: deployment.id, revision_id: active.id },
      };
    }
    if (active.unhealthy) {
      return {
        status: 500,
        json: {
          ok: false,
          detail: `Revision ${active.id} is unhealthy (made so by the emulator's health control).`,
        },
      };
    }
    return { status: 200, json: { ok: true } };
  } catch (error) {
    if (error instanceof HttpError)
      return { status: error.status, json: { detail: error.detail }, headers: error.headers };
    tellOperator(
      `agent server internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    return { status: 500, json: { detail: "internal emulator error" } };
  }
}

function write(request: IncomingMessage, response: ServerResponse, answer: Answer): void {
  const body = Buffer.from(JSON.stringify(answer.json));
  response.writeHead(answer.status, {
    ...answer.headers,
    "Content-Type": "application/json",
    "Content-Length": String(body.length),
  });
  response.end(request.method === "HEAD" ? undefined : body);
}
