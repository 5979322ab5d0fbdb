// The rule that picks the log endpoint (log-endpoints.ts), against a server of the test's own
// whose v2 and v1 answers each test chooses: v2 first; on its 404 the same read once on v1;
// v1's answer makes the fallback stick for the rest of the run, v1's 404 is a real not-found
// (v2's error, nothing remembered), any other failure of v1 is thrown and nothing remembered.
import { afterAll, describe, expect, it } from "vitest";
import { json, startServer, type TestServer } from "../../test/helpers/http-server.js";
import { ApiError } from "../errors.js";
import { ApiClient } from "./client.js";
import type { LogSource } from "./endpoints.js";
import { LogEndpoints } from "./log-endpoints.js";
import { closeIdleConnections } from "./transport.js";

afterAll(() => closeIdleConnections());

const D = "11111111-2222-4333-8444-555555555555";
const R = "66666666-7777-4888-8999-aaaaaaaaaaaa";
const PAGE = {
  logs: [{ id: "e1", timestamp: "2026-01-01T00:00:00.000Z", level: "INFO", message: "hi" }],
  next_offset: null,
};

/** A server whose v2 log reads answer `v2` and v1 reads `v1` (status, body). */
async function server(v2: [number, unknown], v1: [number, unknown]): Promise<TestServer> {
  return startServer((req, res) => {
    const [status, body] = req.url.startsWith("/v2/") ? v2 : v1;
    json(res, status, body);
  });
}

function endpoints(s: TestServer, said: string[] = []): LogEndpoints {
  const api = new ApiClient({
    baseUrl: s.url,
    credentials: {},
    requestTimeoutMs: 5000,
    userAgent: "cpctl-test/0.0.0",
    retry: { maxAttempts: 1 },
    sleep: async () => {},
  });
  return new LogEndpoints(api, (line) => said.push(line));
}

const paths = (s: TestServer) => s.requests.map((r) => `${r.method} ${r.url}`);

describe("the log endpoint", () => {
  it("v2 answers: every read is a GET of v2, the source's type and the query in its query string", async () => {
    const s = await server([200, PAGE], [500, {}]);
    const logs = endpoints(s);
    const build: LogSource = { kind: "build", deploymentId: D, revisionId: R };
    const runtime: LogSource = { kind: "runtime", deploymentId: D, revisionId: R, wholeDeployment: true };
    expect(await logs.read(build, { order: "asc", limit: 1000, offset: "c1", level: "ERROR" })).toEqual(PAGE);
    await logs.read(runtime, {
      query: "a b",
      start_time: "2026-01-01T00:00:00.000Z",
      end_time: "2026-01-02T00:00:00.000Z",
    });
    expect(paths(s)).toEqual([
      `GET /v2/deployments/${D}/revisions/${R}/logs?type=build&order=asc&limit=1000&offset=c1&level=ERROR`,
      `GET /v2/deployments/${D}/revisions/${R}/logs?type=deploy&query=a+b&start_time=2026-01-01T00%3A00%3A00.000Z&end_time=2026-01-02T00%3A00%3A00.000Z`,
    ]);
    expect(logs.version).toBe("v2");
  });

  it("v2 404, v1 answers: the same read on v1, and every later one there alone (one v2 404 in all)", async () => {
    const s = await server([404, { detail: "Not Found" }], [200, PAGE]);
    const said: string[] = [];
    const logs = endpoints(s, said);
    const runtime: LogSource = { kind: "runtime", deploymentId: D, revisionId: R, wholeDeployment: true };
    expect(await logs.read(runtime, { order: "desc", limit: 5, offset: "c9" })).toEqual(PAGE);
    expect(logs.version).toBe("v1");
    await logs.read({ kind: "build", deploymentId: D, revisionId: R }, { order: "asc" });
    await logs.read({ kind: "runtime", deploymentId: D, revisionId: R }, {});
    expect(paths(s)).toEqual([
      `GET /v2/deployments/${D}/revisions/${R}/logs?type=deploy&order=desc&limit=5&offset=c9`,
      `POST /v1/projects/${D}/deploy_logs`,
      `POST /v1/projects/${D}/revisions/${R}/build_logs`,
      `POST /v1/projects/${D}/revisions/${R}/deploy_logs`,
    ]);
    // The same read: the query as v1's body, cursor included.
    expect(JSON.parse(s.requests[1]!.body)).toEqual({ order: "desc", limit: 5, offset: "c9" });
    expect(said.join("\n")).toMatch(/reading GET \/v2\/deployments\/.+\/logs \(the documented endpoint/);
    expect(said.join("\n")).toMatch(
      /answered 404 \("Not Found"\) and POST \/v1\/projects\/.+\/deploy_logs answered: this service has no v2 log endpoint; the rest of this command reads \/v1\/projects/,
    );
  });

  it("v2 404 and v1 404: not found, with v2's error; nothing remembered (the next read asks v2 again)", async () => {
    const s = await server(
      [404, { detail: `Deployment ID ${D} not found.` }],
      [404, { detail: "Not Found" }],
    );
    const said: string[] = [];
    const logs = endpoints(s, said);
    const source: LogSource = { kind: "build", deploymentId: D, revisionId: R };
    for (let i = 0; i < 2; i++) {
      const error = await logs.read(source, {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(404);
      expect((error as ApiError).message).toContain(`Deployment ID ${D} not found.`);
      expect(logs.version).toBe("v2");
    }
    expect(paths(s).map((p) => p.split(" ")[0])).toEqual(["GET", "POST", "GET", "POST"]);
    expect(said.join("\n")).toContain("answered 404 too: the deployment or revision is not there");
  });

  it("v2 404 and v1 failing otherwise: v1's error, nothing remembered", async () => {
    const s = await server(
      [404, { detail: "Not Found" }],
      [422, { detail: [{ loc: ["body", "offset"], msg: "bad", type: "value_error" }] }],
    );
    const logs = endpoints(s);
    const error = await logs
      .read({ kind: "build", deploymentId: D, revisionId: R }, { offset: "v2-cursor" })
      .catch((e: unknown) => e);
    expect((error as ApiError).status).toBe(422);
    expect(logs.version).toBe("v2");
  });

  it("v2 failing otherwise (not 404): its error, and no v1 call", async () => {
    const s = await server([403, { detail: "Forbidden" }], [200, PAGE]);
    const logs = endpoints(s);
    const error = await logs
      .read({ kind: "build", deploymentId: D, revisionId: R }, {})
      .catch((e: unknown) => e);
    expect((error as ApiError).status).toBe(403);
    expect(paths(s)).toHaveLength(1);
  });
});
