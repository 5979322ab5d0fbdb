// Injected faults: what a flaky network or a proxy in front of the service does to a client.
// A fault matches requests by method and path and applies to the next `count` of them.
//
// Effects, and whether the real work (e.g. the create) happens:
//   status N        answers N (JSON detail, or an HTML page with body "html"); no work.
//   drop "before"   destroys the socket; no work.
//   drop "after"    does the work, then destroys the socket instead of answering.
//   body "truncated" does the work, answers with half of the JSON (a complete HTTP response).
//   body "html"     alone: a 502 HTML page from "the proxy"; no work.
//   latency_ms      does the work at once and holds the answer (or the drop) back that long,
//                   so a client that times out finds the work done when it looks.
//   retry_after     adds a Retry-After header (seconds) to the answer.
import { STATUS_CODES } from "node:http";
import type { EmulatorFault } from "../../model/emulator-controls.js";
import type { FieldIssue } from "../../model/issue-path.js";
import { fieldIssue, invalid } from "../responses.js";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
const FIELDS = ["method", "path", "count", "status", "retry_after", "latency_ms", "drop", "body"];
const MAX_LATENCY_MS = 10 * 60 * 1000;

export class Faults {
  private faults: (EmulatorFault & { segments: string[] })[] = [];
  private nextId = 1;

  /** Validates a fault description (the JSON body of `POST /_emulator/faults`); 422 if wrong. */
  add(input: unknown): EmulatorFault {
    const fault = parseFault(input, this.nextId);
    this.nextId++;
    this.faults.push({ ...fault, segments: fault.path.split("/") });
    return fault;
  }

  /** The faults with uses left, in the order they match. */
  list(): EmulatorFault[] {
    return this.faults.map(({ segments: _, ...fault }) => fault);
  }

  clear(): void {
    this.faults = [];
  }

  /** The first fault matching this request, with one use taken; null if none. Fast when empty. */
  take(method: string, path: string): EmulatorFault | null {
    if (this.faults.length === 0) return null;
    const segments = path.split("/");
    const index = this.faults.findIndex(
      (f) => (f.method === null || f.method === method) && matches(f.segments, segments),
    );
    if (index < 0) return null;
    const fault = this.faults[index]!;
    fault.remaining--;
    if (fault.remaining <= 0) this.faults.splice(index, 1);
    const { segments: _, ...copy } = fault;
    return copy;
  }
}

/** Whether the request's real work is done under this fault. */
export function faultDoesWork(fault: EmulatorFault): boolean {
  return fault.status === null && fault.drop !== "before" && fault.body !== "html";
}

/** The status a work-less fault answers with (body "html" alone: the proxy's 502). */
export function faultStatus(fault: EmulatorFault): number {
  return fault.status ?? 502;
}

/** The answer with the fault's Retry-After header, when it has one. */
export function withRetryAfter<Answer extends { headers?: Record<string, string> }>(
  answer: Answer,
  fault: EmulatorFault,
): Answer {
  if (fault.retry_after === null) return answer;
  return { ...answer, headers: { ...answer.headers, "Retry-After": String(fault.retry_after) } };
}

export function htmlErrorPage(status: number): Buffer {
  const title = `${status} ${STATUS_CODES[status] ?? "Error"}`;
  return Buffer.from(
    `<!DOCTYPE html>\n<html><head><title>${title}</title></head>\n<body><center><h1>${title}</h1></center>\n<hr><center>emulated proxy</center></body></html>\n`,
  );
}

function matches(pattern: string[], segments: string[]): boolean {
  if (pattern.length !== segments.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== "*" && pattern[i] !== segments[i]) return false;
    if (pattern[i] === "*" && segments[i] === "") return false;
  }
  return true;
}

function parseFault(input: unknown, id: number): EmulatorFault {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw invalid([fieldIssue(["body"], "must be an object describing the fault", "model_attributes_type")]);
  }
  const body = input as Record<string, unknown>;
  const issues: FieldIssue[] = [];
  const problem = (field: string, msg: string) => issues.push(fieldIssue(["body", field], msg));
  for (const key of Object.keys(body)) {
    if (!FIELDS.includes(key))
      issues.push(
        fieldIssue(["body", key], `is not a fault field (${FIELDS.join(", ")})`, "extra_forbidden"),
      );
  }

  const fault: EmulatorFault = {
    id,
    method: null,
    path: "",
    remaining: 1,
    status: null,
    retry_after: null,
    latency_ms: 0,
    drop: null,
    body: null,
  };
  if (body.method != null) {
    const method = typeof body.method === "string" ? body.method.toUpperCase() : "";
    if (METHODS.includes(method)) fault.method = method;
    else problem("method", `must be one of ${METHODS.join(", ")}`);
  }
  if (typeof body.path !== "string" || !body.path.startsWith("/")) {
    problem("path", 'is required: the request path to match, e.g. "/v2/deployments" or "/v2/deployments/*"');
  } else if (body.path.startsWith("/_emulator/")) {
    problem("path", "cannot target the /_emulator/ controls (they would become unreachable)");
  } else {
    fault.path = body.path.length > 1 ? body.path.replace(/\/+$/, "") : body.path;
  }
  fault.remaining = integerField(body, "count", 1, 1_000_000, problem) ?? 1;
  fault.status = integerField(body, "status", 200, 599, problem);
  fault.retry_after = integerField(body, "retry_after", 0, 86_400, problem);
  fault.latency_ms = integerField(body, "latency_ms", 0, MAX_LATENCY_MS, problem) ?? 0;
  if (body.drop != null) {
    if (body.drop === "before" || body.drop === "after") fault.drop = body.drop;
    else problem("drop", 'must be "before" or "after"');
  }
  if (body.body != null) {
    if (body.body === "html" || body.body === "truncated") fault.body = body.body;
    else problem("body", 'must be "html" or "truncated"');
  }

  if (fault.drop && (fault.status !== null || fault.body !== null)) {
    problem("drop", "cannot be combined with status or body: a dropped connection answers nothing");
  }
  if (fault.body === "truncated" && fault.status !== null) {
    problem("body", '"truncated" does the work and cuts its real answer; it cannot be combined with status');
  }
  const hasEffect =
    fault.status !== null ||
    fault.drop !== null ||
    fault.body !== null ||
    fault.latency_ms > 0 ||
    fault.retry_after !== null;
  if (!hasEffect && issues.length === 0) {
    issues.push(
      fieldIssue(["body"], "describes no effect: give status, drop, body, latency_ms or retry_after"),
    );
  }
  if (issues.length) throw invalid(issues);
  return fault;
}

function integerField(
  body: Record<string, unknown>,
  field: string,
  min: number,
  max: number,
  problem: (field: string, msg: string) => void,
): number | null {
  const value = body[field];
  if (value == null) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    problem(field, `must be an integer from ${min} to ${max}`);
    return null;
  }
  return value;
}
