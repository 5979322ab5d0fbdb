// The hardening of the CLI against a repository, a server or an input that someone else
// wrote, fuzzed (fast-check) over flags, files and stdin. Each generated case knows the exit
// codes it may end with; every run must end with one of them (a watchdog counts a run that
// does not end in 20 s as a hang), print no stack trace or internal error, show no raw
// control character in table or text output, print JSON that parses and is valid UTF-8, and
// print no credential or secret value. The counts go to RELIABILITY.md.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOYMENT_FILE_LIMIT, KEY_FILE_LIMIT } from "../../src/io.js";
import { sandbox } from "../config/fixtures.js";
import { startServer, type TestServer } from "../helpers/http-server.js";
import { type CliResult, freshDir, type RunCliOptions, runCli } from "../helpers/run-cli.js";
import { report, STACK_LINE } from "./helpers.js";

const HANG_MS = 20_000;
const counts = { cases: 0, runs: 0, hangs: 0, stackTraces: 0, unexpectedExits: 0 };
const exits: Record<string, number> = {};
afterAll(() => report("hostile fuzz", { ...counts, exits: JSON.stringify(exits) }));

/** What a terminal acts on, raw; our own table colours are stripped before looking. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const OWN_COLOURS = /\x1b\[(?:90|39|1|22|2|33|31|32)m/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

const API_KEY = "fuzz-api-key-Zq7Xw9Vk";
const SECRET = "fuzz-secret-Jq8Wv2Zx";

// --- hostile text -----------------------------------------------------------------------------

const nasty = fc.constantFrom(
  "\x1b[31m",
  "\x1b]0;title\x07",
  "\x1b[2J",
  "\r",
  "\n",
  "\t",
  "\x00",
  "\x7f",
  "\u009b1m",
  "\u202e",
  "\u2066",
  "\ud800",
  "\udc00",
  "\ufeff",
  "${env:HOME}",
  "****",
  "[REDACTED]",
  "__proto__",
  '"',
  "\\",
  "💥",
);
const hostileText = fc
  .array(fc.oneof({ weight: 2, arbitrary: fc.string({ maxLength: 6 }) }, { weight: 1, arbitrary: nasty }), {
    maxLength: 8,
  })
  .map((parts) => parts.join(""));

// --- the server: whatever the case says a deployment is ------------------------------------------

const DEP_ID = "0f0f0f0f-0000-4000-8000-00000000f00d";
let served: Record<string, unknown> = {};
let server: TestServer;
let serverUrl = "";
let dir = "";
beforeAll(async () => {
  dir = freshDir("hostile-fuzz");
  server = await startServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url.startsWith(`/v2/deployments/${DEP_ID}`)) res.end(JSON.stringify(served));
    else res.end(JSON.stringify({ resources: [served], offset: 1 }));
  });
  serverUrl = server.url;
});
afterAll(() => server.close());

const deploymentFrom = (name: string, image: string, status: string) => ({
  id: DEP_ID,
  name,
  source: "external_container",
  source_config: { resource_spec: null },
  source_revision_config: { image_uri: image },
  secrets: [{ name: "K", value: SECRET }],
  secret_references: [],
  tenant_id: "11111111-1111-4111-8111-111111111111",
  created_at: "2026-11-21T12:00:00Z",
  updated_at: "2026-11-21T12:00:00Z",
  status,
  latest_revision_id: null,
  active_revision_id: null,
});

// --- one run and its checks ---------------------------------------------------------------------

interface Case {
  kind: string;
  args: string[];
  /** Made when the case runs (a fresh stream, the server's answer), so that a case can run again. */
  prepare: () => RunCliOptions;
  expected: number[];
  /** Output format, for what stdout must look like. */
  format: string;
  /** --show-secrets given: the secret may be printed. */
  showSecrets?: boolean;
  check?: (r: CliResult) => void;
}

async function runCase(c: Case): Promise<void> {
  counts.runs++;
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<"hang">((resolve) => {
    timer = setTimeout(() => resolve("hang"), HANG_MS);
  });
  const r = await Promise.race([runCli(c.args, c.prepare()), hang]);
  clearTimeout(timer);
  if (r === "hang") {
    counts.hangs++;
    throw new Error(`${c.kind}: no end after ${HANG_MS} ms: ${c.args.join(" ")}`);
  }
  exits[r.code] = (exits[r.code] ?? 0) + 1;
  const all = `${r.stdout}\n${r.stderr}`;
  if (STACK_LINE.test(all) || all.includes("internal error")) counts.stackTraces++;
  if (!c.expected.includes(r.code)) counts.unexpectedExits++;
  expect(c.expected, `${c.kind}: exit ${r.code}: ${r.stderr.slice(0, 400)}`).toContain(r.code);
  expect(all, c.kind).not.toMatch(STACK_LINE);
  expect(r.stderr, c.kind).not.toContain("internal error");
  // Text on a terminal or in a log: nothing a terminal would act on.
  expect(r.stderr.replace(OWN_COLOURS, ""), `${c.kind}: stderr`).not.toMatch(RAW_CONTROL);
  if (c.format === "table" || c.format === "id")
    expect(r.stdout.replace(OWN_COLOURS, ""), `${c.kind}: stdout`).not.toMatch(RAW_CONTROL);
  expect(all, c.kind).not.toMatch(LONE_SURROGATE);
  // JSON and YAML never write a lone surrogate's escape (jq refuses it); the --debug trace
  // quotes the server's own bytes, which may spell one in ASCII.
  if (c.format !== "table" && c.format !== "id") expect(r.stdout, c.kind).not.toMatch(LONE_ESCAPE);
  if (r.code === 0 && (c.format === "json" || c.format === "ndjson")) {
    for (const line of c.format === "ndjson" ? r.stdout.trim().split("\n") : [r.stdout]) JSON.parse(line);
  }
  expect(all, c.kind).not.toContain(API_KEY);
  if (!c.showSecrets) expect(r.stdout, c.kind).not.toContain(SECRET);
  expect(r.stderr, c.kind).not.toContain(SECRET);
  c.check?.(r);
}

const property = (name: string, arbitrary: fc.Arbitrary<Case>, numRuns: number) =>
  it(`${name} (${numRuns} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(arbitrary, async (c) => {
        counts.cases++;
        await runCase(c);
      }),
      { numRuns },
    );
  });

const DEAD = "http://127.0.0.1:9";
const DRY_CREATE = ["deploy", "create", "--dry-run", "--base-url", DEAD];
const format = fc.constantFrom("table", "json", "yaml", "ndjson", "id");
let fileCounter = 0;
const writeCaseFile = (content: string | Buffer) => {
  const path = join(dir, `case-${++fileCounter}`);
  writeFileSync(path, content);
  return path;
};

// --- the cases ----------------------------------------------------------------------------------

const fileContent = fc.oneof(
  hostileText,
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString("latin1")),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc
    .record({ name: hostileText, image: hostileText, extra: hostileText, secret: hostileText })
    .map(
      ({ name, image, extra, secret }) =>
        `name: ${JSON.stringify(name)}\nsource: internal_container\nsource_revision_config:\n  image_uri: ${JSON.stringify(image)}\n${extra}: 1\nsecrets:\n  - name: K\n    value: ${secret}\n`,
    ),
  fc
    .record({ name: hostileText, value: hostileText })
    .map(({ name, value }) =>
      JSON.stringify({ name, source: "internal_container", secrets: [{ name: "K", value }], [name]: value }),
    ),
);

const fileCase: fc.Arbitrary<Case> = fc
  .record({ content: fileContent, stdin: fc.boolean(), format, noColor: fc.boolean() })
  .map(({ content, stdin, format, noColor }) => ({
    kind: "deployment file",
    args: [
      ...DRY_CREATE,
      "-f",
      stdin ? "-" : writeCaseFile(content),
      "-o",
      format,
      ...(noColor ? ["--no-color"] : []),
    ],
    prepare: () => (stdin ? { stdin: content } : {}),
    expected: [0, 2],
    format,
  }));

const flagValue = fc.oneof(hostileText, fc.constantFrom("", "-", "--", "-V", "null", "=", "a=b"));
const flagCase: fc.Arbitrary<Case> = fc
  .record({
    flags: fc.array(
      fc.oneof(
        flagValue.map((v) => ["--name", v]),
        flagValue.map((v) => ["--image-uri", v]),
        flagValue.map((v) => ["--source", v]),
        flagValue.map((v) => ["--set", `source_config.resource_spec.labels.${v}=${v}`]),
        flagValue.map((v) => ["--set", v]),
        flagValue.map((v) => ["--secret", `K=${v}`]),
        flagValue.map((v) => ["--secret", v]),
        flagValue.map((v) => ["--tenant-id", v]),
        flagValue.map((v) => ["--request-timeout", v]),
        hostileText.map((content) => ["--secrets-file", writeCaseFile(content)]),
        fc.constant(["--secret", `S=${SECRET}`]),
      ),
      { maxLength: 6 },
    ),
    format,
  })
  .map(({ flags, format }) => ({
    kind: "flags",
    args: [
      ...DRY_CREATE,
      "--source",
      "internal_container",
      "--image-uri",
      "r.example.com/a:1",
      ...flags.flat(),
      "-o",
      format,
    ],
    prepare: () => ({}),
    expected: [0, 2],
    format,
  }));

/** stdin that never ends: 64 KiB of random bytes at every read. */
const endlessCase: fc.Arbitrary<Case> = fc.integer({ min: 0, max: 255 }).map((byte) => {
  let stream: Readable;
  return {
    kind: "endless stdin",
    args: [...DRY_CREATE, "-f", "-"],
    prepare: () => {
      stream = new Readable({ read: () => stream.push(Buffer.alloc(64 * 1024, byte)) });
      return { stdinStream: stream };
    },
    expected: [2],
    format: "table",
    check: (r: CliResult) => {
      expect(r.stderr).toContain(`larger than ${DEPLOYMENT_FILE_LIMIT.maxBytes / 1024 / 1024} MiB`);
      expect(stream.destroyed).toBe(true);
    },
  };
});

/** stdin that stays open and silent; the run is interrupted once it reads. */
const silentCase: fc.Arbitrary<Case> = fc.constantFrom("-f", "--api-key-file").map((flag) => ({
  kind: "silent stdin, interrupted",
  args:
    flag === "-f"
      ? [...DRY_CREATE, "-f", "-"]
      : ["deploy", "list", "--base-url", DEAD, "--api-key-file", "-"],
  prepare: () => {
    const controller = new AbortController();
    return { stdinStream: new Readable({ read: () => controller.abort() }), signal: controller.signal };
  },
  expected: [130],
  format: "table",
}));

const keyContent = fc.oneof(
  fc.constant(API_KEY),
  fc.constant(`  ${API_KEY}\n`),
  hostileText,
  fc.nat({ max: 3 * KEY_FILE_LIMIT.maxBytes }).map((n) => "k".repeat(n)),
);
const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const keyCase: fc.Arbitrary<Case> = fc
  .record({ content: keyContent, stdin: fc.boolean() })
  .map(({ content, stdin }) => {
    const key = content.trim();
    const ok =
      Buffer.byteLength(content) <= KEY_FILE_LIMIT.maxBytes && key !== "" && !INVALID_HEADER_VALUE.test(key);
    return {
      kind: "key file",
      args: [
        "deploy",
        "list",
        "--base-url",
        serverUrl,
        "--api-key-file",
        stdin ? "-" : writeCaseFile(content),
        "-o",
        "id",
      ],
      prepare: () => {
        served = deploymentFrom("plain", "r.example.com/a:1", "READY");
        return stdin ? { stdin: content } : {};
      },
      expected: ok ? [0] : [2],
      format: "id",
    };
  });

const TENANT_HEADERS = [
  undefined,
  "X-Tenant-Id",
  "X-Workspace",
  "Authorization",
  "Host",
  "content-length",
  "X Y",
  "\x1b[31m",
];
const serverCase: fc.Arbitrary<Case> = fc
  .record({
    name: hostileText,
    image: hostileText,
    status: hostileText,
    command: fc.constantFrom(["deploy", "get", DEP_ID], ["deploy", "list"]),
    format,
    tty: fc.boolean(),
    noColor: fc.boolean(),
    debug: fc.boolean(),
    showSecrets: fc.boolean(),
    tenantHeader: fc.constantFrom(...TENANT_HEADERS),
  })
  .map((c) => {
    const headerOk = c.tenantHeader === undefined || ["X-Tenant-Id", "X-Workspace"].includes(c.tenantHeader);
    const env: Record<string, string> = { CPCTL_BASE_URL: serverUrl, CPCTL_API_KEY: API_KEY };
    if (c.tenantHeader !== undefined) env.CPCTL_TENANT_HEADER = c.tenantHeader;
    const args = [...c.command, "-o", c.format, "--tenant-id", "11111111-1111-4111-8111-111111111111"];
    if (c.noColor) args.push("--no-color");
    if (c.debug) args.push("--debug");
    if (c.showSecrets) args.push("--show-secrets");
    return {
      kind: "hostile server",
      args,
      prepare: () => {
        served = deploymentFrom(c.name, c.image, c.status);
        return { env, tty: c.tty };
      },
      expected: headerOk ? [0] : [2],
      format: c.format,
      showSecrets: c.showSecrets,
    };
  });

const projectCase: fc.Arbitrary<Case> = fc
  .record({
    // A bare entry trusts https:// only: the server here speaks plain http.
    entry: fc.constantFrom("none", "bare", "https", "http"),
    own: fc.boolean(),
    viaFlag: fc.boolean(),
    fromEnv: fc.boolean(),
  })
  .map(({ entry, own, viaFlag, fromEnv }) => {
    const box = sandbox();
    const host = new URL(serverUrl).host;
    const trusted = entry === "http";
    const written = { none: "", bare: host, https: `https://${host}`, http: `http://${host}` }[entry];
    box.user(
      `${written ? `trustedHosts: ["${written}"]\n` : ""}profiles:\n  p:\n    baseUrl: ${DEAD}\n${own ? "" : `    apiKey: ${API_KEY}\n`}`,
    );
    box.project(
      ".cpctlrc.yaml",
      `profiles:\n  p:\n    baseUrl: ${serverUrl}\n${own ? `    apiKey: ${fromEnv ? "${env:K}" : "project-own-key"}\n` : ""}`,
    );
    const userCredential = !own || fromEnv;
    return {
      kind: "project config",
      args: ["deploy", "list", "--profile", "p", "-o", "json", ...(viaFlag ? ["--base-url", serverUrl] : [])],
      prepare: () => {
        served = deploymentFrom("plain", "r.example.com/a:1", "READY");
        return { homeDir: box.home, cwd: box.cwd, env: { K: API_KEY } };
      },
      // With --base-url the address is the user's: the project's own key may not act there.
      expected: viaFlag ? (own && !fromEnv ? [2] : [0]) : trusted || !userCredential ? [0] : [2],
      format: "json",
    };
  });

describe("fuzzed hostile input: every run ends, with a documented exit and clean output", () => {
  property("deployment files, on disk and on stdin", fileCase, 450);
  property("create flags with hostile values", flagCase, 350);
  property("endless stdin", endlessCase, 30);
  property("silent stdin, interrupted", silentCase, 30);
  property("--api-key-file contents", keyCase, 200);
  property("a server sending hostile fields, every format", serverCase, 400);
  property("project config pointing elsewhere", projectCase, 100);

  it("adds up to at least 1,500 cases, none hung, none with a stack trace or an undocumented exit", () => {
    expect(counts.cases).toBeGreaterThanOrEqual(1500);
    expect(counts.hangs).toBe(0);
    expect(counts.stackTraces).toBe(0);
    expect(counts.unexpectedExits).toBe(0);
  });
});
