// Retries: what is repeated, what never is, Retry-After, and the give-up error. A real
// node:http server counts the requests; sleeps are recorded, never waited for.
import { afterAll, describe, expect, it } from "vitest";
import { failure } from "../../test/helpers/failure.js";
import { closedPort, drop, json, startServer } from "../../test/helpers/http-server.js";
import { ApiError, InterruptedError, NetworkError } from "../errors.js";
import { ApiClient, type ApiClientOptions } from "./client.js";
import { backoffDelayMs, DEFAULT_RETRY_POLICY, isRetryable, parseRetryAfter } from "./retry.js";
import { closeIdleConnections, nodeTransport, type Transport } from "./transport.js";

function clientFor(baseUrl: string, overrides: Partial<ApiClientOptions> = {}) {
  const delays: number[] = [];
  const client = new ApiClient({
    baseUrl,
    credentials: { apiKey: "k" },
    // Long enough for every Retry-After below: the deadline covers the waits too.
    requestTimeoutMs: 120_000,
    userAgent: "cpctl-test",
    random: () => 0.5,
    sleep: async (ms) => {
      delays.push(ms);
    },
    ...overrides,
  });
  return { client, delays };
}

afterAll(() => closeIdleConnections());

describe("retry-safe requests (GET)", () => {
  it.each([503, 429, 502, 504])(
    "retries %i up to maxAttempts, then says how many attempts were made",
    async (status) => {
      const server = await startServer((_req, res) => json(res, status, { detail: "busy" }));
      const { client, delays } = clientFor(server.url);
      const error = await failure(client.get("/v2/deployments"));
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(status);
      expect(server.count()).toBe(4);
      // Full jitter with random() = 0.5: half of 250, 500, 1000.
      expect(delays).toEqual([125, 250, 500]);
      expect((error as ApiError).hints).toContain("gave up after 4 attempts (GET /v2/deployments)");
    },
  );

  it("succeeds when a retry does", async () => {
    const server = await startServer((_req, res, n) =>
      n < 3 ? json(res, 503, {}) : json(res, 200, { ok: true }),
    );
    const { client, delays } = clientFor(server.url);
    const res = await client.get("/v2/deployments");
    expect(res.body).toEqual({ ok: true });
    expect(server.count()).toBe(3);
    expect(delays).toHaveLength(2);
  });

  it("retries a dropped connection, then fails with connection_reset", async () => {
    const server = await startServer(drop);
    const { client } = clientFor(server.url, { retry: { maxAttempts: 3 } });
    const error = await failure(client.get("/v2/deployments"));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ kind: "connection_reset", mayHaveReachedServer: true });
    expect(error.message).toContain(`127.0.0.1:${server.port}`);
    expect(server.count()).toBe(3);
    expect((error as NetworkError).hints).toContain("gave up after 3 attempts (GET /v2/deployments)");
  });

  it("does not retry a 500 or a 4xx", async () => {
    for (const status of [500, 400, 404, 409]) {
      const server = await startServer((_req, res) => json(res, status, {}));
      const { client, delays } = clientFor(server.url);
      await failure(client.get("/x"));
      expect(server.count()).toBe(1);
      expect(delays).toEqual([]);
    }
  });
});

describe("Retry-After", () => {
  it("honours seconds", async () => {
    const server = await startServer((_req, res, n) =>
      n === 1 ? json(res, 429, {}, { "Retry-After": "7" }) : json(res, 200, { ok: 1 }),
    );
    const { client, delays } = clientFor(server.url);
    await client.get("/x");
    expect(delays).toEqual([7000]);
  });

  it("honours an HTTP-date", async () => {
    const now = Date.UTC(2030, 0, 1, 12, 0, 0);
    const at = new Date(now + 5000).toUTCString();
    const server = await startServer((_req, res, n) =>
      n === 1 ? json(res, 503, {}, { "Retry-After": at }) : json(res, 200, { ok: 1 }),
    );
    const { client, delays } = clientFor(server.url, { now: () => now });
    await client.get("/x");
    expect(delays).toEqual([5000]);
  });

  it("gives up at once when it asks for longer than the cap", async () => {
    const server = await startServer((_req, res) =>
      json(res, 503, { detail: "maintenance" }, { "Retry-After": "3600" }),
    );
    const { client, delays } = clientFor(server.url);
    const error = await failure(client.get("/x"), ApiError);
    expect(error.retryAfterSeconds).toBe(3600);
    expect(server.count()).toBe(1);
    expect(delays).toEqual([]);
    expect(error.hints.join("\n")).toContain("retry after 3600s");
  });
});

describe("requests that must not be sent twice (POST, PATCH)", () => {
  it("does not retry a POST after a 503", async () => {
    const server = await startServer((_req, res) => json(res, 503, { detail: "busy" }));
    const { client, delays } = clientFor(server.url);
    const error = await failure(client.post("/v2/deployments", { name: "x" }), ApiError);
    expect(error.status).toBe(503);
    expect(server.count()).toBe(1);
    expect(delays).toEqual([]);
    expect(error.hints.join("\n")).toContain("not repeated automatically");
  });

  it("does not retry a PATCH after a dropped connection, and says it may have been applied", async () => {
    const server = await startServer(drop);
    const { client } = clientFor(server.url);
    const error = await failure(client.patch("/v2/deployments/d-1", { secrets: [] }));
    expect(error).toMatchObject({ kind: "connection_reset", mayHaveReachedServer: true });
    expect(server.count()).toBe(1);
    expect((error as NetworkError).hints.join("\n")).toContain(
      "PATCH /v2/deployments/d-1 may have been applied",
    );
  });

  it("does not retry a POST after a dropped connection", async () => {
    const server = await startServer(drop);
    const { client } = clientFor(server.url);
    await failure(client.post("/v2/deployments", { name: "x" }));
    expect(server.count()).toBe(1);
  });

  it("retries a POST when the connection was refused (it never reached the server)", async () => {
    const port = await closedPort();
    let calls = 0;
    const counting: Transport = (request) => {
      calls++;
      return nodeTransport(request);
    };
    const { client, delays } = clientFor(`http://127.0.0.1:${port}`, { transport: counting });
    const error = await failure(client.post("/v2/deployments", { name: "x" }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ kind: "unreachable", mayHaveReachedServer: false });
    expect(error.message).toBe(
      `connection refused by 127.0.0.1:${port}: is the control plane running at http://127.0.0.1:${port}? ` +
        "set --base-url or CPCTL_BASE_URL",
    );
    expect(calls).toBe(4);
    expect(delays).toHaveLength(3);
    expect((error as NetworkError).hints).toContain("gave up after 4 attempts (POST /v2/deployments)");
  });

  it("sends a POST twice when the caller says it is retry-safe", async () => {
    const server = await startServer((_req, res, n) => (n === 1 ? json(res, 503, {}) : json(res, 200, {})));
    const { client } = clientFor(server.url);
    await client.post("/v2/deployments/d-1/upload-url", {}, { retrySafe: true });
    expect(server.count()).toBe(2);
  });
});

describe("interruption", () => {
  it("stops waiting between attempts when the signal aborts", async () => {
    const server = await startServer((_req, res) => json(res, 503, {}));
    const controller = new AbortController();
    const { client } = clientFor(server.url, {
      signal: controller.signal,
      sleep: async () => {
        controller.abort();
        throw new InterruptedError();
      },
    });
    const error = await failure(client.get("/x"));
    expect(error).toBeInstanceOf(InterruptedError);
    expect(server.count()).toBe(1);
  });
});

describe("retry helpers", () => {
  it("parses Retry-After", () => {
    const now = Date.UTC(2030, 0, 1);
    expect(parseRetryAfter("120", now)).toBe(120);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter(new Date(now + 2500).toUTCString(), now)).toBe(2);
    expect(parseRetryAfter(new Date(now - 60_000).toUTCString(), now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });

  it("backs off exponentially up to maxDelayMs, with full jitter", () => {
    const top = (failures: number) => backoffDelayMs(failures, DEFAULT_RETRY_POLICY, () => 0.999999);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(top)).toEqual([249, 499, 999, 1999, 3999, 7999, 7999, 7999]);
    expect(backoffDelayMs(3, DEFAULT_RETRY_POLICY, () => 0)).toBe(0);
  });

  it("decides what is retryable", () => {
    const reached = new NetworkError("reset", "connection_reset", true);
    const refused = new NetworkError("refused", "unreachable", false);
    const connectTimeout = new NetworkError("slow", "timeout", false);
    const bad = new NetworkError("bad", "bad_response", true);
    const busy = new ApiError(503, "busy", null, "GET", "/x");
    const notFound = new ApiError(404, "nope", null, "GET", "/x");
    expect([reached, refused, connectTimeout, bad, busy, notFound].map((e) => isRetryable(e, true))).toEqual([
      true,
      true,
      true,
      false,
      true,
      false,
    ]);
    expect([reached, refused, connectTimeout, bad, busy, notFound].map((e) => isRetryable(e, false))).toEqual(
      [false, true, true, false, false, false],
    );
  });
});
