// What the log endpoints are asked (service-facts "Logs" and "Newer endpoints") and the paging
// of their answers. Two ways to ask, one filter:
//
// - the body of the /v1/projects calls (JSON, every field optional, null the same as absent):
//   limit default LOG_LIMIT_DEFAULT, order default "desc"; level and order in any case; times
//   ISO 8601 or epoch milliseconds. Unknown fields are refused (422), as in the other request
//   bodies: a typo such as `start` for `start_time` would otherwise silently widen the answer.
// - the query of GET /v2/deployments/{id}/revisions/{rid}/logs, as the OpenAPI document says:
//   `type` required (build or deploy), limit default V2_LIMIT_DEFAULT, order default "asc",
//   order, type and level exactly as the document's enums, times ISO 8601; `run_id` accepted
//   and ignored (emulated entries belong to no run); an empty value is absent, and other
//   parameters are ignored, as the service's framework does. Each problem is a 422 at
//   `loc: ["query", <name>]`.
//
// - the query of GET /v2/deployment-logs (service-facts "Newer endpoints"), which reads the same
//   entries across a deployment's revisions under other names: `page_size` (1 to 100, default
//   20) for limit, `sort_order` for order, `cursor` for offset, `log_type` (BUILD or DEPLOY,
//   default DEPLOY) for type; `deployment_id` required and `revision_id` optional, both UUIDs.
//   Its answer is {"items", "next_cursor"}, and next_cursor is null once nothing is left, in
//   either order (a client pages while it is not null; to follow a log, repeat the last call
//   with start_time).
//
//   limit       1 to LOG_LIMIT_MAX entries
//   order       "asc" (oldest first) or "desc" (newest first)
//   offset      the next_offset of the previous answer
//   level       DEBUG, INFO, WARNING, ERROR or CRITICAL: that level and the more severe ones
//   query       text the message contains, case-insensitive
//   start_time  entries at or after this instant
//   end_time    entries at or before this instant
//
// Answer: {"logs": [{id, timestamp, level, message}], "next_offset": string | null}, entries
// in `order` by (timestamp, revision creation order, build before deploy before requests,
// position), the timestamp an ISO 8601 string in UTC with milliseconds. next_offset is an
// opaque cursor naming the last entry of the page, the same on both endpoints. A cursor is a
// position, not a count: entries that appear later (the log grows) are found by the next call,
// and none is listed twice. Oldest first, it is given at the end of the log too (service-facts
// "Logs": both public clients stream a build by repeating the call with the last cursor): the
// last entry given, or with no entry, the cursor the call was given, so that the next call gets
// only what was appended since. A page shorter than `limit` is the end for now. Newest first,
// it is null at the end: nothing older will ever appear.
import { isUuid, LOG_LEVELS, LOG_LIMIT_DEFAULT, LOG_LIMIT_MAX, LOG_LIMIT_MIN } from "../../model/enums.js";
import type { FieldIssue } from "../../model/issue-path.js";
import { fieldIssue, invalid } from "../responses.js";
import { iso } from "../store/clock.js";
import { compareKeys, type LogEntry, type LogFilter, type LogKey, type LogStream } from "./log-streams.js";

export interface LogEntryView {
  id: string;
  timestamp: string;
  level: string;
  message: string;
}

export interface LogPage {
  logs: LogEntryView[];
  next_offset: string | null;
}

/** The v2 endpoint's `type`: which of the revision's logs. */
export type LogType = "build" | "deploy";

/** The v2 endpoint's default page (the OpenAPI document's). */
export const V2_LIMIT_DEFAULT = 50;

/** GET /v2/deployment-logs: its page_size bounds and default (the OpenAPI document's). */
export const DEPLOYMENT_LOGS_PAGE_MAX = 100;
export const DEPLOYMENT_LOGS_PAGE_DEFAULT = 20;

const FIELDS = ["limit", "order", "offset", "level", "query", "start_time", "end_time"];
const LOG_TYPES: readonly LogType[] = ["build", "deploy"];
const MAX_QUERY_LENGTH = 1000;

/** How one endpoint takes the fields: where they are, their defaults, and how strict. */
interface Rules {
  place: "body" | "query";
  limit: number;
  maxLimit: number;
  order: "asc" | "desc";
  /** Enums exactly as written (the document's query), or in any case (the v1 body). */
  exactCase: boolean;
  /** The names the fields go by where they differ (deployment-logs' page_size, sort_order, cursor). */
  names?: Record<string, string>;
  /** The answer's field that holds the cursor. */
  cursorField: "next_offset" | "next_cursor";
}

const BODY_RULES: Rules = {
  place: "body",
  limit: LOG_LIMIT_DEFAULT,
  maxLimit: LOG_LIMIT_MAX,
  order: "desc",
  exactCase: false,
  cursorField: "next_offset",
};
const QUERY_RULES: Rules = {
  place: "query",
  limit: V2_LIMIT_DEFAULT,
  maxLimit: LOG_LIMIT_MAX,
  order: "asc",
  exactCase: true,
  cursorField: "next_offset",
};
const DEPLOYMENT_LOGS_RULES: Rules = {
  place: "query",
  limit: DEPLOYMENT_LOGS_PAGE_DEFAULT,
  maxLimit: DEPLOYMENT_LOGS_PAGE_MAX,
  order: "asc",
  exactCase: true,
  names: { limit: "page_size", order: "sort_order", offset: "cursor" },
  cursorField: "next_cursor",
};

/** The filter a /v1 body asks for, as of `now` (no entry is later than now). Throws 422 listing every problem. */
export function parseLogBody(input: unknown, now: number): LogFilter {
  const body = input ?? {};
  if (typeof body !== "object" || Array.isArray(body)) {
    throw invalid([fieldIssue(["body"], "must be a JSON object", "model_attributes_type")]);
  }
  const fields = body as Record<string, unknown>;
  const issues: FieldIssue[] = [];
  for (const key of Object.keys(fields)) {
    if (!FIELDS.includes(key)) {
      issues.push(
        fieldIssue(
          ["body", key],
          `is not a known field; the fields are ${FIELDS.join(", ")}`,
          "extra_forbidden",
        ),
      );
    }
  }
  const filter = parseFields(fields, BODY_RULES, now, issues);
  if (issues.length) throw invalid(issues);
  return filter;
}

/** The log type and filter the v2 query asks for, as of `now`. Throws 422 listing every problem. */
export function parseLogQuery(query: URLSearchParams, now: number): { type: LogType; filter: LogFilter } {
  const issues: FieldIssue[] = [];
  const fields = queryFields(query, QUERY_RULES);
  const type = query.get("type");
  if (!type) issues.push(fieldIssue(["query", "type"], "Field required", "missing"));
  else if (!(LOG_TYPES as readonly string[]).includes(type)) {
    issues.push(
      fieldIssue(["query", "type"], `must be one of 'build', 'deploy', not ${quoted(type)}`, "enum"),
    );
  }
  const filter = parseFields(fields, QUERY_RULES, now, issues);
  if (issues.length) throw invalid(issues);
  return { type: type as LogType, filter };
}

/** What GET /v2/deployment-logs asks for: whose log, which type, and the filter, as of `now`. Throws 422 listing every problem. */
export function parseDeploymentLogQuery(
  query: URLSearchParams,
  now: number,
): { deploymentId: string; revisionId: string | null; type: LogType; filter: LogFilter } {
  const issues: FieldIssue[] = [];
  const id = (name: string, required: boolean): string | null => {
    const value = query.get(name);
    if (!value) {
      if (required) issues.push(fieldIssue(["query", name], "Field required", "missing"));
      return null;
    }
    if (isUuid(value)) return value.toLowerCase();
    issues.push(fieldIssue(["query", name], `must be a UUID, not ${quoted(value)}`, "uuid_parsing"));
    return null;
  };
  const deploymentId = id("deployment_id", true);
  const revisionId = id("revision_id", false);
  let type: LogType = "deploy";
  const logType = query.get("log_type");
  if (logType === "BUILD" || logType === "DEPLOY") type = logType === "BUILD" ? "build" : "deploy";
  else if (logType) {
    issues.push(
      fieldIssue(["query", "log_type"], `must be one of 'BUILD', 'DEPLOY', not ${quoted(logType)}`, "enum"),
    );
  }
  const filter = parseFields(queryFields(query, DEPLOYMENT_LOGS_RULES), DEPLOYMENT_LOGS_RULES, now, issues);
  if (issues.length) throw invalid(issues);
  return { deploymentId: deploymentId!, revisionId, type, filter };
}

/** The fields a query gives, under the names `rules` gives them; a limit's digits as a number. */
function queryFields(query: URLSearchParams, rules: Rules): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const name of FIELDS) {
    const value = query.get(rules.names?.[name] ?? name);
    if (value) fields[name] = value;
  }
  if (typeof fields.limit === "string" && /^[+-]?\d{1,16}$/.test(fields.limit))
    fields.limit = Number(fields.limit);
  return fields;
}

function parseFields(
  fields: Record<string, unknown>,
  rules: Rules,
  now: number,
  issues: FieldIssue[],
): LogFilter {
  const at = (name: string) => [rules.place, rules.names?.[name] ?? name];
  const cased = (value: unknown, change: (text: string) => string) =>
    typeof value === "string" ? (rules.exactCase ? value : change(value)) : null;

  let limit = rules.limit;
  if (fields.limit != null) {
    const value = fields.limit;
    if (typeof value !== "number" || !Number.isInteger(value)) {
      const type = rules.place === "query" ? "int_parsing" : "int_type";
      issues.push(fieldIssue(at("limit"), "must be an integer", type));
    } else if (value < LOG_LIMIT_MIN || value > rules.maxLimit) {
      issues.push(
        fieldIssue(
          at("limit"),
          `must be between ${LOG_LIMIT_MIN} and ${rules.maxLimit}, not ${value}`,
          value < LOG_LIMIT_MIN ? "greater_than_equal" : "less_than_equal",
        ),
      );
    } else limit = value;
  }

  let order = rules.order;
  if (fields.order != null) {
    const value = cased(fields.order, (text) => text.toLowerCase());
    if (value === "asc" || value === "desc") order = value;
    else issues.push(fieldIssue(at("order"), "must be one of 'asc', 'desc'", "enum"));
  }

  let after: LogKey | null = null;
  if (fields.offset != null) {
    after = typeof fields.offset === "string" ? decodeOffset(fields.offset) : null;
    if (!after) {
      issues.push(
        fieldIssue(
          at("offset"),
          `must be the ${rules.cursorField} of a previous answer (an opaque string), or null`,
          "value_error",
        ),
      );
    }
  }

  let minLevel = 0;
  if (fields.level != null) {
    const value = cased(fields.level, (text) => text.toUpperCase()) ?? "";
    const index = (LOG_LEVELS as readonly string[]).indexOf(value);
    if (index >= 0) minLevel = index;
    else issues.push(fieldIssue(at("level"), `must be one of ${LOG_LEVELS.join(", ")}`, "enum"));
  }

  let text: string | null = null;
  if (fields.query != null) {
    if (typeof fields.query !== "string" || fields.query.length > MAX_QUERY_LENGTH) {
      issues.push(
        fieldIssue(at("query"), `must be a string of at most ${MAX_QUERY_LENGTH} characters`, "string_type"),
      );
    } else if (fields.query !== "") text = fields.query.toLowerCase();
  }

  const start = instant(fields.start_time, at("start_time"), issues);
  const end = instant(fields.end_time, at("end_time"), issues);
  if (start !== null && end !== null && start > end) {
    issues.push(fieldIssue(at("end_time"), "must not be before start_time", "value_error"));
  }
  return {
    order,
    after,
    from: start ?? Number.NEGATIVE_INFINITY,
    to: Math.min(end ?? Number.POSITIVE_INFINITY, now),
    minLevel,
    text,
    limit,
  };
}

const quoted = (value: string) => JSON.stringify(value.slice(0, 40));

/**
 * One page of the entries of `streams` that pass `filter`. `cursorAtEnd`: oldest first, a
 * cursor also when nothing is left (the revision log endpoints, which clients follow with it);
 * false: null once nothing is left (GET /v2/deployment-logs).
 */
export function readLog(
  streams: readonly LogStream[],
  filter: LogFilter,
  { cursorAtEnd = true }: { cursorAtEnd?: boolean } = {},
): LogPage {
  // One more than the page from each stream: enough to know whether anything lies beyond it.
  const probe = { ...filter, limit: filter.limit + 1 };
  const direction = filter.order === "asc" ? 1 : -1;
  const merged = streams
    .flatMap((stream) => stream.take(probe))
    .sort((a, b) => direction * compareKeys(a, b));
  const page = merged.slice(0, filter.limit);
  const last = page.at(-1);
  const more = merged.length > filter.limit;
  const position = last ?? filter.after;
  return {
    logs: page.map(view),
    next_offset:
      position && (more || (cursorAtEnd && filter.order === "asc")) ? encodeOffset(position) : null,
  };
}

function view(entry: LogEntry): LogEntryView {
  return { id: entry.id, timestamp: iso(entry.ts), level: entry.level, message: entry.message };
}

// The cursor: the key of the last entry given, in a versioned text, base64url so that
// clients treat it as the opaque token it is.
const OFFSET_PATTERN = /^l1:(-?\d{1,16}):(\d{1,16}):(\d{1,2}):(\d{1,16})$/;

export function encodeOffset(key: LogKey): string {
  return Buffer.from(`l1:${key.ts}:${key.seq}:${key.stream}:${key.index}`).toString("base64url");
}

export function decodeOffset(offset: string): LogKey | null {
  if (offset.length > 200 || !/^[A-Za-z0-9_-]+$/.test(offset)) return null;
  const match = OFFSET_PATTERN.exec(Buffer.from(offset, "base64url").toString("latin1"));
  if (!match) return null;
  return { ts: Number(match[1]), seq: Number(match[2]), stream: Number(match[3]), index: Number(match[4]) };
}

// ISO 8601: a date, or a date and time (seconds and fractions optional) with Z or an offset;
// without one it is UTC, as the service's timestamps are.
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|z|[+-]\d{2}:?\d{2})?$/;

function instant(value: unknown, loc: string[], issues: FieldIssue[]): number | null {
  if (value == null) return null;
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "string") {
    const match = ISO_INSTANT.exec(value);
    if (match) {
      const [, y, mo, d, h = "00", mi = "00", s = "00", fraction = "", zone = "Z"] = match;
      // Date.parse rolls 2025-02-30 over into March and takes 24:00: check the fields first.
      const daysInMonth = new Date(Date.UTC(Number(y), Number(mo), 0)).getUTCDate();
      const valid =
        Number(mo) >= 1 &&
        Number(mo) <= 12 &&
        Number(d) >= 1 &&
        Number(d) <= daysInMonth &&
        Number(h) <= 23 &&
        Number(mi) <= 59 &&
        Number(s) <= 59;
      const offset = zone.toUpperCase() === "Z" ? "Z" : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
      const ms = Date.parse(
        `${y}-${mo}-${d}T${h}:${mi}:${s}.${fraction.padEnd(3, "0").slice(0, 3)}${offset}`,
      );
      if (valid && Number.isFinite(ms)) return ms;
    }
  }
  issues.push(
    fieldIssue(
      loc,
      loc[0] === "query"
        ? "must be an ISO 8601 date-time (e.g. 2025-01-01T12:00:00.000Z)"
        : "must be an ISO 8601 date-time (e.g. 2025-01-01T12:00:00.000Z) or epoch milliseconds",
      "datetime_parsing",
    ),
  );
  return null;
}
