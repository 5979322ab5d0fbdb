// A server (or whatever answers at the address) that sends far more than any answer of the
// API holds: hundreds of megabytes, endlessly, or a Content-Length that says so. cpctl reads at
// most a cap per kind of answer (an API answer 64 MiB unless CPCTL_MAX_RESPONSE_MB says
// otherwise, an error answer 1 MiB), stops there, and says which cap and how to raise it; an
// oversized answer is never asked for again. The server counts what it managed to send: the
// client's memory holds no more than that.
import type { ServerResponse } from "node:http";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { closeIdleConnections } from "../../src/api/transport.js";
import { type RecordedRequest, startServer } from "../helpers/http-server.js";
import { startProxy } from "../helpers/proxy.js";
import { runCli } from "../helpers/run-cli.js";
import { expectCleanOutput, jsonError, report } from "./helpers.js";

afterEach(() => closeIdleConnections());

const MiB = 1024 * 1024;
/** What a client that reads on would get: more than any cap, less than the machine's memory. */
const ENDLESS = 600 * MiB;
const ID = "0d15ea5e-0000-4000-8000-0000000000aa";
const figures: Record<string, number> = {};
afterAll(() => report("oversized answers", figures));

/** Writes `total` bytes of a JSON-looking body as fast as the client takes them; counts them. */
function flood(
  res: ServerResponse,
  status: number,
  total: number,
  sent: { bytes: number },
  declared?: number,
) {
  res.writeHead(status, {
    "Content-Type": status < 300 ? "application/json" : "text/html",
    ...(declared === undefined ? {} : { "Content-Length": String(declared) }),
  });
  const chunk = Buffer.alloc(MiB, 0x20);
  const pump = () => {
    while (sent.bytes < total && !res.destroyed) {
      sent.bytes += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    res.end();
  };
  res.socket?.on("close", () => {
    sent.bytes = Math.min(sent.bytes, total);
  });
  res.write(status < 300 ? '{"resources":[' : "<html>");
  pump();
}

async function floodingServer(status: number, declare = false) {
  const sent = { bytes: 0 };
  const server = await startServer((_req: RecordedRequest, res) =>
    flood(res, status, ENDLESS, sent, declare ? ENDLESS : undefined),
  );
  return { server, sent, env: { CPCTL_BASE_URL: server.url, CPCTL_API_KEY: "k" } };
}

describe("an answer larger than cpctl reads", () => {
  it("a 600 MB list answer: stopped at 64 MiB, the cap and its variable named, asked once", async () => {
    const { server, sent, env } = await floodingServer(200);
    const r = await runCli(["deploy", "list", "-o", "json"], { env });
    expect(r.code).toBe(1);
    expectCleanOutput(r);
    expect(jsonError(r.stderr)).toMatchObject({
      code: "response_too_large",
      message:
        "the answer to GET /v2/deployments is larger than 64 MiB, the most cpctl reads from the control plane; it was not read whole\nIf such an answer is expected, raise the limit: CPCTL_MAX_RESPONSE_MB=128",
    });
    expect(server.requests).toHaveLength(1);
    // Read no further than the cap (and what the sockets held): memory stays bounded.
    expect(sent.bytes).toBeLessThan(64 * MiB + 16 * MiB);
    figures.list_bytes_sent = sent.bytes;
  });

  it("through a proxy (the undici transport): the same cap, the same message", async () => {
    const { server, sent, env } = await floodingServer(200);
    const proxy = await startProxy();
    const r = await runCli(["deploy", "list", "-o", "json"], { env: { ...env, HTTP_PROXY: proxy.url } });
    expect(r.code).toBe(1);
    expect(jsonError(r.stderr)).toMatchObject({ code: "response_too_large" });
    expect(proxy.forwarded).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
    // The proxy's own buffers come on top of the client's: still nowhere near 600 MB.
    expect(sent.bytes).toBeLessThan(64 * MiB + 64 * MiB);
    figures.proxy_bytes_sent = sent.bytes;
  });

  it("a Content-Length over the cap: refused before reading the body", async () => {
    const { sent, env } = await floodingServer(200, true);
    const r = await runCli(["deploy", "get", ID, "-o", "json"], { env });
    expect(r.code).toBe(1);
    expect(jsonError(r.stderr).code).toBe("response_too_large");
    expect(sent.bytes).toBeLessThan(16 * MiB);
    figures.declared_bytes_sent = sent.bytes;
  });

  it("CPCTL_MAX_RESPONSE_MB lowers (or raises) the cap; a bad value is a usage error", async () => {
    const server = await startServer((_req, res) => {
      const body = JSON.stringify({ resources: [], offset: 0, padding: "x".repeat(2 * MiB) });
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(body);
    });
    const env = { CPCTL_BASE_URL: server.url, CPCTL_API_KEY: "k" };
    expect((await runCli(["deploy", "list", "-o", "json"], { env })).code).toBe(0);
    const low = await runCli(["deploy", "list", "-o", "json"], {
      env: { ...env, CPCTL_MAX_RESPONSE_MB: "1" },
    });
    expect(low.code).toBe(1);
    expect(jsonError(low.stderr).message).toContain("larger than 1 MiB");
    const bad = await runCli(["deploy", "list"], { env: { ...env, CPCTL_MAX_RESPONSE_MB: "lots" } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("CPCTL_MAX_RESPONSE_MB: 'lots' is not a whole number of MiB from 1 to 4096");
  });

  it("an endless error page: its first MiB is enough to report the status; retried as its status says", async () => {
    const { server, sent, env } = await floodingServer(503);
    const r = await runCli(["deploy", "list", "-o", "json"], { env });
    expect(r.code).toBe(1);
    expectCleanOutput(r);
    expect(jsonError(r.stderr)).toMatchObject({ code: "server_error", status: 503 });
    // Four attempts (a 503 is retried), each reading at most about a MiB.
    expect(server.requests).toHaveLength(4);
    expect(sent.bytes).toBeLessThan(4 * (1 * MiB + 16 * MiB));
    figures.error_page_bytes_sent = sent.bytes;
  });

  it("a PATCH answered with an endless 200: carried out, said so, never sent again", async () => {
    const sent = { bytes: 0 };
    const server = await startServer((req, res) => {
      if (req.method === "PATCH") return flood(res, 200, ENDLESS, sent);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(
        JSON.stringify({
          id: ID,
          name: "big",
          source: "external_container",
          source_config: { resource_spec: null },
          source_revision_config: { image_uri: "r.example.com/a:1" },
          secrets: [],
          secret_references: [],
          tenant_id: "11111111-1111-4111-8111-111111111111",
          created_at: "2026-11-21T12:00:00Z",
          updated_at: "2026-11-21T12:00:00Z",
          status: "READY",
          latest_revision_id: null,
          active_revision_id: null,
        }),
      );
    });
    const r = await runCli(["deploy", "patch", ID, "--image-uri", "r.example.com/a:2", "--yes"], {
      env: { CPCTL_BASE_URL: server.url, CPCTL_API_KEY: "k" },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error: the answer to PATCH /v2/deployments/${ID} (HTTP 200, so it was carried out) is larger than 64 MiB`,
    );
    expect(r.stderr).toContain(`See the deployment's current state with: cpctl deploy get ${ID}`);
    expect(server.requests.filter((q) => q.method === "PATCH")).toHaveLength(1);
  });
});
