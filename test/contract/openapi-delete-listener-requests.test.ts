// Contract test: the requests `deploy delete` (one, several, --force) and `listeners
// list|get|create|update|delete` send validate against the hosted service's published
// interface (test/fixtures/control-plane.openapi.json): each is a documented operation, its
// path and query fit the document's parameters (no parameter it does not name: the bulk
// delete gets no `force`), and its body the document's request schema. The CLI runs against
// the emulator through a recorder that keeps each request as it was sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { json, type RecordedRequest, startServer, type TestServer } from "../helpers/http-server.js";
import {
  checkParameters,
  checkRequest,
  documentedOperations,
  type OperationRef,
  operation,
} from "../helpers/openapi.js";
import { cliEnv, runCli } from "../helpers/run-cli.js";

/** The documented operation a request is, and its path's values; null when it is none. */
function documented(request: RecordedRequest): { op: OperationRef; values: Record<string, string> } | null {
  const path = new URL(request.url, "http://x").pathname;
  for (const op of documentedOperations()) {
    if (op.method !== request.method) continue;
    const names: string[] = [];
    const pattern = new RegExp(
      `^${op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
        names.push(name);
        return "([^/]+)";
      })}$`,
    );
    const match = pattern.exec(path);
    // A literal path (free-count) wins over a template that would take it for an ID.
    if (
      match &&
      (names.length === 0 || !documentedOperations().some((o) => o.path === path && o.method === op.method))
    ) {
      return {
        op,
        values: Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)])),
      };
    }
  }
  return null;
}

describe("the delete and listener requests the CLI sends validate against the document", () => {
  let em: TestEmulator;
  let recorder: TestServer;
  const sent: RecordedRequest[] = [];

  async function cli(args: string[], code = 0): Promise<void> {
    const before = recorder.requests.length;
    const r = await runCli(args, { env: cliEnv({ ...em, url: recorder.url }) });
    expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(code);
    sent.push(...recorder.requests.slice(before));
  }

  beforeAll(async () => {
    em = await startTestEmulator();
    recorder = await startServer(async (req, res) => {
      const answer = await em.request(req.method, req.url, {
        ...(req.bytes.length ? { rawBody: req.bytes } : {}),
        headers: { "Content-Type": String(req.headers["content-type"] ?? "application/json") },
      });
      if (answer.status === 204) res.writeHead(204).end();
      else json(res, answer.status, answer.json);
    });
    for (const name of ["one", "two", "three", "four", "five", "six"])
      await em.createDeployment("internal_container", name);
    await cli(["deploy", "delete", "one", "--yes"]);
    await cli(["deploy", "delete", "two", "three", "--yes"]);
    await cli(["deploy", "delete", "four", "--force", "--yes"]);
    await cli(["deploy", "delete", "five", "six", "--force", "--yes"]);

    await cli(["listeners", "list"]);
    await cli([
      "listeners",
      "create",
      "--compute-id",
      "contract",
      "--k8s-namespace",
      "a",
      "--k8s-namespace",
      "b",
    ]);
    await cli(["listeners", "create", "--compute-id", "bare"]);
    await cli(["listeners", "create", "--compute-id", "contract"], 1);
    await cli(["listeners", "get", "contract"]);
    const id = (await em.get("/v2/listeners?limit=100")).json.resources.at(-2).id as string;
    await cli(["listeners", "get", id]);
    await cli(["listeners", "update", "contract", "--add-k8s-namespace", "c"]);
    await cli(["listeners", "update", id, "--remove-k8s-namespace", "a"]);
    await cli(["listeners", "update", "contract", "--k8s-namespace", "z"]);
    await cli(["listeners", "update", "bare", "--remove-k8s-namespace", "x"]);
    await cli(["listeners", "delete", "contract", "--yes"]);
  });

  afterAll(async () => {
    await recorder?.close();
    await em?.close();
  });

  it("each request is a documented operation with a valid path, query and body", () => {
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const request of sent) {
      const found = documented(request);
      if (!found) {
        problems.push(`${request.method} ${request.url}: not an operation of the document`);
        continue;
      }
      const key = `${found.op.method} ${found.op.path}`;
      seen.add(key);
      const url = new URL(request.url, "http://x");
      // The spec's exact-name filter, which names resolve with: a known difference
      // (openapi-responses.test.ts, "the spec wins").
      if (key === "GET /v2/deployments") url.searchParams.delete("name");
      const parameters = operation(found.op)?.parameters
        ? checkParameters(found.op, found.values, url.searchParams)
        : null;
      if (parameters) problems.push(`${request.method} ${request.url}: ${parameters}`);
      if (request.body) {
        const body = checkRequest(found.op, JSON.parse(request.body));
        if (body) problems.push(`${request.method} ${request.url}: ${body}`);
      }
    }
    expect(problems).toEqual([]);
    expect([...seen].sort()).toEqual(
      expect.arrayContaining([
        "DELETE /v2/deployments",
        "DELETE /v2/deployments/{deployment_id}",
        "GET /v2/listeners",
        "GET /v2/listeners/{listener_id}",
        "POST /v2/listeners",
        "PATCH /v2/listeners/{listener_id}",
        "DELETE /v2/listeners/{listener_id}",
      ]),
    );
  });

  it("--force is force=true on the single call, never on the bulk one", () => {
    const deletes = sent.filter((r) => r.method === "DELETE" && r.url.startsWith("/v2/deployments"));
    const urls = deletes.map((r) => new URL(r.url, "http://x"));
    const bulk = urls.filter((u) => u.pathname === "/v2/deployments");
    expect(bulk).toHaveLength(1);
    expect(bulk[0]!.searchParams.getAll("deployment_ids")).toHaveLength(2);
    expect(bulk[0]!.searchParams.has("force")).toBe(false);
    const forced = urls.filter((u) => u.searchParams.get("force") === "true");
    expect(forced).toHaveLength(3);
  });

  it("the checks are not vacuous: the document refuses force on the bulk call, and a bad listener body", () => {
    const bulk = { method: "DELETE", path: "/v2/deployments" };
    const query = new URLSearchParams([
      ["deployment_ids", "7c0e7c52-1b1f-4c36-a0cf-5d2b6c0a0c11"],
      ["force", "true"],
    ]);
    expect(checkParameters(bulk, {}, query)).toMatch(/force: not a parameter/);
    const create = { method: "POST", path: "/v2/listeners" };
    expect(checkRequest(create, { compute_type: "vm", compute_id: "x", compute_config: {} })).toMatch(
      /compute_type/,
    );
    expect(checkRequest(create, { compute_type: "k8s", compute_config: {} })).toMatch(/compute_id/);
    const patch = { method: "PATCH", path: "/v2/listeners/{listener_id}" };
    expect(checkRequest(patch, { compute_config: { k8s_namespaces: "a" } })).toMatch(/k8s_namespaces/);
  });
});
