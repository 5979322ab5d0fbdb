// What cpctl writes on stderr for people (the change preview before a mutation, a wait's
// progress lines and their CI heading) quotes names, IDs and statuses that a user, a file or
// a server gave. Every one of them goes through the escaping of output/safe-text.ts: no bidi
// override reorders a line, no lone surrogate makes the output invalid UTF-8, no escape
// sequence reaches the terminal. (Found by fuzzing: the preview's headline wrote the name raw.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/http-server.js";
import { type CliResult, runCli } from "../helpers/run-cli.js";

const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** The preview's own colours (green, red, yellow) and GitLab's section markers are cpctl's. */
const OWN_COLOURS = /\x1b\[(?:39|31|32|33)m/g;
const OWN_SECTIONS = /\x1b\[0Ksection_(?:start|end):[\w:=[\]]+\r\x1b\[0K/g;

const ID = "0d15ea5e-0000-4000-8000-0000000000aa";
const NAME = "flip\u202egnp.exe half\ud800 \u2066iso\x1b[31m";
const REVISION = "rev\u202e\ud800\x1b[2J";

let server: TestServer;
let env: Record<string, string>;
beforeAll(async () => {
  const revision = {
    id: REVISION,
    status: "BUILDING\u202e\ud800\x1b[5m",
    source: "external_container",
    source_revision_config: {},
    created_at: "2026-11-21T12:00:00Z",
    updated_at: "2026-11-21T12:00:00Z",
  };
  server = await startServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url.includes("/revisions/")) res.end(JSON.stringify(revision));
    else if (req.url.includes("/revisions")) res.end(JSON.stringify({ resources: [revision], offset: 1 }));
    else
      res.end(
        JSON.stringify({
          id: ID,
          name: NAME,
          source: "external_container",
          source_config: { resource_spec: null },
          source_revision_config: { image_uri: "r.example.com/a:1" },
          secrets: [],
          secret_references: [],
          tenant_id: "11111111-1111-4111-8111-111111111111",
          created_at: "2026-11-21T12:00:00Z",
          updated_at: "2026-11-21T12:00:00Z",
          status: "READY",
          latest_revision_id: REVISION,
          active_revision_id: null,
        }),
      );
  });
  env = { CPCTL_BASE_URL: server.url, CPCTL_API_KEY: "k" };
});
afterAll(() => server.close());

function expectEscaped(r: CliResult): void {
  const stderr = r.stderr.replace(OWN_COLOURS, "").replace(OWN_SECTIONS, "");
  expect(stderr).not.toMatch(RAW_CONTROL);
  expect(stderr).not.toMatch(LONE_SURROGATE);
}

describe("stderr quotes names, IDs and statuses escaped", () => {
  it("the preview of a create, its name from a flag", async () => {
    const r = await runCli([
      "deploy",
      "create",
      "--dry-run",
      "--base-url",
      "http://127.0.0.1:9",
      "--source",
      "internal_container",
      "--image-uri",
      "r.example.com/a:1",
      "--name",
      "a\ud800b\u202ec",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expectEscaped(r);
    expect(r.stderr).toContain("Creating deployment a\ufffdb\\u202ec:");
  });

  it("the preview of a patch, the name from the server", async () => {
    const r = await runCli(["deploy", "patch", ID, "--image-uri", "r.example.com/a:2", "--dry-run"], { env });
    expect(r.code, r.stderr).toBe(0);
    expectEscaped(r);
    expect(r.stderr).toContain("Changes to deployment flip\\u202egnp.exe half\ufffd \\u2066iso\\x1b[31m:");
  });

  it.each([
    ["a terminal-less log", {}],
    ["GitLab's folded section", { GITLAB_CI: "true" }],
    ["GitHub's group", { GITHUB_ACTIONS: "true", CPCTL_GITHUB: "0" }],
  ])("a wait's progress lines, in %s", async (_label, extra) => {
    const r = await runCli(["deploy", "wait", ID, "--timeout", "2s", "--interval", "1s"], {
      env: { ...env, ...extra },
    });
    expect(r.code, r.stderr).toBe(6);
    expectEscaped(r);
    expect(r.stderr).toContain("BUILDING\\u202e\ufffd\\x1b[5m");
  });
});
