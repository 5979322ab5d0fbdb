// A minimal router: path patterns with `{param}` segments. It tells apart "no such path"
// (404) from "path exists, not with this method" (405, with Allow), and gives each route a
// stable key ("GET /v2/deployments/{deployment_id}") for the request statistics.
import type { IncomingMessage } from "node:http";
import type { EmulatorResponse } from "../responses.js";

export interface RouteContext {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  request: IncomingMessage;
  /** The emulator's time for this request, read once so one answer is self-consistent. */
  now: number;
  /** Authenticates the request (throws 400/401/403) and returns its tenant ID. */
  tenant(): string;
  /** Throws 401/403 unless the request may use the emulator-wide controls (control-auth.ts). */
  operator(): void;
  /** The body parsed as JSON, within the JSON body limit (throws 400/413). */
  jsonBody(): Promise<unknown>;
  /** The raw body, within `limit` bytes (throws 413). */
  rawBody(limit: number): Promise<Buffer>;
  /** http://host:port as the client addressed the emulator (for URLs it hands out). */
  origin: string;
}

export type Handler = (context: RouteContext) => EmulatorResponse | Promise<EmulatorResponse>;

export interface Route {
  method: string;
  pattern: string;
  key: string;
  handler: Handler;
  segments: string[];
}

export type RouteMatch =
  | { kind: "found"; route: Route; params: Record<string, string> }
  | { kind: "wrong_method"; allowed: string[] }
  | { kind: "none" };

export class Router {
  private readonly routes: Route[] = [];

  add(method: string, pattern: string, handler: Handler): this {
    this.routes.push({
      method,
      pattern,
      key: `${method} ${pattern}`,
      handler,
      segments: pattern.split("/"),
    });
    return this;
  }

  match(method: string, path: string): RouteMatch {
    const segments = path.split("/");
    const allowed: string[] = [];
    for (const route of this.routes) {
      const params = matchSegments(route.segments, segments);
      if (!params) continue;
      if (route.method === method) return { kind: "found", route, params };
      allowed.push(route.method);
    }
    return allowed.length ? { kind: "wrong_method", allowed } : { kind: "none" };
  }
}

function matchSegments(pattern: string[], segments: string[]): Record<string, string> | null {
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const actual = segments[i]!;
    if (expected.startsWith("{")) {
      if (actual === "") return null;
      let value: string;
      try {
        value = decodeURIComponent(actual);
      } catch {
        return null;
      }
      params[expected.slice(1, -1)] = value;
    } else if (expected !== actual) {
      return null;
    }
  }
  return params;
}
