// The fault matrix: every fault the emulator can inject, against list, get, patch, create and
// wait, each cell its own test. For each: the exit code, the message (useful, no stack trace,
// no HTML), what is on the server afterwards (no duplicate, nothing lost), and how many times
// the emulator received the request (a POST or PATCH never twice).
//
// Faults hit the next request (once) or every request (always). Safe calls (list, get, wait)
// face both; create and patch face "once" (their follow-up calls go to other routes, so
// "always" would change nothing). Time is the CLI's instant clock, moving the emulator's
// manual clock in step; the only real time spent is the tiny --request-timeout of the
// latency cells.
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FaultRequest } from "../../src/model/emulator-controls.js";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { type CliResult, cliEnv, instantClock, runCli } from "../helpers/run-cli.js";
import { allDeployments, expectCleanOutput, jsonError, report, sent } from "./helpers.js";

type Op = "list" | "get" | "patch" | "create" | "wait";
type Mode = "once" | "always";

interface FaultCase {
  name: string;
  spec: Omit<FaultRequest, "path" | "method" | "count">;
  /** The status a client sees, when it sees one. */
  status?: number;
  /** Retry-After seconds sent with it. */
  retryAfter?: number;
  /** The work is done although the answer is lost or broken. */
  doesWork: boolean;
  /** The client may retry a safe call after it. */
  retryable: boolean;
}

const FAULTS: FaultCase[] = [
  { name: "500", spec: { status: 500 }, status: 500, doesWork: false, retryable: false },
  { name: "502", spec: { status: 502 }, status: 502, doesWork: false, retryable: true },
  { name: "503", spec: { status: 503 }, status: 503, doesWork: false, retryable: true },
  { name: "504", spec: { status: 504 }, status: 504, doesWork: false, retryable: true },
  { name: "429", spec: { status: 429 }, status: 429, doesWork: false, retryable: true },
  {
    name: "429 with Retry-After",
    spec: { status: 429, retry_after: 3 },
    status: 429,
    retryAfter: 3,
    doesWork: false,
    retryable: true,
  },
  {
    name: "503 with Retry-After",
    spec: { status: 503, retry_after: 2 },
    status: 503,
    retryAfter: 2,
    doesWork: false,
    retryable: true,
  },
  { name: "latency past the timeout", spec: { latency_ms: 120_000 }, doesWork: true, retryable: true },
  { name: "dropped connection before the work", spec: { drop: "before" }, doesWork: false, retryable: true },
  { name: "dropped connection after the work", spec: { drop: "after" }, doesWork: true, retryable: true },
  {
    name: "HTML body (502 from a proxy)",
    spec: { body: "html" },
    status: 502,
    doesWork: false,
    retryable: true,
  },
  { name: "truncated JSON", spec: { body: "truncated" }, doesWork: true, retryable: true },
];

const IMAGE = "registry.example.com/agent:1.0.0";
const NEW_IMAGE = "registry.example.com/agent:2.0.0";
/**
 * Real time a latency cell waits for one answer (everything else has 10 s). The held-back
 * answer never comes in time (it is held for two minutes); the requests after it must come
 * back within this on a busy machine, hence not less.
 */
const SHORT_TIMEOUT = "250ms";

interface Subject {
  id: string;
  revisionId: string;
}

interface OpCase {
  method: string;
  /** The route the fault targets, as the emulator's stats name it. */
  route: string;
  faultPath: (s: Subject) => string;
  argv: (s: Subject) => string[];
  safe: boolean;
}

const OPS: Record<Op, OpCase> = {
  list: {
    method: "GET",
    route: "GET /v2/deployments",
    faultPath: () => "/v2/deployments",
    argv: () => ["deploy", "list", "-o", "json"],
    safe: true,
  },
  get: {
    method: "GET",
    route: "GET /v2/deployments/{deployment_id}",
    faultPath: (s) => `/v2/deployments/${s.id}`,
    argv: (s) => ["deploy", "get", s.id, "-o", "json"],
    safe: true,
  },
  patch: {
    method: "PATCH",
    route: "PATCH /v2/deployments/{deployment_id}",
    faultPath: (s) => `/v2/deployments/${s.id}`,
    argv: (s) => ["deploy", "patch", s.id, "--image-uri", NEW_IMAGE, "-o", "json"],
    safe: false,
  },
  create: {
    method: "POST",
    route: "POST /v2/deployments",
    faultPath: () => "/v2/deployments",
    argv: () => [
      "deploy",
      "create",
      "--name",
      "fresh",
      "--source",
      "internal_container",
      "--image-uri",
      IMAGE,
      "-o",
      "json",
    ],
    safe: false,
  },
  wait: {
    method: "GET",
    route: "GET /v2/deployments/{deployment_id}/revisions/{revision_id}",
    faultPath: (s) => `/v2/deployments/${s.id}/revisions/${s.revisionId}`,
    argv: (s) => [
      "deploy",
      "wait",
      s.id,
      "--revision",
      s.revisionId,
      "--interval",
      "1s",
      "--timeout",
      "10s",
      "-o",
      "json",
    ],
    safe: true,
  },
};

/** What a cell must show. */
interface Expected {
  code: number;
  /** The error's `code` in the JSON error object (absent on success). */
  errorCode?: string;
  /** The message (with hints) must match all of these. */
  message?: RegExp[];
  /** How many times the route was hit. */
  attempts: number;
  /** Deployments afterwards, relative to before. */
  added: 0 | 1;
  /** Revisions of the subject afterwards (patch). */
  revisions?: number;
}

const MAX_ATTEMPTS = 4;

function expected(op: Op, fault: FaultCase, mode: Mode): Expected {
  const spec = OPS[op];
  const isTimeout = fault.spec.latency_ms !== undefined;
  const isDrop = fault.spec.drop !== undefined;
  const isTruncated = fault.spec.body === "truncated";
  const failureMessage = (): RegExp => {
    if (isTimeout) return new RegExp(`no complete answer from 127\\.0\\.0\\.1:\\d+ within ${SHORT_TIMEOUT}`);
    if (isDrop) return /connection to 127\.0\.0\.1:\d+ (was reset|closed)|socket hang up/;
    if (isTruncated) return /JSON body arrived cut short or malformed/;
    if (fault.spec.body === "html") return /HTTP 502 with a non-JSON body \(text\/html/;
    return new RegExp(`HTTP ${fault.status}\\b.* to ${spec.method} /v2/deployments`);
  };
  const errorCode = (): string => {
    if (isTimeout) return "timeout";
    if (isDrop || isTruncated) return "network";
    return fault.status === 429 ? "rate_limited" : "server_error";
  };

  if (op === "wait") {
    // The poll loop rides out every fault; faults that never stop end in the wait's timeout.
    // (How many polls it takes depends on the revision's stages: checked to be several.)
    if (mode === "once") return { code: 0, attempts: -1, added: 0 };
    return {
      code: 6,
      errorCode: "wait_timeout",
      message: [/timed out after 10s/, /Resume with: cpctl deploy wait/],
      attempts: -1,
      added: 0,
    };
  }

  if (spec.safe) {
    // A timeout spends the request's whole deadline (--request-timeout covers its retries):
    // nothing is left to try again with.
    if (!fault.retryable || isTimeout) {
      return { code: 1, errorCode: errorCode(), message: [failureMessage()], attempts: 1, added: 0 };
    }
    if (mode === "once") return { code: 0, attempts: 2, added: 0 };
    return {
      code: 1,
      errorCode: errorCode(),
      message: [failureMessage(), new RegExp(`gave up after ${MAX_ATTEMPTS} attempts`)],
      attempts: MAX_ATTEMPTS,
      added: 0,
    };
  }

  if (op === "create") {
    // Sent once, whatever happens. An ambiguous failure is followed by a look-up by name.
    if (fault.doesWork) return { code: 0, attempts: 1, added: 1 };
    if (fault.status === 429) {
      return {
        code: 1,
        errorCode: errorCode(),
        message: [failureMessage(), /not repeated automatically/],
        attempts: 1,
        added: 0,
      };
    }
    return {
      code: 1,
      errorCode: errorCode(),
      message: [
        failureMessage(),
        /No deployment named 'fresh' exists: the create did not happen, and it is safe to run the command again/,
      ],
      attempts: 1,
      added: 0,
    };
  }

  // patch: sent once; when it may have been applied, the user is told to look. Any 5xx may
  // come after the work (a server that failed half-way, a proxy whose upstream went away).
  const mayHaveApplied = isTimeout || isDrop || (fault.status !== undefined && fault.status >= 500);
  const message = [failureMessage()];
  if (isTruncated) message.push(/was carried out \(HTTP 200\)/);
  else if (mayHaveApplied)
    message.push(/may have been applied by the server; it was not repeated automatically/);
  else if (fault.retryable) message.push(/not repeated automatically/);
  return {
    code: 1,
    errorCode: errorCode(),
    message,
    attempts: 1,
    added: 0,
    revisions: fault.doesWork ? 2 : 1,
  };
}

let em: TestEmulator;
let subject: Subject;
let cells = 0;

beforeEach(async () => {
  em = await startTestEmulator({ stageMs: 1000 });
  const created = await em.createDeployment("internal_container", "subject");
  subject = { id: created.id, revisionId: created.latest_revision_id };
  // A second deployment, so that "nothing lost" is about more than one.
  await em.createDeployment("internal_container", "bystander");
  em.emulator.stats();
});
afterEach(closeTestEmulators);
afterAll(() => report("fault matrix", { cells, faults: FAULTS.length, ops: Object.keys(OPS).length }));

async function runCell(
  op: Op,
  fault: FaultCase,
  mode: Mode,
): Promise<{ result: CliResult; clock: ReturnType<typeof instantClock> }> {
  const spec = OPS[op];
  const before = sent(em, spec.route);
  em.emulator.addFault({
    method: spec.method,
    path: spec.faultPath(subject),
    count: mode === "once" ? 1 : 1000,
    ...fault.spec,
  });
  const clock = instantClock(Date.now(), (ms) => em.advance(ms));
  const timeout = fault.spec.latency_ms !== undefined ? SHORT_TIMEOUT : "10s";
  const result = await runCli(["--request-timeout", timeout, ...spec.argv(subject)], {
    env: cliEnv(em),
    clock,
  });
  em.emulator.clearFaults();
  const attempts = sent(em, spec.route) - before;
  const cell = expected(op, fault, mode);
  cells++;

  expectCleanOutput(result);
  expect(result.code, result.stderr).toBe(cell.code);
  if (cell.attempts >= 0) expect(attempts, `times ${spec.route} was sent`).toBe(cell.attempts);
  else expect(attempts, "polls").toBeGreaterThan(2);
  if (!spec.safe) expect(attempts, "an unsafe request sent more than once").toBe(1);

  if (cell.code === 0) {
    const out = JSON.parse(result.stdout);
    if (op === "list")
      expect(out.map((d: { name: string }) => d.name).sort()).toEqual(["bystander", "subject"]);
    if (op === "get") expect(out.id).toBe(subject.id);
    if (op === "create") expect(out.name).toBe("fresh");
    if (op === "wait") expect(out).toMatchObject({ result: "deployed", status: "DEPLOYED" });
  } else {
    const error = jsonError(result.stderr);
    expect(error.code).toBe(cell.errorCode);
    for (const pattern of cell.message ?? []) expect(error.message).toMatch(pattern);
    if (op !== "wait") expect(result.stdout).toBe("");
  }
  if (fault.retryAfter !== undefined && spec.safe && op !== "wait" && fault.retryable) {
    expect(clock.sleeps).toContain(fault.retryAfter * 1000);
  }
  if (fault.retryAfter !== undefined && op === "wait") {
    expect(clock.sleeps.some((ms) => ms >= fault.retryAfter! * 1000)).toBe(true);
  }

  // What is on the server: every deployment once, nothing lost, nothing doubled.
  const after = await allDeployments(em);
  const names = after.map((d) => d.name).sort();
  expect(names).toEqual(["bystander", ...(cell.added ? ["fresh"] : []), "subject"]);
  expect(new Set(after.map((d) => d.id)).size).toBe(after.length);
  if (cell.revisions !== undefined) {
    const revisions = await em.get(`/v2/deployments/${subject.id}/revisions`);
    expect(revisions.json.resources).toHaveLength(cell.revisions);
  }
  return { result, clock };
}

for (const op of Object.keys(OPS) as Op[]) {
  const modes: Mode[] = OPS[op].safe ? ["once", "always"] : ["once"];
  describe(`deploy ${op}`, () => {
    for (const mode of modes) {
      for (const fault of FAULTS) {
        it(`${fault.name} (${mode})`, async () => {
          await runCell(op, fault, mode);
        });
      }
    }
  });
}

describe("what the user is told after an ambiguous create", () => {
  it("says the deployment was created although the answer was lost, and prints it", async () => {
    const { result } = await runCell("create", FAULTS.find((f) => f.spec.drop === "after")!, "once");
    expect(result.stderr).toContain("checking whether 'fresh' was created anyway");
    expect(result.stderr).toMatch(
      /deployment 'fresh' was created \([0-9a-f-]{36}\) although the answer was lost/,
    );
  });

  it("a wait that never gets an answer says why on each failed poll", async () => {
    const { result } = await runCell("wait", FAULTS.find((f) => f.spec.drop === "before")!, "always");
    expect(result.stderr).toMatch(/poll failed, retrying .*connection to 127\.0\.0\.1:\d+/);
    expect(JSON.parse(result.stdout)).toMatchObject({ result: "timed_out" });
  });
});
