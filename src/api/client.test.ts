// ApiClient against a real node:http server on 127.0.0.1: headers, URLs, bodies, status
// handling, error messages and pagination.
import { afterAll, describe, expect, it } from "vitest";
import { failure } from "../../test/helpers/failure.js";
import { json, startServer, type TestServer } from "../../test/helpers/http-server.js";
import { ApiError, NetworkError, UsageError } from "../errors.js";
import { ApiClient, type ApiClientOptions } from "./client.js";
import { closeIdleConnections } from "./transport.js";

function client(server: TestServer, overrides: Partial<ApiClientOptions> = {}): ApiClient {
  return new ApiClient({
    baseUrl: server.url,
    credentials: {},
    requestTimeoutMs: 5000,
    userAgent: "cpctl-test/0.0.0",
    retry: { maxAttempts: 1 },
    sleep: async () => {},
    ...overrides,
  });
}

afterAll(() => closeIdleConnections());

describe("request headers", () => {
  it("sends X-Api-Key, Accept and User-Agent", async () => {
    const server = await startServer((_req, res) => json(res, 200, {}));
    await client(server, { credentials: { apiKey: "k-123" } }).get("/v2/listeners");
    const headers = server.requests[0]!.headers;
    expect(headers["x-api-key"]).toBe("k-123");
    expect(headers.accept).toBe("application/json");
    expect(headers["user-agent"]).toBe("cpctl-test/0.0.0");
    expect(headers.authorization).toBeUndefined();
    expect(headers["x-tenant-id"]).toBeUndefined();
  });

  it("sends a bearer token as Authorization", async () => {
    const server = await startServer((_req, res) => json(res, 200, {}));
    await client(server, { credentials: { bearerToken: "tok-1" } }).get("/v2/listeners");
    expect(server.requests[0]!.headers.authorization).toBe("Bearer tok-1");
    expect(server.requests[0]!.headers["x-api-key"]).toBeUndefined();
  });

  it("sends the tenant in X-Tenant-Id by default, or in a configured header", async () => {
    const server = await startServer((_req, res) => json(res, 200, {}));
    await client(server, { credentials: { apiKey: "k", tenantId: "t-1" } }).get("/a");
    await client(server, {
      credentials: { apiKey: "k", tenantId: "t-2", tenantHeader: "X-Workspace-Id" },
    }).get("/b");
    expect(server.requests[0]!.headers["x-tenant-id"]).toBe("t-1");
    expect(server.requests[1]!.headers["x-workspace-id"]).toBe("t-2");
    expect(server.requests[1]!.headers["x-tenant-id"]).toBeUndefined();
  });

  it("sends every scheme given at once", async () => {
    const server = await startServer((_req, res) => json(res, 200, {}));
    await client(server, { credentials: { apiKey: "k", bearerToken: "t", tenantId: "w" } }).get("/a");
    const headers = server.requests[0]!.headers;
    expect([headers["x-api-key"], headers.authorization, headers["x-tenant-id"]]).toEqual([
      "k",
      "Bearer t",
      "w",
    ]);
  });

  it("never sends credentials to another origin (an upload URL)", async () => {
    const api = await startServer((_req, res) => json(res, 200, {}));
    const storage = await startServer((_req, res) => {
      res.writeHead(200);
      res.end();
    });
    const c = client(api, { credentials: { apiKey: "k", bearerToken: "t", tenantId: "w" } });
    const tarball = Buffer.from([0x1f, 0x8b, 0x08]);
    await c.put(`${storage.url}/bucket/obj?X-Goog-Signature=abc`, undefined, {
      absoluteUrl: true,
      rawBody: tarball,
      contentType: "application/gzip",
    });
    const seen = storage.requests[0]!;
    expect(seen.url).toBe("/bucket/obj?X-Goog-Signature=abc");
    expect(seen.headers["content-type"]).toBe("application/gzip");
    expect(seen.headers["x-api-key"]).toBeUndefined();
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers["x-tenant-id"]).toBeUndefined();
  });

  it("refuses a credential with a line break, naming where it came from but not the value", () => {
    const make = () =>
      new ApiClient({
        baseUrl: "http://127.0.0.1:1",
        credentials: { apiKey: "abc\n" },
        requestTimeoutMs: 1000,
        userAgent: "t",
      });
    expect(make).toThrow(UsageError);
    expect(make).toThrow(/CPCTL_API_KEY/);
  });

  it("refuses a base URL that is not http(s)", () => {
    const make = (baseUrl: string) => () =>
      new ApiClient({ baseUrl, credentials: {}, requestTimeoutMs: 1000, userAgent: "t" });
    expect(make("ftp://x")).toThrow(UsageError);
    expect(make("not a url")).toThrow(/--base-url or CPCTL_BASE_URL/);
  });
});

describe("URLs and bodies", () => {
  it("encodes the query and leaves out undefined and null", async () => {
    const server = await startServer((_req, res) => json(res, 200, {}));
    await client(server).get("/v2/deployments", {
      query: { limit: 20, name: "a b&c/é", remote_reconciled: false, offset: undefined, status: null },
    });
    expect(server.requests[0]!.url).toBe(
      "/v2/deployments?limit=20&name=a+b%26c%2F%C3%A9&remote_reconciled=false",
    );
  });

  it("keeps a path prefix of the base URL", async () => {
    const server = await startServer((_req, res) => json(res, 200, {}));
    await client(server, { baseUrl: `${server.url}/prefix/` }).get("/v2/listeners");
    expect(server.requests[0]!.url).toBe("/prefix/v2/listeners");
  });

  it("sends a JSON body and parses a 201 answer", async () => {
    const server = await startServer((req, res) => json(res, 201, { id: "d-1", echo: JSON.parse(req.body) }));
    const res = await client(server).post<{ id: string; echo: unknown }>("/v2/deployments", {
      name: "x",
      n: 1,
    });
    const seen = server.requests[0]!;
    expect(seen.method).toBe("POST");
    expect(seen.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(seen.body)).toEqual({ name: "x", n: 1 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: "d-1", echo: { name: "x", n: 1 } });
    expect(res.headers["content-type"]).toBe("application/json");
  });

  it("sends no Content-Type or Content-Length on a GET, and Content-Length 0 on a bodiless POST", async () => {
    const server = await startServer((_req, res) => json(res, 200, {}));
    await client(server).get("/a");
    await client(server).post("/v2/deployments/d-1/upload-url");
    expect(server.requests[0]!.headers["content-type"]).toBeUndefined();
    expect(server.requests[0]!.headers["content-length"]).toBeUndefined();
    expect(server.requests[1]!.headers["content-length"]).toBe("0");
  });

  it("answers null for 204 and for an empty 200", async () => {
    const server = await startServer((req, res) => {
      res.writeHead(req.method === "DELETE" ? 204 : 200);
      res.end();
    });
    const deleted = await client(server).delete("/v2/deployments/d-1");
    expect(deleted).toEqual({ status: 204, headers: expect.any(Object), body: null });
    expect((await client(server).get("/a")).body).toBeNull();
  });

  it("treats a 2xx body that is not JSON as a bad response", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end("<html><body>Sign in to the captive portal</body></html>");
    });
    const error = await failure(client(server).get("/v2/deployments"), NetworkError);
    expect(error).toMatchObject({ kind: "bad_response", mayHaveReachedServer: true });
    expect(error.message).toContain("not valid JSON (text/html)");
    expect(error.message).not.toContain("<html");
  });
});

describe("error answers", () => {
  async function apiError(status: number, body: string, contentType = "application/json", opts = {}) {
    const server = await startServer((_req, res) => {
      res.writeHead(status, { "Content-Type": contentType });
      res.end(body);
    });
    return failure(client(server, opts).get("/v2/deployments/d-1"), ApiError);
  }

  it("400: uses the detail string", async () => {
    const error = await apiError(400, JSON.stringify({ detail: "Invalid source_tarball_path." }));
    expect(error).toMatchObject({
      status: 400,
      method: "GET",
      path: "/v2/deployments/d-1",
      code: "invalid_request",
    });
    expect(error.message).toBe("Invalid source_tarball_path.");
    expect(error.body).toEqual({ detail: "Invalid source_tarball_path." });
  });

  it("404: uses the detail string", async () => {
    const error = await apiError(404, JSON.stringify({ detail: "Deployment ID d-1 not found." }));
    expect(error.status).toBe(404);
    expect(error.message).toBe("Deployment ID d-1 not found.");
  });

  it("422: one line per issue, without the leading 'body'", async () => {
    const detail = [
      {
        loc: ["body", "source_config", "build_on_push"],
        msg: "cannot be true with a tag ref",
        type: "value_error",
      },
      { loc: ["body", "secrets", 0, "name"], msg: "field required", type: "missing" },
      { loc: ["query", "limit"], msg: "must be at most 100", type: "less_than_equal" },
    ];
    const error = await apiError(422, JSON.stringify({ detail }));
    expect(error.status).toBe(422);
    expect(error.message.split("\n")).toEqual([
      "source_config.build_on_push: cannot be true with a tag ref",
      "secrets[0].name: field required",
      "query.limit: must be at most 100",
    ]);
    expect(error.body).toEqual({ detail });
  });

  it("422: masks a secret value echoed back as `input`", async () => {
    const detail = [
      { loc: ["body", "secrets", 0, "value"], msg: "too long", type: "x", input: "s3cr3t-value" },
    ];
    const error = await apiError(422, JSON.stringify({ detail }));
    expect(JSON.stringify(error.body)).not.toContain("s3cr3t-value");
  });

  it("401 without credentials: says how to provide them", async () => {
    const error = await apiError(401, JSON.stringify({ detail: "Not authenticated" }));
    expect(error.code).toBe("unauthenticated");
    expect(error.message).toContain("authentication failed: Not authenticated");
    for (const way of ["CPCTL_API_KEY", "CPCTL_BEARER_TOKEN", "--api-key-file", "--tenant-id"]) {
      expect(error.message).toContain(way);
    }
  });

  it("401 with a key: says the credentials were refused", async () => {
    const error = await apiError(401, "", "application/json", { credentials: { apiKey: "k" } });
    expect(error.message).toContain("authentication failed (HTTP 401)");
    expect(error.message).toContain("the credentials were refused");
  });

  it("the hosted service's 403 for an organisation key without a tenant: asks for --tenant-id", async () => {
    const body = JSON.stringify({ detail: "This API key requires workspace specification" });
    const error = await apiError(403, body, "application/json", { credentials: { apiKey: "k" } });
    expect(error.code).toBe("forbidden");
    expect(error.message).toBe(
      "permission denied: This API key requires workspace specification\nan organisation-scoped API key also needs a tenant: set --tenant-id or CPCTL_TENANT_ID",
    );
    // With a tenant sent, it is the tenant (or its header) to check.
    const sent = await apiError(403, body, "application/json", {
      credentials: { apiKey: "k", tenantId: "t" },
    });
    expect(sent.message).toContain(
      "a tenant ID was sent, but the server still asks for one: check --tenant-id / CPCTL_TENANT_ID and the header that carries it (CPCTL_TENANT_HEADER)",
    );
  });

  it("any other 403: no word of organisation keys, whatever was sent", async () => {
    for (const body of ["", JSON.stringify({ detail: "Forbidden" }), "<html>403</html>"]) {
      for (const credentials of [{ apiKey: "k" }, { apiKey: "k", tenantId: "t" }]) {
        const error = await apiError(403, body, body.startsWith("<") ? "text/html" : "application/json", {
          credentials,
        });
        expect(error.message).not.toMatch(/organisation|organization/i);
        expect(error.message).toContain(
          "the credentials were accepted but may not do this: check what the API key or token is allowed to do",
        );
      }
    }
  });

  it("401 with an HTML page from a proxy: still says how to provide credentials", async () => {
    const error = await apiError(401, "<html>Unauthorized</html>", "text/html");
    expect(error.message).toContain("authentication failed (HTTP 401)");
    expect(error.message).toContain("CPCTL_API_KEY");
    expect(error.message).not.toContain("<html");
  });

  it("409: uses the detail string", async () => {
    const error = await apiError(409, JSON.stringify({ detail: "A deployment named x already exists." }));
    expect(error).toMatchObject({
      status: 409,
      code: "conflict",
      message: "A deployment named x already exists.",
    });
  });

  it("500 with an empty body: names the status and the request", async () => {
    const error = await apiError(500, "");
    expect(error.message).toBe(
      "the server answered HTTP 500 Internal Server Error with an empty body to GET /v2/deployments/d-1",
    );
    expect(error.body).toBeNull();
  });

  it("502 with an HTML page: says so and never dumps the HTML", async () => {
    const html = `<html><head><title>502 Bad Gateway</title></head><body>${"x".repeat(2000)}</body></html>`;
    const error = await apiError(502, html, "text/html; charset=utf-8");
    expect(error.status).toBe(502);
    expect(error.message).toContain("the server answered HTTP 502 with a non-JSON body (text/html)");
    expect(error.message).not.toContain("<");
    expect(error.body).toBe(html.slice(0, 500));
  });

  it("3xx: points at --base-url", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(301, { Location: "https://cp.example.com/v2/deployments" });
      res.end();
    });
    const error = await failure(client(server).get("/v2/deployments"), ApiError);
    expect(error.status).toBe(301);
    expect(error.message).toContain("redirect to https://cp.example.com/v2/deployments");
    expect(error.message).toContain("--base-url");
  });
});

describe("connections", () => {
  it("reuses one keep-alive connection across GETs and opens a fresh one for a POST", async () => {
    const server = await startServer((_req, res) => json(res, 200, {}));
    const c = client(server);
    for (let i = 0; i < 5; i++) await c.get("/v2/deployments");
    expect(server.connections()).toBe(1);
    await c.post("/v2/deployments", { name: "x" });
    expect(server.connections()).toBe(2);
  });
});

describe("paginate", () => {
  function listServer(total: number, offsetOf: (next: number) => number = (next) => next) {
    return startServer((req, res) => {
      const query = new URL(req.url, "http://x").searchParams;
      const limit = Number(query.get("limit"));
      const offset = Number(query.get("offset") ?? 0);
      const resources = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => ({
        id: offset + i,
      }));
      json(res, 200, { resources, offset: offsetOf(offset + resources.length) });
    });
  }

  async function collect<T>(pages: AsyncGenerator<T[]>): Promise<T[][]> {
    const out: T[][] = [];
    for await (const page of pages) out.push(page);
    return out;
  }

  it("one page at a time (window 1): follows offsets and stops on a short page", async () => {
    const server = await listServer(250);
    const pages = await collect(
      client(server, { pageWindow: 1 }).paginate<{ id: number }>("/v2/deployments", { name: "x" }),
    );
    expect(pages.map((p) => p.length)).toEqual([100, 100, 50]);
    expect(pages.flat().map((d) => d.id)).toEqual(Array.from({ length: 250 }, (_, i) => i));
    expect(server.requests.map((r) => r.url)).toEqual([
      "/v2/deployments?name=x&limit=100",
      "/v2/deployments?name=x&limit=100&offset=100",
      "/v2/deployments?name=x&limit=100&offset=200",
    ]);
  });

  it("stops on an empty page when the total is a multiple of the page size", async () => {
    const server = await listServer(40);
    const pages = await collect(
      client(server, { pageWindow: 1 }).paginate("/v2/deployments", {}, { pageSize: 20 }),
    );
    expect(pages.map((p) => p.length)).toEqual([20, 20]);
    expect(server.requests).toHaveLength(3);
  });

  it("with a window: the same pages in order, at most a window's worth asked past the end", async () => {
    // Answers come back out of order: later pages sooner.
    const server = await startServer((req, res) => {
      const query = new URL(req.url, "http://x").searchParams;
      const offset = Number(query.get("offset") ?? 0);
      const resources = Array.from({ length: Math.max(0, Math.min(10, 95 - offset)) }, (_, i) => ({
        id: offset + i,
      }));
      setTimeout(
        () => json(res, 200, { resources, offset: offset + resources.length }),
        Math.max(0, 30 - offset / 5),
      );
    });
    const pages = await collect(
      client(server, { pageWindow: 4 }).paginate<{ id: number }>("/v2/deployments", {}, { pageSize: 10 }),
    );
    expect(pages.flat().map((d) => d.id)).toEqual(Array.from({ length: 95 }, (_, i) => i));
    const asked = server.requests.map((r) =>
      Number(new URL(r.url, "http://x").searchParams.get("offset") ?? 0),
    );
    expect(new Set(asked).size).toBe(asked.length);
    expect(Math.max(...asked)).toBeLessThan(90 + 4 * 10);
  });

  it("with a window: offsets that are not offset + page size fall back to following the server", async () => {
    // The server's offsets are its own (every page's offset jumps by 1000).
    const server = await startServer((req, res) => {
      const offset = Number(new URL(req.url, "http://x").searchParams.get("offset") ?? 0);
      const page = offset / 1000;
      const resources = page < 3 ? Array.from({ length: 10 }, (_, i) => ({ id: page * 10 + i })) : [];
      json(res, 200, { resources, offset: (page + 1) * 1000 });
    });
    const pages = await collect(
      client(server, { pageWindow: 8 }).paginate<{ id: number }>("/v2/deployments", {}, { pageSize: 10 }),
    );
    expect(pages.flat().map((d) => d.id)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(server.requests.map((r) => r.url)).toEqual([
      "/v2/deployments?limit=10",
      "/v2/deployments?limit=10&offset=1000",
      "/v2/deployments?limit=10&offset=2000",
      "/v2/deployments?limit=10&offset=3000",
    ]);
  });

  it("a whole list whose offsets are its own: what was asked ahead is dropped, the server followed", async () => {
    const server = await startServer((req, res) => {
      const offset = Number(new URL(req.url, "http://x").searchParams.get("offset") ?? 0);
      const page = offset % 1000 === 0 ? offset / 1000 : Number.NaN;
      const resources = page < 3 ? Array.from({ length: 10 }, (_, i) => ({ id: page * 10 + i })) : [];
      json(res, 200, { resources, offset: (page + 1) * 1000 });
    });
    const pages = await collect(
      client(server, { pageWindow: 8 }).paginate<{ id: number }>("/v2/deployments", {}, { pageSize: 10 }),
    );
    expect(pages.flat().map((d) => d.id)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    const offsets = server.requests.map((r) => new URL(r.url, "http://x").searchParams.get("offset"));
    expect(offsets.filter((offset) => offset?.endsWith("000"))).toEqual(["1000", "2000", "3000"]);
  });

  it("with a window: the first error ends the list after the pages before it", async () => {
    const server = await startServer((req, res) => {
      const offset = Number(new URL(req.url, "http://x").searchParams.get("offset") ?? 0);
      if (offset === 30) return json(res, 500, { detail: "boom" });
      json(res, 200, {
        resources: Array.from({ length: 10 }, (_, i) => ({ id: offset + i })),
        offset: offset + 10,
      });
    });
    const seen: number[] = [];
    const error = await failure(
      (async () => {
        for await (const page of client(server, { pageWindow: 4 }).paginate<{ id: number }>(
          "/v2/deployments",
          {},
          { pageSize: 10 },
        ))
          seen.push(...page.map((d) => d.id));
      })(),
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it("with a window: a 429 halves the window", async () => {
    let inFlight = 0;
    let most = 0;
    let throttled = false;
    const server = await startServer((req, res) => {
      const offset = Number(new URL(req.url, "http://x").searchParams.get("offset") ?? 0);
      if (offset === 20 && !throttled) {
        throttled = true;
        return json(res, 429, { detail: "slow down" }, { "Retry-After": "0" });
      }
      inFlight++;
      // The first window (offsets 20 to 90) was asked before the 429; pages after it are asked
      // with the window halved, so they find at most 4 in flight.
      if (offset >= 100) most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight--;
        const resources = Array.from({ length: Math.max(0, Math.min(10, 200 - offset)) }, (_, i) => ({
          id: offset + i,
        }));
        json(res, 200, { resources, offset: offset + resources.length });
      }, 5);
    });
    const pages = await collect(
      client(server, { pageWindow: 8, retry: { maxAttempts: 3 } }).paginate<{ id: number }>(
        "/v2/deployments",
        {},
        { pageSize: 10 },
      ),
    );
    expect(pages.flat()).toHaveLength(200);
    expect(throttled).toBe(true);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(4);
  });

  it("refuses an offset the server already gave instead of looping forever", async () => {
    const server = await listServer(1000, () => 100);
    const error = await failure(
      collect(client(server, { pageWindow: 1 }).paginate("/v2/deployments")),
      NetworkError,
    );
    expect(error).toMatchObject({ kind: "bad_response" });
    expect(error.message).toContain("offset 100 twice");
    expect(server.requests).toHaveLength(2);
  });

  it("refuses a page without a resources list", async () => {
    const server = await startServer((_req, res) => json(res, 200, { items: [] }));
    const error = await failure(collect(client(server).paginate("/v2/deployments")));
    expect(error).toMatchObject({ kind: "bad_response" });
  });
});
