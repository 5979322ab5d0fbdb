// The per-request options the reliability work added: a deadline and an attempt count of
// their own, a request the client's (Ctrl-C) signal cannot abort, statuses that mean "an
// earlier attempt did it", the unreadable-body error, the interrupted-in-flight marker, and
// secret values kept out of the trace.
import { afterAll, describe, expect, it } from "vitest";
import { failure } from "../../test/helpers/failure.js";
import { json, startServer } from "../../test/helpers/http-server.js";
import { InterruptedError, NetworkError } from "../errors.js";
import { ApiClient, type ApiClientOptions } from "./client.js";
import { UnreadableBodyError } from "./retry.js";
import { closeIdleConnections, RequestInterruptedError } from "./transport.js";

const client = (url: string, extra: Partial<ApiClientOptions> = {}) =>
  new ApiClient({
    baseUrl: url,
    credentials: { apiKey: "key-0123456789" },
    requestTimeoutMs: 5000,
    userAgent: "t",
    sleep: async () => {},
    ...extra,
  });

afterAll(() => closeIdleConnections());

describe("per-request options", () => {
  it("timeoutMs overrides the client's deadline, maxAttempts its retry count", async () => {
    const hung = await startServer(() => {}); // never answers
    const error = await failure(client(hung.url).get("/x", { timeoutMs: 50, maxAttempts: 2 }), NetworkError);
    expect(error.message).toContain("within 50ms");
    // The one attempt spent the whole deadline.
    expect(hung.count()).toBe(1);
    const resetting = await startServer((_req, res) => res.req.socket.destroy());
    const reset = await failure(client(resetting.url).get("/x", { maxAttempts: 2 }), NetworkError);
    expect(resetting.count()).toBe(2);
    expect(reset.hints).toContain("gave up after 2 attempts (GET /x)");
  });

  it("a detached request ignores the client's aborted signal, and obeys its own", async () => {
    const server = await startServer((_req, res) => json(res, 200, { ok: true }));
    const aborted = AbortSignal.abort();
    const c = client(server.url, { signal: aborted });
    await expect(c.get("/x")).rejects.toBeInstanceOf(InterruptedError);
    expect((await c.get("/x", { detached: true })).body).toEqual({ ok: true });
    await expect(c.get("/x", { detached: true, signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      InterruptedError,
    );
  });

  it("doneOnRetry: a 404 to a retry means the lost first attempt did the work", async () => {
    const server = await startServer((_req, res, n) => {
      if (n === 1) return void res.req.socket.destroy();
      json(res, 404, { detail: "gone" });
    });
    const res = await client(server.url).delete("/v2/deployments/d", { doneOnRetry: [404] });
    expect(res).toMatchObject({ status: 404, body: null });
    expect(server.count()).toBe(2);
    // The same 404 to a first attempt is the error it always was.
    await expect(
      client(server.url).delete("/v2/deployments/d", { doneOnRetry: [404] }),
    ).rejects.toMatchObject({ status: 404 });
  });
});

describe("unreadable bodies", () => {
  it("a 2xx JSON body cut short: a safe call asks again, an unsafe one says it was carried out", async () => {
    const server = await startServer((_req, res, n) => {
      if (n === 1 || n === 3) {
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": 5 });
        return void res.end('{"id"');
      }
      json(res, 200, { id: "d" });
    });
    expect((await client(server.url).get("/x")).body).toEqual({ id: "d" });
    const error = await failure(client(server.url).patch("/x", { a: 1 }), UnreadableBodyError);
    expect(error.message).toContain("(so it was carried out)");
    expect(error.hints.join("\n")).toContain("was carried out (HTTP 200)");
    expect(server.count()).toBe(3);
  });

  it("a 2xx body that is not JSON at all is still a wrong-server error, not retried", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end("<html></html>");
    });
    const error = await failure(client(server.url).get("/x"));
    expect(error).not.toBeInstanceOf(UnreadableBodyError);
    expect(server.count()).toBe(1);
  });
});

describe("interrupted in flight", () => {
  it("Ctrl-C after the request went out: marked as possibly reached", async () => {
    const controller = new AbortController();
    const server = await startServer(() => controller.abort());
    const error = await failure(
      client(server.url, { signal: controller.signal }).post("/v2/deployments", { name: "x" }),
      RequestInterruptedError,
    );
    expect(error.mayHaveReachedServer).toBe(true);
  });

  it("Ctrl-C before anything was sent: not reached", async () => {
    const server = await startServer((_req, res) => json(res, 200, {}));
    const error = await failure(
      client(server.url, { signal: AbortSignal.abort() }).post("/v2/deployments", {}),
    );
    expect(error).toBeInstanceOf(InterruptedError);
    expect(error instanceof RequestInterruptedError && error.mayHaveReachedServer).toBe(false);
    expect(server.count()).toBe(0);
  });
});

describe("5xx and 429 messages", () => {
  it("name the status and the request along with the server's own words", async () => {
    const server = await startServer((_req, res) => json(res, 503, { detail: "Service Unavailable" }));
    const error = await failure(client(server.url).get("/v2/deployments", { maxAttempts: 1 }));
    expect(error.message).toBe(
      "the server answered HTTP 503 Service Unavailable to GET /v2/deployments: Service Unavailable",
    );
  });
});

describe("known secrets in the trace", () => {
  it("values the command handled are redacted wherever a server echoes them", async () => {
    const secret = "sv_trace_SECRET_0123456789";
    const server = await startServer((_req, res) =>
      json(res, 400, {
        detail: `bad value ${secret}`,
        echo: [{ loc: ["body", "secrets", 0, "value"], input: secret }],
      }),
    );
    const lines: string[] = [];
    const known = new Set<string>();
    const c = client(server.url, { trace: (line) => lines.push(line), knownSecrets: () => known });
    known.add(secret); // learnt after the client was made, as buildBody does
    const error = await failure(c.post("/v2/deployments", { secrets: [{ name: "A", value: secret }] }));
    expect(lines.join("\n")).not.toContain(secret);
    expect(error.message).not.toContain(secret);
    expect(JSON.stringify((error as { details?: unknown }).details)).not.toContain(secret);
  });

  it("a 422 item about a secret has its echoed input masked even in an unknown-secret trace", async () => {
    const server = await startServer((_req, res) =>
      json(res, 422, {
        detail: [
          {
            loc: ["body", "secrets", 0, "value"],
            msg: "too long",
            type: "x",
            input: "sv_unknown_to_the_client",
          },
        ],
      }),
    );
    const lines: string[] = [];
    await failure(client(server.url, { trace: (line) => lines.push(line) }).post("/v2/deployments", {}));
    expect(lines.join("\n")).not.toContain("sv_unknown_to_the_client");
    expect(lines.join("\n")).toContain('"input":"****"');
  });
});
