// The local control plane's own controls (docs/emulator.md, "Emulator controls"), one typed
// function each, for `cpctl emulator fail-next|clock|reset|...`. They go to the profile's
// address with its credentials, so that the controls that touch a tenant's data act in the
// caller's tenant, as the API does. The emulator-wide ones (clock, faults, stats, reset) also
// send the control token when there is one (an emulator started with --control-token). A POST
// is never repeated by the client (POST is not retry-safe): a retry could act twice.
import type {
  EmulatorClock,
  EmulatorFault,
  EmulatorStats,
  FailRule,
  FaultRequest,
  HealthControlAnswer,
  TracingProjectView,
} from "../model/emulator-controls.js";
import type { RevisionT } from "../model/responses.js";
import type { ApiClient, RequestOptions } from "./client.js";
import { pathSegment } from "./endpoints.js";

/** The emulator-wide controls' credential: `X-Control-Token`, when the emulator asks for one. */
export type ControlToken = string | undefined;

const operator = (token: ControlToken): RequestOptions =>
  token ? { headers: { "X-Control-Token": token } } : {};

export async function failNextRevision(
  api: ApiClient,
  rule: { stage: string; deployment_id?: string; message?: string },
): Promise<FailRule> {
  return (await api.post<FailRule>("/_emulator/revisions/fail-next", rule)).body;
}

export async function failRules(api: ApiClient): Promise<FailRule[]> {
  return (await api.get<{ rules: FailRule[] }>("/_emulator/revisions/fail-next")).body.rules;
}

export async function failRevision(
  api: ApiClient,
  deploymentId: string,
  revisionId: string,
  failure: { stage: string; message?: string },
): Promise<RevisionT> {
  const path = `/_emulator/deployments/${pathSegment(deploymentId)}/revisions/${pathSegment(revisionId)}/fail`;
  return (await api.post<RevisionT>(path, failure)).body;
}

/** Marks the health of a deployment's agent server: of `revision_id`, or of the next revision to start. */
export async function setAgentHealth(
  api: ApiClient,
  deploymentId: string,
  health: { state: "failing" | "ok"; revision_id?: string },
): Promise<HealthControlAnswer> {
  const path = `/_emulator/deployments/${pathSegment(deploymentId)}/health`;
  return (await api.post<HealthControlAnswer>(path, health)).body;
}

export async function simulatePush(
  api: ApiClient,
  deploymentId: string,
  push: { branch?: string; sha?: string },
): Promise<RevisionT> {
  return (await api.post<RevisionT>(`/_emulator/deployments/${pathSegment(deploymentId)}/push`, push)).body;
}

export async function emulatorClock(api: ApiClient, token: ControlToken): Promise<EmulatorClock> {
  return (await api.get<EmulatorClock>("/_emulator/clock", operator(token))).body;
}

export async function advanceClock(api: ApiClient, token: ControlToken, ms: number): Promise<EmulatorClock> {
  return (await api.post<EmulatorClock>("/_emulator/clock", { advance_ms: ms }, operator(token))).body;
}

export async function addFault(
  api: ApiClient,
  token: ControlToken,
  fault: FaultRequest,
): Promise<EmulatorFault> {
  return (await api.post<EmulatorFault>("/_emulator/faults", fault, operator(token))).body;
}

export async function listFaults(api: ApiClient, token: ControlToken): Promise<EmulatorFault[]> {
  return (await api.get<{ faults: EmulatorFault[] }>("/_emulator/faults", operator(token))).body.faults;
}

export async function clearFaults(api: ApiClient, token: ControlToken): Promise<void> {
  await api.delete("/_emulator/faults", operator(token));
}

export async function emulatorStats(api: ApiClient, token: ControlToken): Promise<EmulatorStats> {
  return (await api.get<EmulatorStats>("/_emulator/stats", operator(token))).body;
}

export async function tracingProjects(api: ApiClient): Promise<TracingProjectView[]> {
  return (await api.get<{ resources: TracingProjectView[] }>("/_emulator/tracing-projects")).body.resources;
}

/** Deletes every tenant's deployments, revisions, uploads, tracing projects, fail rules and faults. */
export async function resetEmulator(api: ApiClient, token: ControlToken): Promise<void> {
  // A control POST must say it is JSON (the emulator keeps web pages out that way), body or not.
  await api.post("/_emulator/reset", {}, operator(token));
}
