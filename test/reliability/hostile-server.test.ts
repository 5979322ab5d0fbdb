// A control plane (or a proxy, or whoever answers at the address) that puts terminal escape
// sequences, C1 controls, bidirectional overrides and lone surrogates in the fields cpctl
// prints: deployment names, image URIs, IDs, statuses, error messages. Table and text output
// show every such character as a visible escape, with --no-color too; json, ndjson and yaml
// keep the exact value, escaped, always valid UTF-8.
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { startServer, type TestServer } from "../helpers/http-server.js";
import { type CliResult, runCli } from "../helpers/run-cli.js";

/** What a terminal would act on, as printed raw: ESC, CSI, BEL, CR, DEL, C1, bidi overrides. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const ID = "0d15ea5e-0000-4000-8000-000000000001";
/** A deployment whose name holds lone UTF-16 surrogates, as JSON's \\udXXX escapes allow. */
const LONE_ID = "0d15ea5e-0000-4000-8000-000000000002";
const LONE_NAME = "half\ud800 a pair \udc00end";
const NAME = "evil\x1b]0;pwned\x07\x1b[2J\x1b[31mred\rover\u009b1mcsi\u202etxt.exe";
const IMAGE = "registry.example.com/app:1\x1b[8mhidden\x1b[0m\x7f";
const MESSAGE = "bad request\x1b[2K\rall good: \x1b[32mDEPLOYED\x1b[0m";

const deployment = {
  id: ID,
  name: NAME,
  source: "external_container",
  source_config: { integration_id: null, repo_url: null, resource_spec: null },
  source_revision_config: { image_uri: IMAGE, repo_ref: null },
  secrets: [],
  secret_references: [],
  tenant_id: "11111111-1111-4111-8111-111111111111",
  created_at: "2026-11-21T12:00:00Z",
  updated_at: "2026-11-21T12:00:00Z",
  status: "READY\x1b[5m",
  latest_revision_id: null,
  active_revision_id: null,
  image_version: null,
};

let server: TestServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.method === "DELETE") {
      res.statusCode = 400;
      res.end(JSON.stringify({ detail: MESSAGE }));
    } else if (req.url.startsWith(`/v2/deployments/${ID}`)) res.end(JSON.stringify(deployment));
    else if (req.url.startsWith(`/v2/deployments/${LONE_ID}`))
      res.end(JSON.stringify({ ...deployment, id: LONE_ID, name: LONE_NAME, [LONE_NAME]: "a key too" }));
    else
      res.end(
        JSON.stringify({ resources: [deployment, { ...deployment, id: "id\x1b[2J\u009b" }], offset: 2 }),
      );
  });
  env = { CPCTL_BASE_URL: server.url, CPCTL_API_KEY: "k" };
});
afterAll(() => server.close());

/** The table's own colours on a terminal (its bold header) are cpctl's, not the server's. */
const OWN_COLOURS = /\x1b\[(?:90|39|1|22)m/g;

function expectNothingRaw(r: CliResult): void {
  expect(r.stdout.replace(OWN_COLOURS, "")).not.toMatch(RAW_CONTROL);
  expect(r.stderr).not.toMatch(RAW_CONTROL);
  expect(r.stdout).not.toMatch(LONE_SURROGATE);
}

describe("table and text output show control characters, never act on them", () => {
  it.each([
    ["get, off a terminal", ["deploy", "get", ID], false],
    ["get, on a terminal", ["deploy", "get", ID], true],
    ["get, on a terminal, --no-color", ["deploy", "get", ID, "--no-color"], true],
    ["list, off a terminal", ["deploy", "list"], false],
    ["list, on a terminal", ["deploy", "list"], true],
    ["list -o id", ["deploy", "list", "-o", "id"], false],
  ])("%s", async (_label, args, tty) => {
    const r = await runCli(args as string[], { env, tty: tty as boolean });
    expect(r.code, r.stderr).toBe(0);
    expectNothingRaw(r);
    // Off a terminal, tab-separated cells have their line breaks as spaces (for cut -f).
    const shown = `evil\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31mred${tty ? "\\x0d" : " "}over\\x9b1mcsi\\u202etxt.exe`;
    // A list on a terminal fits its width: the name is the visible form's beginning and "…".
    const shortened = tty && (args as string[]).includes("list");
    if (!(args as string[]).includes("id"))
      expect(r.stdout).toContain(shortened ? shown.slice(0, 40) : shown);
  });

  it("a server's error message, in text and in the JSON error object", async () => {
    const text = await runCli(["deploy", "delete", ID, "--yes"], { env });
    expect(text.code).toBe(2);
    expectNothingRaw(text);
    expect(text.stderr).toContain("bad request\\x1b[2K\\x0dall good: \\x1b[32mDEPLOYED\\x1b[0m");
    const json = await runCli(["deploy", "delete", ID, "--yes", "-o", "json"], { env });
    expectNothingRaw(json);
    expect(JSON.parse(json.stderr.trim()).error.message).toContain(MESSAGE);
  });

  it("a question on a terminal that names the server's deployment", async () => {
    for (const id of [ID, LONE_ID]) {
      // delete always asks; the question names the deployment as the server calls it.
      const r = await runCli(["deploy", "delete", id], {
        env: { ...env, NO_COLOR: "1" },
        tty: true,
        stdin: "n\n",
      });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain("cancelled");
      // The prompt library moves the cursor to redraw the question: its own sequences, not the server's.
      const shown = r.stderr.replace(/\x1b\[(?:\d*[ABGK]|\?25[hl])/g, "");
      expect(shown).not.toMatch(RAW_CONTROL);
      expect(shown).not.toMatch(LONE_SURROGATE);
      expect(shown).toContain(
        id === ID ? "Delete deployment evil\\x1b]0;pwned" : "Delete deployment half\ufffd a pair",
      );
    }
  });

  it("the --debug trace of the server's answers too", async () => {
    const r = await runCli(["deploy", "get", ID, "--debug"], { env });
    expect(r.code).toBe(0);
    expectNothingRaw(r);
  });
});

describe("json, ndjson and yaml keep the exact value, escaped", () => {
  it.each([["json"], ["ndjson"]])("-o %s", async (format) => {
    for (const args of [
      ["deploy", "get", ID],
      ["deploy", "list"],
    ]) {
      const r = await runCli([...args, "-o", format], { env });
      expect(r.code, r.stderr).toBe(0);
      expectNothingRaw(r);
      const parsed = JSON.parse(format === "ndjson" ? r.stdout.trim().split("\n")[0]! : r.stdout);
      const one = Array.isArray(parsed) ? parsed[0] : parsed;
      expect(one.name).toBe(NAME);
      expect(one.source_revision_config.image_uri).toBe(IMAGE);
    }
  });

  it("-o yaml", async () => {
    const r = await runCli(["deploy", "get", ID, "-o", "yaml"], { env });
    expect(r.code, r.stderr).toBe(0);
    expectNothingRaw(r);
    const parsed = YAML.parse(r.stdout);
    expect(parsed.name).toBe(NAME);
    expect(parsed.source_revision_config.image_uri).toBe(IMAGE);
    expect(parsed.status).toBe("READY\x1b[5m");
  });
});

describe("output is always valid UTF-8 (a lone surrogate becomes U+FFFD)", () => {
  const jq = spawnSync("jq", ["--version"]).status === 0;
  /** JSON.stringify writes a lone surrogate as a \\udXXX escape, which jq and strict parsers refuse. */
  const LONE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

  it.each([["json"], ["ndjson"], ["yaml"], ["table"], ["id"]])("-o %s", async (format) => {
    const r = await runCli(["deploy", "get", LONE_ID, "-o", format], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(LONE_ESCAPE);
    expect(r.stdout).not.toMatch(LONE_SURROGATE);
    if (format === "json" || format === "ndjson") {
      const parsed = JSON.parse(r.stdout);
      expect(parsed.name).toBe("half\ufffd a pair \ufffdend");
      expect(parsed["half\ufffd a pair \ufffdend"]).toBe("a key too");
      if (jq) expect(spawnSync("jq", ["-e", ".name"], { input: Buffer.from(r.stdout) }).status).toBe(0);
    }
    if (format === "yaml") expect(YAML.parse(r.stdout).name).toBe("half\ufffd a pair \ufffdend");
  });

  it("in the JSON error object too", async () => {
    const r = await runCli(["deploy", "get", "half\ud800", "-o", "json"], { env });
    expect(r.stderr).not.toMatch(LONE_ESCAPE);
    expect(() => JSON.parse(r.stderr.trim())).not.toThrow();
  });
});
