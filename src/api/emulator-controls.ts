// The local control plane's own controls (docs/emulator.md, "Emulator controls"), one typed
// function each, for `cpctl emulator fail-next|clock|reset|...`. They go to the profile's
// address with its credentials, so that the controls that touch a tenant's data act in the
// caller's tenant, as the API does. The emulator-wide ones (clock, faults, stats, reset) also
// send the control token when there is one (an emulator started with --control-token). A POST
// is never repeated by the client (POST is not retry-safe): a retry could act twice.
//
// Two checks keep a control from going where it should not, or from crashing on what comes
// back. First the address is asked whether it is an emulator (EmulatorTarget.check: one GET
// with no credential, answered as only an emulator answers), and only an EmulatorTarget takes
// a control: the hosted control plane or some other server never sees the key, the token or a
// control. Then each answer is read only once it has its control's shape
// (model/emulator-control-answers.ts).
import type * as z from "zod/mini";
import { ApiError, NetworkError, OperationError, UsageError } from "../errors.js";
import {
  EmulatorClockAnswer,
  EmulatorFaultAnswer,
  EmulatorFaultList,
  EmulatorHealthAnswer,
  EmulatorStatsAnswer,
  FailRuleAnswer,
  FailRuleList,
  HealthControlAnswerShape,
  TracingProjectList,
} from "../model/emulator-control-answers.js";
import {
  EMULATOR_SERVICE,
  type EmulatorClock,
  type EmulatorFault,
  type EmulatorHealth,
  type EmulatorStats,
  type FailRule,
  type FaultRequest,
  type HealthControlAnswer,
  type TracingProjectView,
} from "../model/emulator-controls.js";
import { formatPath } from "../model/issue-path.js";
import { Revision, type RevisionT } from "../model/responses.js";
import type { ApiClient, RequestOptions } from "./client.js";
import { pathSegment } from "./endpoints.js";

/** The emulator-wide controls' credential: `X-Control-Token`, when the emulator asks for one. */
export type ControlToken = string | undefined;

const HEALTH = "/_emulator/health";

/** The address did not answer as an emulator: nothing but the question was sent. Exit 2. */
export class NotAnEmulatorError extends UsageError {
  override readonly code = "not_an_emulator";
}

/** An address that answered as an emulator: the only thing the controls below are sent to. */
export class EmulatorTarget {
  private constructor(
    readonly api: ApiClient,
    readonly health: EmulatorHealth,
  ) {}

  /**
   * Asks the client's address whether it is an emulator: `GET /_emulator/health` with no
   * credential, tenant or control token, which an emulator answers to anyone. Anything but its
   * answer (another status, another body, a page) is a NotAnEmulatorError naming the address.
   * A failure to reach it is the usual network error.
   */
  static async check(api: ApiClient): Promise<EmulatorTarget> {
    let body: unknown;
    try {
      body = (await api.get<unknown>(HEALTH, { withoutCredentials: true })).body;
    } catch (error) {
      if (error instanceof ApiError) throw notAnEmulator(api, `answered HTTP ${error.status}`);
      if (error instanceof NetworkError && error.kind === "bad_response")
        throw notAnEmulator(api, "answered with a body that could not be read as JSON");
      throw error;
    }
    const parsed = EmulatorHealthAnswer.safeParse(body);
    if (!parsed.success) throw notAnEmulator(api, "answered with JSON that is not an emulator's health");
    return new EmulatorTarget(api, parsed.data);
  }

  /** A control sent, its answer checked against `shape` (none for an answer with no body). */
  async send<T>(
    method: string,
    path: string,
    shape: z.ZodMiniType<T> | null,
    opts: RequestOptions = {},
  ): Promise<T> {
    const { body } = await this.api.request<unknown>(method, path, opts);
    if (shape === null) return undefined as T;
    const parsed = shape.safeParse(body);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue ? formatPath(issue.path) : "";
    throw new OperationError(
      `the emulator at ${this.api.address} answered ${method} ${path.split("?")[0]} with something that is not what that control answers (${where ? `${where}: ` : ""}${issue ? expected(issue) : "another shape"}); is it an emulator of another cpctl version?`,
      "unexpected_answer",
    );
  }
}

function notAnEmulator(api: ApiClient, answered: string): NotAnEmulatorError {
  return new NotAnEmulatorError(
    `${api.address} is not a cpctl emulator: GET ${HEALTH} ${answered}, where an emulator answers {"status": "ok", "service": "${EMULATOR_SERVICE}", ...}. The emulator controls go only to a local control plane (cpctl emulator); nothing else was sent, no credential, no control`,
  );
}

/** What the answer should have held, in words; never the value that came (it may be anything). */
function expected(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type") return `expected ${issue.expected}`;
  if (issue.code === "invalid_value")
    return `expected ${issue.values.map((v) => JSON.stringify(v)).join(" or ")}`;
  if (issue.code === "invalid_format") return `expected ${issue.format}`;
  return "not of the expected form";
}

const operator = (token: ControlToken): RequestOptions =>
  token ? { headers: { "X-Control-Token": token } } : {};

export function failNextRevision(
  target: EmulatorTarget,
  rule: { stage: string; deployment_id?: string; message?: string },
): Promise<FailRule> {
  return target.send("POST", "/_emulator/revisions/fail-next", FailRuleAnswer, { body: rule });
}

export async function failRules(target: EmulatorTarget): Promise<FailRule[]> {
  return (await target.send("GET", "/_emulator/revisions/fail-next", FailRuleList)).rules;
}

export function failRevision(
  target: EmulatorTarget,
  deploymentId: string,
  revisionId: string,
  failure: { stage: string; message?: string },
): Promise<RevisionT> {
  const path = `/_emulator/deployments/${pathSegment(deploymentId)}/revisions/${pathSegment(revisionId)}/fail`;
  return target.send("POST", path, Revision, { body: failure });
}

/** Marks the health of a deployment's agent server: of `revision_id`, or of the next revision to start. */
export function setAgentHealth(
  target: EmulatorTarget,
  deploymentId: string,
  health: { state: "failing" | "ok"; revision_id?: string },
): Promise<HealthControlAnswer> {
  const path = `/_emulator/deployments/${pathSegment(deploymentId)}/health`;
  return target.send("POST", path, HealthControlAnswerShape, { body: health });
}

export function simulatePush(
  target: EmulatorTarget,
  deploymentId: string,
  push: { branch?: string; sha?: string },
): Promise<RevisionT> {
  return target.send("POST", `/_emulator/deployments/${pathSegment(deploymentId)}/push`, Revision, {
    body: push,
  });
}

export function emulatorClock(target: EmulatorTarget, token: ControlToken): Promise<EmulatorClock> {
  return target.send("GET", "/_emulator/clock", EmulatorClockAnswer, operator(token));
}

export function advanceClock(
  target: EmulatorTarget,
  token: ControlToken,
  ms: number,
): Promise<EmulatorClock> {
  return target.send("POST", "/_emulator/clock", EmulatorClockAnswer, {
    ...operator(token),
    body: { advance_ms: ms },
  });
}

export function addFault(
  target: EmulatorTarget,
  token: ControlToken,
  fault: FaultRequest,
): Promise<EmulatorFault> {
  return target.send("POST", "/_emulator/faults", EmulatorFaultAnswer, { ...operator(token), body: fault });
}

export async function listFaults(target: EmulatorTarget, token: ControlToken): Promise<EmulatorFault[]> {
  return (await target.send("GET", "/_emulator/faults", EmulatorFaultList, operator(token))).faults;
}

export async function clearFaults(target: EmulatorTarget, token: ControlToken): Promise<void> {
  await target.send("DELETE", "/_emulator/faults", null, operator(token));
}

export function emulatorStats(target: EmulatorTarget, token: ControlToken): Promise<EmulatorStats> {
  return target.send("GET", "/_emulator/stats", EmulatorStatsAnswer, operator(token));
}

export async function tracingProjects(target: EmulatorTarget): Promise<TracingProjectView[]> {
  return (await target.send("GET", "/_emulator/tracing-projects", TracingProjectList)).resources;
}

/** Deletes every tenant's deployments, revisions, uploads, tracing projects, fail rules and faults. */
export async function resetEmulator(target: EmulatorTarget, token: ControlToken): Promise<void> {
  // A control POST must say it is JSON (the emulator keeps web pages out that way), body or not.
  await target.send("POST", "/_emulator/reset", null, { ...operator(token), body: {} });
}
