// `cpctl emulator CONTROL` goes to the profile's address with its credentials and the control
// token. Before any of it, cpctl asks the address whether it is an emulator: one GET of
// /_emulator/health with no credential at all, whose answer must be the emulator's own. Any
// other server (a random one, the hosted control plane) gets that one question and nothing
// else, and the run stops with exit 2 naming the URL. And an emulator's answer that is not the
// shape its control answers is a clean error (exit 1), never an internal one.
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { json, type RecordedRequest, startServer, type TestServer } from "../helpers/http-server.js";
import { runCli } from "../helpers/run-cli.js";
import { expectCleanOutput } from "../reliability/helpers.js";

afterEach(closeTestEmulators);

const API_KEY = "Kq7wTargetApiKey";
const BEARER = "Bz4nTargetBearer";
const CONTROL_TOKEN = "Ct9xTargetControl";
const TENANT = "0a0a0a0a-0000-4000-8000-0000000000aa";
const DEPLOYMENT = "0a0a0a0a-0000-4000-8000-0000000000d1";
const REVISION = "0a0a0a0a-0000-4000-8000-0000000000e1";

/** Every control command, as a user would type it. */
const CONTROLS: string[][] = [
  ["emulator", "fail-next", "--stage", "BUILDING"],
  ["emulator", "fail-next", "--stage", "BUILDING", "--deployment", "my-agent"],
  ["emulator", "fail-next", "--list"],
  ["emulator", "fail", "my-agent", "--stage", "DEPLOYING"],
  ["emulator", "push", "my-agent"],
  ["emulator", "health", "my-agent", "failing"],
  ["emulator", "clock"],
  ["emulator", "clock", "advance", "1m"],
  ["emulator", "faults"],
  ["emulator", "faults", "add", "--path", "/v2/listeners", "--status", "503"],
  ["emulator", "faults", "clear"],
  ["emulator", "stats"],
  ["emulator", "tracing-projects"],
  ["emulator", "reset", "--yes"],
];

const envFor = (server: TestServer, credential: "key" | "bearer" = "key") => ({
  CPCTL_BASE_URL: server.url,
  ...(credential === "key" ? { CPCTL_API_KEY: API_KEY } : { CPCTL_BEARER_TOKEN: BEARER }),
  CPCTL_TENANT_ID: TENANT,
  CPCTL_EMULATOR_CONTROL_TOKEN: CONTROL_TOKEN,
});

/** The headers that carry a credential or say which tenant: none may go to a server not known to be an emulator. */
const CREDENTIAL_HEADERS = ["x-api-key", "authorization", "x-control-token", "x-tenant-id"];

const page = (res: ServerResponse, status: number, html: string) => {
  res.writeHead(status, { "Content-Type": "text/html", "Content-Length": Buffer.byteLength(html) });
  res.end(html);
};

/** Servers that are not an emulator, each answering every request the same way. */
const NOT_EMULATORS: [string, (req: RecordedRequest, res: ServerResponse) => void][] = [
  ["200 with other JSON", (_req, res) => json(res, 200, { hello: "world" })],
  ["200 with a health answer of its own", (_req, res) => json(res, 200, { status: "ok" })],
  [
    "200 with the emulator's fields but not its name",
    (_req, res) => json(res, 200, { status: "ok", now: "2026-01-01T00:00:00.000Z", registry: null }),
  ],
  [
    "200 with an HTML page",
    (_req, res) => page(res, 200, "<!DOCTYPE html><html><body>Welcome</body></html>"),
  ],
  ["404 (the hosted control plane)", (_req, res) => json(res, 404, { detail: "Not Found" })],
  ["401", (_req, res) => json(res, 401, { detail: "Invalid API key" })],
  ["404 with an HTML page", (_req, res) => page(res, 404, "<html><body><h1>Not Found</h1></body></html>")],
];

describe("a control to an address that is not an emulator", () => {
  it.each(NOT_EMULATORS)(
    "%s: exit 2 naming the URL, one GET of /_emulator/health with no credential, nothing else sent",
    async (_name, handler) => {
      const server = await startServer(handler);
      for (const args of CONTROLS) {
        const before = server.requests.length;
        const r = await runCli(args, { env: envFor(server) });
        const shown = `${args.join(" ")}\n${r.stderr}`;
        expect(r.code, shown).toBe(2);
        expect(r.stderr, shown).toContain(server.url);
        expect(r.stderr, shown).toContain("not a cpctl emulator");
        expect(r.stdout, shown).toBe("");
        expectCleanOutput(r);
        const sent = server.requests.slice(before);
        expect(
          sent.map((req) => `${req.method} ${req.url}`),
          shown,
        ).toEqual(["GET /_emulator/health"]);
        for (const header of CREDENTIAL_HEADERS) expect(sent[0]!.headers[header], shown).toBeUndefined();
        for (const secret of [API_KEY, CONTROL_TOKEN]) expect(`${r.stdout}${r.stderr}`).not.toContain(secret);
      }
    },
  );

  it("a bearer token is not sent either, and -o json gives the one JSON error object", async () => {
    const server = await startServer((_req, res) => json(res, 404, { detail: "Not Found" }));
    const r = await runCli(["emulator", "stats", "-o", "json"], { env: envFor(server, "bearer") });
    expect(r.code).toBe(2);
    const error = JSON.parse(r.stderr.trim()).error;
    expect(error.message).toContain(server.url);
    expect(server.requests).toHaveLength(1);
    for (const header of CREDENTIAL_HEADERS) expect(server.requests[0]!.headers[header]).toBeUndefined();
    expect(r.stderr).not.toContain(BEARER);
  });

  it("the real emulator passes: the question carries no credential, the control then carries them", async () => {
    const em = await startTestEmulator({ controlToken: CONTROL_TOKEN });
    const seen: { path: string; key: string | undefined }[] = [];
    // A front that records each request, then passes it to the emulator as it came.
    const server = await startServer(async (req, res) => {
      seen.push({ path: req.url, key: req.headers["x-api-key"] as string | undefined });
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => CREDENTIAL_HEADERS.includes(name)),
      ) as Record<string, string>;
      const answer = await em.request(req.method, req.url, {
        auth: false,
        headers: { ...headers, ...(req.body ? { "Content-Type": "application/json" } : {}) },
        ...(req.body ? { rawBody: req.body } : {}),
      });
      res.writeHead(answer.status, { "Content-Type": "application/json" });
      res.end(answer.text);
    });
    const r = await runCli(["emulator", "clock", "-o", "json"], {
      env: {
        CPCTL_BASE_URL: server.url,
        CPCTL_API_KEY: API_KEY,
        CPCTL_EMULATOR_CONTROL_TOKEN: CONTROL_TOKEN,
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).now_ms).toBe(em.clock.now());
    expect(seen).toEqual([
      { path: "/_emulator/health", key: undefined },
      { path: "/_emulator/clock", key: API_KEY },
    ]);
  });
});

/**
 * An emulator's health answer, a deployment `my-agent` for the controls that look one up, and
 * `body` (200) for everything else.
 */
async function emulatorAnswering(body: unknown): Promise<TestServer> {
  const real = await startTestEmulator();
  const health = (await real.get("/_emulator/health", { auth: false })).json;
  const deployment = (await real.createDeployment("internal_container", "my-agent")) as Record<
    string,
    unknown
  >;
  const mine = { ...deployment, id: DEPLOYMENT, latest_revision_id: REVISION };
  return startServer((req, res) => {
    if (req.url === "/_emulator/health") return json(res, 200, health);
    if (req.method === "GET" && req.url.startsWith("/v2/deployments?"))
      return json(res, 200, { resources: [mine], offset: 0 });
    if (req.method === "GET" && req.url === `/v2/deployments/${DEPLOYMENT}`) return json(res, 200, mine);
    return json(res, 200, body);
  });
}

describe("an emulator's answer of another shape", () => {
  /** The controls that read an answer (clear and reset answer nothing). */
  const ANSWERING = CONTROLS.filter((args) => args[2] !== "clear" && args[1] !== "reset");

  it.each([
    ["{}", {}],
    ["[]", []],
    ["null", null],
    ["a string", "ok"],
    ["every list a wrong type", { faults: null, rules: 5, resources: {}, requests: "x", total: "y", now: 1 }],
  ])("%s: a clean error naming the control (exit 1), never an internal error", async (_name, body) => {
    const server = await emulatorAnswering(body);
    for (const format of ["table", "json"]) {
      for (const args of ANSWERING) {
        const r = await runCli([...args, "-o", format], { env: envFor(server) });
        const shown = `${args.join(" ")} -o ${format}\n${r.stderr}`;
        expect(r.code, shown).toBe(1);
        expectCleanOutput(r);
        expect(r.stderr, shown).toMatch(/\/_emulator\//);
        expect(r.stderr, shown).toContain("not what");
        expect(r.stderr, shown).not.toMatch(/undefined|not iterable|Cannot convert/);
      }
    }
  });
});
