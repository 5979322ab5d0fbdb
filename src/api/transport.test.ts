// The node:http transport: responses, the whole-exchange deadline, abort, and how socket
// failures are mapped. Servers that never answer make the timeouts deterministic.
import { afterAll, describe, expect, it } from "vitest";
import { failure } from "../../test/helpers/failure.js";
import { startServer } from "../../test/helpers/http-server.js";
import { InterruptedError, NetworkError, UsageError } from "../errors.js";
import { ApiClient } from "./client.js";
import { closeIdleConnections, nodeTransport, type TransportRequest } from "./transport.js";

function request(url: string, extra: Partial<TransportRequest> = {}): Promise<unknown> {
  return nodeTransport({ method: "GET", url, headers: {}, timeoutMs: 5000, ...extra });
}

const never = () => {};

afterAll(() => closeIdleConnections());

describe("nodeTransport", () => {
  it("returns status, lower-case headers and the body as a Buffer", async () => {
    const server = await startServer((req, res) => {
      res.writeHead(201, { "X-Request-ID": "r-1", "Content-Type": "application/json" });
      res.end(`{"method":"${req.method}"}`);
    });
    const res = await nodeTransport({
      method: "POST",
      url: `${server.url}/v2/deployments`,
      headers: { "Content-Type": "application/json" },
      body: Buffer.from("{}"),
      timeoutMs: 5000,
    });
    expect(res.status).toBe(201);
    expect(res.headers["x-request-id"]).toBe("r-1");
    expect(Buffer.isBuffer(res.body)).toBe(true);
    expect(res.body.toString()).toBe('{"method":"POST"}');
  });

  it("times out a server that never answers, destroying the socket", async () => {
    let closed = false;
    const server = await startServer((_req, res) => res.req.socket.on("close", () => (closed = true)));
    const error = await failure(request(`${server.url}/v2/deployments`, { timeoutMs: 100 }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ kind: "timeout", code: "timeout", mayHaveReachedServer: true });
    expect(error.message).toContain(`no complete answer from 127.0.0.1:${server.port} within 100ms`);
    expect(error.message).toContain("--request-timeout");
    await expect.poll(() => closed).toBe(true);
  });

  it("times out a body that starts but never ends (the deadline covers the whole exchange)", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "Content-Length": "100" });
      res.write("{");
    });
    const error = await failure(request(server.url, { timeoutMs: 100 }));
    expect(error).toMatchObject({ kind: "timeout" });
  });

  it("maps a body cut short to connection_reset", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "Content-Length": "100" });
      res.write("{", () => res.socket?.destroy());
    });
    const error = await failure(request(server.url));
    expect(error).toMatchObject({ kind: "connection_reset", mayHaveReachedServer: true });
    expect(error.message).toContain(`127.0.0.1:${server.port}`);
  });

  it("maps a refused connection to unreachable, never reached", async () => {
    const server = await startServer(never);
    const url = server.url;
    await server.close();
    const error = await failure(request(`${url}/v2/x`));
    expect(error).toMatchObject({ kind: "unreachable", mayHaveReachedServer: false });
    expect(error.message).toContain(
      `is the control plane running at ${url}? set --base-url or CPCTL_BASE_URL`,
    );
  });

  it("rejects with InterruptedError when the signal aborts mid-request", async () => {
    const controller = new AbortController();
    const server = await startServer(() => controller.abort());
    const error = await failure(request(server.url, { signal: controller.signal }));
    expect(error).toBeInstanceOf(InterruptedError);
    expect(server.count()).toBe(1);
  });

  it("sends nothing when the signal is already aborted", async () => {
    const server = await startServer(never);
    const error = await failure(request(server.url, { signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(InterruptedError);
    expect(server.count()).toBe(0);
  });

  it("refuses a URL that is not http(s)", async () => {
    expect(await failure(request("ftp://127.0.0.1/x"))).toBeInstanceOf(UsageError);
  });
});

describe("ApiClient deadlines and interruption", () => {
  function client(url: string, signal?: AbortSignal) {
    return new ApiClient({
      baseUrl: url,
      credentials: {},
      requestTimeoutMs: 100,
      userAgent: "t",
      signal,
      retry: { maxAttempts: 2 },
      sleep: async () => {},
    });
  }

  it("a timed-out GET spends the request's deadline: it fails with kind timeout, not asked again", async () => {
    const server = await startServer(never);
    const error = await failure(client(server.url).get("/v2/deployments"));
    expect(error).toMatchObject({ kind: "timeout" });
    expect(server.count()).toBe(1);
  });

  it("a timed-out POST that reached the server is not sent again", async () => {
    const server = await startServer(never);
    const error = await failure(client(server.url).post("/v2/deployments", { name: "x" }));
    expect(error).toMatchObject({ kind: "timeout", mayHaveReachedServer: true });
    expect(server.count()).toBe(1);
  });

  it("the client's signal interrupts a request", async () => {
    const controller = new AbortController();
    const server = await startServer(() => controller.abort());
    const error = await failure(client(server.url, controller.signal).get("/x"));
    expect(error).toBeInstanceOf(InterruptedError);
    expect(server.count()).toBe(1);
  });
});
