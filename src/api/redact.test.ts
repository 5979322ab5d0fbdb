// Redaction and the --debug trace: credentials and secret values never appear; the method,
// path, tenant and status do.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { type Handler, startServer } from "../../test/helpers/http-server.js";
import { ApiClient } from "./client.js";
import { createTracer, maskSecretValues, redactHeaders, redactText, redactUrl } from "./redact.js";
import { closeIdleConnections } from "./transport.js";

describe("redactHeaders", () => {
  it("hides credentials and anything named like one, keeps the rest", () => {
    const out = redactHeaders({
      "X-Api-Key": "k",
      Authorization: "Bearer t",
      Cookie: "a=b",
      "Set-Cookie": ["a=b", "c=d"],
      "X-Session-Token": "s",
      "X-Client-Secret": "s",
      "X-Tenant-Id": "tenant-1",
      Accept: "application/json",
      "X-Skipped": undefined,
    });
    expect(out).toEqual({
      "X-Api-Key": "[redacted]",
      Authorization: "[redacted]",
      Cookie: "[redacted]",
      "Set-Cookie": "[redacted]",
      "X-Session-Token": "[redacted]",
      "X-Client-Secret": "[redacted]",
      "X-Tenant-Id": "tenant-1",
      Accept: "application/json",
    });
  });

  it("keeps a tenant header visible even if its name looks secret, but never a credential header", () => {
    const out = redactHeaders({ "X-Auth-Tenant": "w-1", Authorization: "Bearer t" }, [
      "x-auth-tenant",
      "Authorization",
    ]);
    expect(out).toEqual({ "X-Auth-Tenant": "w-1", Authorization: "[redacted]" });
  });
});

describe("maskSecretValues", () => {
  it("masks secrets[].value at any depth, and nothing else", () => {
    const input = {
      name: "d",
      value: "not a secret",
      secrets: [
        { name: "A", value: "alpha-secret" },
        { name: "B", value: null },
        { name: "C", value: { nested: { value: "deep-secret" } } },
      ],
      source_config: {
        secrets: [{ name: "D", value: "delta-secret" }],
        env: [{ name: "E", value: "plain env" }],
      },
    };
    const before = JSON.stringify(input);
    const out = maskSecretValues(input);
    expect(out).toEqual({
      name: "d",
      value: "not a secret",
      secrets: [
        { name: "A", value: "****" },
        { name: "B", value: null },
        { name: "C", value: "****" },
      ],
      source_config: { secrets: [{ name: "D", value: "****" }], env: [{ name: "E", value: "plain env" }] },
    });
    expect(JSON.stringify(input)).toBe(before); // not mutated
  });

  it("masks a secrets map and nested values in arrays", () => {
    expect(maskSecretValues({ secrets: { A: "x", B: 1 } })).toEqual({ secrets: { A: "****", B: 1 } });
    expect(maskSecretValues([{ secrets: [{ items: [{ value: "x" }] }] }])).toEqual([
      { secrets: [{ items: [{ value: "****" }] }] },
    ]);
    expect(maskSecretValues("text")).toBe("text");
  });

  it("shares what has nothing to mask instead of copying it, and copies what it changes", () => {
    const labels = { team: "agents" };
    const input = { name: "d", labels, secrets: [{ name: "A", value: "x" }], tags: ["a", "b"] };
    const out = maskSecretValues(input);
    expect(out.labels).toBe(labels);
    expect(out.tags).toBe(input.tags);
    expect(out).not.toBe(input);
    expect(out.secrets).not.toBe(input.secrets);
    expect(input.secrets[0]?.value).toBe("x");
    const plain = { name: "d", resource_spec: { cpu: 1 } };
    expect(maskSecretValues(plain)).toBe(plain);
  });

  it("keeps a key named __proto__ as a key (as JSON.parse made it), masked values too", () => {
    const input = JSON.parse('{"__proto__": {"x": 1}, "secrets": {"__proto__": "s3cret"}, "name": "n"}');
    const out = maskSecretValues(input) as Record<string, unknown>;
    expect(JSON.stringify(out)).toBe('{"__proto__":{"x":1},"secrets":{"__proto__":"****"},"name":"n"}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it("property: the same result as masking a deep copy, and the input never changes", () => {
    // The rule restated the simple way (a full copy, every node visited), as a reference.
    const reference = (node: unknown, inside: boolean): unknown => {
      if (Array.isArray(node)) return node.map((item) => reference(item, inside));
      if (node === null || typeof node !== "object") return node;
      const record = node as Record<string, unknown>;
      const echoes = Array.isArray(record.loc) && record.loc.includes("secrets");
      return Object.fromEntries(
        Object.entries(record).map(([key, value]) => {
          if (echoes && key === "input") return [key, "****"];
          if (inside && key === "value" && value !== null) return [key, "****"];
          if (key === "secrets" && value !== null && typeof value === "object" && !Array.isArray(value))
            return [
              key,
              Object.fromEntries(
                Object.entries(value).map(([k, v]) => [
                  k,
                  typeof v === "string" ? "****" : reference(v, true),
                ]),
              ),
            ];
          return [key, reference(value, inside || (key === "secrets" && Array.isArray(value)))];
        }),
      );
    };
    const key = fc.constantFrom("secrets", "value", "input", "loc", "name", "items");
    const json = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        fc.string(),
        fc.integer(),
        fc.constant(null),
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(key, tie("node"), { maxKeys: 4 }),
        fc.record({ loc: fc.constantFrom(["body", "secrets", 0], ["body", "name"]), input: fc.string() }),
      ),
    })).node;
    fc.assert(
      fc.property(json, (input) => {
        const before = JSON.stringify(input);
        expect(maskSecretValues(input)).toEqual(reference(input, false));
        expect(JSON.stringify(input)).toBe(before);
      }),
    );
  });
});

describe("redactText and redactUrl", () => {
  it("replaces every known secret, longest first", () => {
    const text = "key=abcdefgh-123 token=abcdefgh-123-and-more again abcdefgh-123";
    expect(redactText(text, ["abcdefgh-123", "abcdefgh-123-and-more", undefined, ""])).toBe(
      "key=[redacted] token=[redacted] again [redacted]",
    );
  });

  it("finds secrets of different lengths that share their start, and one at the very end", () => {
    const secrets = ["sk-live-0001", "sk-live-0001-extended", "sk-test-9999", "zz-short"];
    expect(redactText("a sk-live-0001-extended b sk-live-0001c sk-test-9999zz-short", secrets)).toBe(
      "a [redacted] b [redacted]c [redacted][redacted]",
    );
  });

  it("leaves strings too short to be real secrets alone (they would garble every line)", () => {
    expect(redactText("key not found", ["k"])).toBe("key not found");
  });

  it("hides user info and signed-URL parameters", () => {
    expect(
      redactUrl("https://u:p@storage.example/b/o?X-Goog-Signature=abc&X-Goog-Credential=c&uploadType=media"),
    ).toBe(
      "https://storage.example/b/o?X-Goog-Signature=%5Bredacted%5D&X-Goog-Credential=%5Bredacted%5D&uploadType=media",
    );
  });
});

describe("createTracer", () => {
  it("prints the status line with timing and size, and truncates long bodies", () => {
    const lines: string[] = [];
    const tracer = createTracer((line) => lines.push(line), { bodyLimit: 20 });
    tracer.response({
      status: 201,
      headers: { "content-type": "application/json" },
      body: Buffer.from(JSON.stringify({ id: "x".repeat(1200) })),
      elapsedMs: 12.4,
    });
    expect(lines[0]).toBe("< 201 Created (12ms, 1.2 KiB)");
    expect(lines[2]).toMatch(/^< \{"id":"x{13}… \[truncated, 1209 characters in all\]$/);
  });

  it("never shows the user info of a URL in a body or a Location header (a signed upload URL)", () => {
    const lines: string[] = [];
    createTracer((line) => lines.push(line)).response({
      status: 200,
      headers: {
        "content-type": "application/json",
        location: "https://uploader:l0cation-s3cret@storage.example/next",
      },
      body: Buffer.from(
        JSON.stringify({
          upload_url: "https://uploader:b0dy-s3cret@storage.example/bucket/object",
          object_path: "uploads/x.tar.gz",
        }),
      ),
      elapsedMs: 3,
    });
    const trace = lines.join("\n");
    expect(trace).toContain('"upload_url":"https://storage.example/bucket/object"');
    expect(trace).toContain("< location: https://storage.example/next");
    expect(trace).not.toMatch(/s3cret|uploader/);
  });

  it("hides credentials a body carries under their own names (a push token, a token service's answer)", () => {
    const lines: string[] = [];
    const tracer = createTracer((line) => lines.push(line));
    tracer.response({
      status: 200,
      headers: { "content-type": "application/json" },
      body: Buffer.from(
        JSON.stringify({
          token: "pt-0123456789-secret",
          registry_url: "registry.example.com/deployments/1",
          nested: { access_token: "at-0123456789", refresh_token: "rt-0123456789", expires_in: 300 },
        }),
      ),
      elapsedMs: 3,
    });
    const body = lines.at(-1)!;
    for (const secret of ["pt-0123456789-secret", "at-0123456789", "rt-0123456789"])
      expect(body).not.toContain(secret);
    expect(body).toContain('"registry_url":"registry.example.com/deployments/1"');
    expect(body).toContain('"expires_in":300');
  });

  it("summarises a binary body instead of printing it", () => {
    const lines: string[] = [];
    createTracer((line) => lines.push(line)).request({
      method: "PUT",
      url: "https://storage.example/o",
      headers: { "Content-Type": "application/gzip" },
      body: Buffer.alloc(2048),
      attempt: 1,
      maxAttempts: 4,
    });
    expect(lines).toEqual([
      "> PUT https://storage.example/o",
      "> Content-Type: application/gzip",
      "> [2 KiB of application/gzip]",
    ]);
  });
});

describe("the --debug trace of ApiClient", () => {
  const API_KEY = "lsv2_sk_0123456789abcdef";
  const TOKEN = "eyJhbGciOiJIUzI1NiJ9.payload.signature";
  const SECRET = "hunter2-database-password";
  let url = "";

  afterAll(() => closeIdleConnections());

  async function start(handler: Handler): Promise<void> {
    url = (await startServer(handler)).url;
  }

  function tracedClient(lines: string[]): ApiClient {
    return new ApiClient({
      baseUrl: url,
      credentials: { apiKey: API_KEY, bearerToken: TOKEN, tenantId: "tenant-42" },
      requestTimeoutMs: 5000,
      userAgent: "cpctl-test",
      trace: (line) => lines.push(line),
      retry: { maxAttempts: 2 },
      sleep: async () => {},
    });
  }

  it("shows method, path, tenant and status, never the key, the token or a secret value", async () => {
    // The server echoes the request body and, carelessly, the key.
    await start((req, res) => {
      res.writeHead(201, { "Content-Type": "application/json", "Set-Cookie": "session=abc" });
      res.end(JSON.stringify({ ...JSON.parse(req.body), id: "d-1", debug: `key was ${API_KEY}` }));
    });
    const lines: string[] = [];
    await tracedClient(lines).post("/v2/deployments", {
      name: "agent",
      secrets: [{ name: "DB_PASSWORD", value: SECRET }],
    });
    const trace = lines.join("\n");
    expect(lines[0]).toBe(`> POST ${url}/v2/deployments`);
    expect(trace).toContain("> X-Api-Key: [redacted]");
    expect(trace).toContain("> Authorization: [redacted]");
    expect(trace).toContain("> X-Tenant-Id: tenant-42");
    expect(trace).toContain('"secrets":[{"name":"DB_PASSWORD","value":"****"}]');
    expect(trace).toMatch(/^< 201 Created \(\d+ms, \d+ B\)$/m);
    expect(trace).toContain("< set-cookie: [redacted]");
    expect(trace).toContain("key was [redacted]");
    for (const secret of [API_KEY, TOKEN, SECRET, "session=abc"]) expect(trace).not.toContain(secret);
  });

  it("traces the query, failures and retries", async () => {
    await start((_req, res, n) => {
      res.writeHead(n === 1 ? 503 : 200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ resources: [] }));
    });
    const lines: string[] = [];
    await tracedClient(lines).get("/v2/deployments", { query: { limit: 20 } });
    expect(lines[0]).toBe(`> GET ${url}/v2/deployments?limit=20`);
    expect(lines).toContain(`> GET ${url}/v2/deployments?limit=20 (attempt 2 of 2)`);
    expect(lines.some((line) => /^! retrying in \d+ms \(attempt 2 of 2\)$/.test(line))).toBe(true);
    expect(lines.some((line) => line.startsWith("< 503 Service Unavailable ("))).toBe(true);
    expect(lines.join("\n")).not.toContain(API_KEY);
  });
});
