// What handlers return and throw. Handlers never touch the socket: they return a value (or
// throw an HttpError), and the server writes it. That keeps faults (latency, drops, truncated
// bodies) in one place, applied to an answer that is already complete.
import type { FieldIssue } from "../model/issue-path.js";
import { visibleLines } from "../util/visible-text.js";

export interface EmulatorResponse {
  status: number;
  /** Serialised as JSON. Absent (and no jsonText/raw): no body (204). */
  json?: unknown;
  /** A JSON body already serialised (the list endpoints assemble cached pieces). */
  jsonText?: string;
  /** A non-JSON body (only the HTML fault page uses it). */
  raw?: { body: Buffer; contentType: string };
  headers?: Record<string, string>;
}

/**
 * An error answer, in the service's shapes (spec 7): `detail` is a string for 4xx/5xx in
 * general, a list of `{loc, msg, type}` for 422.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | FieldIssue[],
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === "string" ? detail : detail.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "));
    this.name = "HttpError";
  }

  toResponse(): EmulatorResponse {
    return { status: this.status, json: { detail: this.detail }, headers: this.headers };
  }
}

export function ok(json: unknown, status = 200): EmulatorResponse {
  return { status, json };
}

export function noContent(): EmulatorResponse {
  return { status: 204 };
}

export function fieldIssue(loc: (string | number)[], msg: string, type = "value_error"): FieldIssue {
  return { loc, msg, type };
}

export function invalid(issues: FieldIssue[]): HttpError {
  return new HttpError(422, issues);
}

export function invalidField(loc: (string | number)[], msg: string, type = "value_error"): HttpError {
  return invalid([fieldIssue(loc, msg, type)]);
}

export function deploymentNotFound(id: string): HttpError {
  return new HttpError(404, `Deployment ID ${id} not found.`);
}

export function revisionNotFound(id: string): HttpError {
  return new HttpError(404, `Revision ID ${id} not found.`);
}

/**
 * A line for whoever runs the emulator, on its stderr: what it quotes (a path, an error's
 * message) is shown, never acted on (util/visible-text.ts).
 */
export function tellOperator(message: string): void {
  process.stderr.write(visibleLines(`cpctl emulator: ${message}\n`));
}
