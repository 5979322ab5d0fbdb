// Project files written by someone else, fuzzed (fast-check, seeded in CI): a checkout's
// .cpctlrc.yaml may add safety but never take it away (issue 22 items 8 and 12). Against one
// user config (prod: this server, the user's key, confirm: true), each case writes a project
// file that tries some of what an attacker would (turn confirm off, pick prod as the default,
// point prod elsewhere or at plain http, bring its own key, trust itself, choose a CA) and
// runs a patch with or without --yes. Whatever the file says:
// - no PATCH reaches the server without --yes while the profile in use is the user's prod;
// - the user's key reaches the server only at the user's own address, or at one the user
//   trusts with its scheme;
// - a key written in the project file never acts at the user's address;
// - the run ends with 0 or 2, and no stack trace.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox } from "../config/fixtures.js";
import { type RecordedRequest, startServer, type TestServer } from "../helpers/http-server.js";
import { runCli } from "../helpers/run-cli.js";
import { report, STACK_LINE } from "./helpers.js";

const USER_KEY = "users-own-key-Hq4Zr8Wm";
const PROJECT_KEY = "project-key-Tn3Vx7Qp";
const DEP_ID = "0f0f0f0f-0000-4000-8000-00000000beef";
const deployment = {
  id: DEP_ID,
  name: "app",
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
};

let server: TestServer;
beforeAll(async () => {
  server = await startServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(deployment));
  });
});
afterAll(() => server.close());

const counts = { cases: 0, patchesSent: 0, exit0: 0, exit2: 0, userKeyRequests: 0 };
afterAll(() => report("project files that try to weaken safety", counts));

const project = fc
  .record(
    {
      defaultProfile: fc.constantFrom("prod", "staging", "mine"),
      confirm: fc.constantFrom(false, "false", true),
      baseUrl: fc.constantFrom("same", "localhost"),
      apiKey: fc.constantFrom("literal", "${env:K}"),
      mine: fc.constant(true),
      // Rarer: either stops every command of the profile in use, whatever else the file says.
      refused: fc.constantFrom("caFile", "trustedHosts"),
    },
    { requiredKeys: [] },
  )
  .chain((p) => fc.boolean().map((often) => (often ? { ...p, refused: undefined } : p)));

const scenario = fc.record({
  project,
  userDefault: fc.constantFrom("prod", "staging", null),
  trustEntry: fc.constantFrom(null, "bare", "http"),
  yes: fc.boolean(),
  profileFlag: fc.constantFrom(null, "prod"),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function files(s: Scenario, url: string): { user: string; project: string } {
  const host = new URL(url).host;
  const entry = s.trustEntry === "http" ? `http://${host}` : host;
  const user = [
    s.userDefault ? `defaultProfile: ${s.userDefault}` : "",
    s.trustEntry ? `trustedHosts: ["${entry}"]` : "",
    "profiles:",
    `  prod:\n    baseUrl: ${url}\n    apiKey: \${env:USER_KEY}\n    confirm: true`,
    `  staging:\n    baseUrl: ${url}\n    apiKey: \${env:USER_KEY}`,
  ];
  const p = s.project;
  const prod = [
    p.confirm !== undefined ? `    confirm: ${JSON.stringify(p.confirm)}` : "",
    p.baseUrl === "same" ? `    baseUrl: ${url}` : "",
    p.baseUrl === "localhost" ? `    baseUrl: ${url.replace("127.0.0.1", "localhost")}` : "",
    p.apiKey === "literal" ? `    apiKey: ${PROJECT_KEY}` : "",
    p.apiKey === "${env:K}" ? `    apiKey: \${env:K}` : "",
    p.refused === "caFile" ? "    caFile: /etc/ssl/certs/ca-certificates.crt" : "",
  ].filter(Boolean);
  const projectText = [
    p.defaultProfile ? `defaultProfile: ${p.defaultProfile}` : "",
    p.refused === "trustedHosts" ? `trustedHosts: ["${host}", "http://${host}"]` : "",
    "profiles:",
    prod.length ? `  prod:\n${prod.join("\n")}` : "",
    p.mine ? `  mine:\n    baseUrl: ${url}\n    apiKey: ${PROJECT_KEY}` : "",
  ];
  return { user: user.filter(Boolean).join("\n"), project: `${projectText.filter(Boolean).join("\n")}\n` };
}

const keyOf = (request: RecordedRequest) => request.headers["x-api-key"];

describe("fuzzed project files: a checkout can add safety, never take it away", () => {
  it("200 project files against one user config", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        counts.cases++;
        const box = sandbox();
        const { user, project: projectText } = files(s, server.url);
        box.user(`${user}\n`);
        box.project(".cpctlrc.yaml", projectText);
        const args = ["deploy", "patch", DEP_ID, "--image-uri", "r.example.com/a:2"];
        if (s.yes) args.push("--yes");
        if (s.profileFlag) args.push("--profile", s.profileFlag);
        const before = server.requests.length;
        const r = await runCli(args, {
          homeDir: box.home,
          cwd: box.cwd,
          env: { USER_KEY, K: "from-the-users-environment" },
        });
        const requests = server.requests.slice(before);
        const describe = `${JSON.stringify(s)}\n${projectText}\n-> exit ${r.code}: ${r.stderr.slice(0, 300)}`;

        expect([0, 2], describe).toContain(r.code);
        expect(`${r.stdout}${r.stderr}`, describe).not.toMatch(STACK_LINE);
        const patches = requests.filter((q) => q.method === "PATCH");
        counts.patchesSent += patches.length;
        if (r.code === 0) counts.exit0++;
        else counts.exit2++;

        // The profile in use: the flag, else the project's default, else the user's.
        const profile = s.profileFlag ?? s.project.defaultProfile ?? s.userDefault;
        if (profile === "prod" && !s.yes) expect(patches, describe).toHaveLength(0);

        const userKeyed = requests.filter((q) => keyOf(q) === USER_KEY);
        counts.userKeyRequests += userKeyed.length;
        const projectAddress = s.project.baseUrl !== undefined && profile === "prod";
        const trustedHere = s.trustEntry === "http" && s.project.baseUrl === "same";
        if (userKeyed.length > 0 && projectAddress) expect(trustedHere, describe).toBe(true);
        // The project's own key never acts at the user's address.
        const projectKeyed = requests.filter((q) => keyOf(q) === PROJECT_KEY);
        if (profile === "prod" && s.project.baseUrl === undefined)
          expect(projectKeyed, describe).toHaveLength(0);
        // A project file that trusts hosts itself, or names a CA for the profile in use, sends nothing.
        if (s.project.refused === "trustedHosts" || (s.project.refused === "caFile" && profile === "prod"))
          expect(requests, describe).toHaveLength(0);
      }),
      { numRuns: 200 },
    );
    // The cases reach both sides: changes made with the user's key, and refusals.
    expect(counts.patchesSent).toBeGreaterThan(0);
    expect(counts.userKeyRequests).toBeGreaterThan(0);
  }, 120_000);
});
