// Reading a log as `deploy logs`, the failure tail of a wait and `--logs` do: the newest
// entries, everything from a time on (or the whole log), or following as it grows. Entries
// come back oldest first whatever order they were asked in.
//
// Every read goes to the endpoint the run has settled on (LogReader.endpoints): the documented
// v2 one, or the /v1/projects calls once the service has answered v2 with 404 (the rule:
// api/log-endpoints.ts), remembered for the rest of the run, every reader of it alike.
//
// Every entry is masked as it is read (LogReader): a build log may print a secret value of the
// run (a --secret, a secrets file, the deployment's own secrets once read), and every way a
// log line reaches a person (a line streamed while waiting, a failure's tail, an ndjson event,
// a CI summary, `deploy logs`) starts here. Only --show-secrets leaves the entries as they are.
//
// Pages are the service's largest (LOG_LIMIT_MAX, 1,000 entries): a log of 21,000 lines is 22
// requests, and `--limit 1000` one. A pager stops at the end of the log as the service marks
// it (no cursor, or a page shorter than asked: the end for now, although a server may give a
// cursor there to resume from later), and refuses a cursor it was already given, which would
// otherwise read the same page forever.
import type { ApiClient } from "../api/client.js";
import type { LogQuery, LogSource } from "../api/endpoints.js";
import { LogEndpoints } from "../api/log-endpoints.js";
import type { Ctx } from "../context.js";
import { NetworkError } from "../errors.js";
import { LOG_LIMIT_MAX } from "../model/enums.js";
import type { DeploymentT, LogEntry } from "../model/responses.js";
import { entryTime } from "../output/log-lines.js";
import { createMasker, maskSecretValues } from "../secrets.js";

/**
 * How this run reads logs: the client, the endpoint every read goes to, and the mask every
 * entry passes through as it is read.
 */
export interface LogReader {
  readonly api: ApiClient;
  readonly endpoints: LogEndpoints;
  mask(entries: LogEntry[]): LogEntry[];
}

/** One choice of endpoint a run (a run has one client): a fallback found by one reader holds for all. */
const endpointsOfRun = new WeakMap<ApiClient, LogEndpoints>();

/**
 * The run's log reader. The secrets are asked for at each page, not once: one remembered later
 * (the deployment read after a patch) is masked from then on.
 */
export async function logReader(ctx: Ctx): Promise<LogReader> {
  const api = await ctx.api();
  let endpoints = endpointsOfRun.get(api);
  if (!endpoints) {
    endpoints = new LogEndpoints(api, (line) => ctx.log.debug(line));
    endpointsOfRun.set(api, endpoints);
  }
  if (ctx.flags.showSecrets) return { api, endpoints, mask: (entries) => entries };
  return { api, endpoints, mask: (entries) => maskSecretValues(entries, createMasker(ctx.knownSecrets())) };
}

/**
 * The runtime log `deploy logs NAME` reads: the revision that serves (the active one, else the
 * latest), or null when the deployment has none. `wholeDeployment`: from /v1, the whole
 * deployment's runtime log, as /v1 gives it.
 */
export function servingLog(deployment: DeploymentT): LogSource | null {
  const revisionId = deployment.active_revision_id ?? deployment.latest_revision_id;
  if (!revisionId) return null;
  return { kind: "runtime", deploymentId: deployment.id, revisionId, wholeDeployment: true };
}

export interface LogFilters {
  /** At least this level (DEBUG, INFO, WARNING, ERROR, CRITICAL). */
  level?: string;
  /** Only entries whose message contains this text. */
  grep?: string;
  /** ISO 8601. */
  since?: string;
  until?: string;
}

function baseQuery(filters: LogFilters): LogQuery {
  return {
    level: filters.level,
    query: filters.grep,
    start_time: filters.since,
    end_time: filters.until,
  };
}

/** One page, its shape checked (a server's answer is input like any other), masked. */
async function readPage(
  reader: LogReader,
  source: LogSource,
  query: LogQuery,
): Promise<{ logs: LogEntry[]; cursor: string | null }> {
  const page: unknown = await reader.endpoints.read(source, query);
  const logs = isRecord(page) ? page.logs : undefined;
  if (!Array.isArray(logs) || !logs.every(isRecord)) {
    throw new NetworkError(
      `the server answered a log request without a "logs" list: is --base-url the control plane API?`,
      "bad_response",
      true,
    );
  }
  const cursor = isRecord(page) && typeof page.next_offset === "string" ? page.next_offset : null;
  return { logs: reader.mask(logs as unknown as LogEntry[]), cursor };
}

/**
 * The cursors of one read of a log, in order: the next one to send, or null at the end. A page
 * shorter than asked is the end, whatever its cursor; a cursor given twice is an error.
 */
class Cursors {
  private readonly given = new Set<string>();

  next(cursor: string | null, asked: number, got: number): string | null {
    if (cursor === null || got < asked) return null;
    if (this.given.has(cursor)) {
      throw new NetworkError(
        "the server gave the same log cursor (next_offset) twice; stopping instead of reading the same entries forever",
        "bad_response",
        true,
      );
    }
    this.given.add(cursor);
    return cursor;
  }
}

/** The newest `limit` entries matching the filters, oldest first. */
export async function newestEntries(
  reader: LogReader,
  source: LogSource,
  filters: LogFilters,
  limit: number,
): Promise<LogEntry[]> {
  const newestFirst: LogEntry[] = [];
  const cursors = new Cursors();
  let offset: string | null = null;
  do {
    const asked = Math.min(LOG_LIMIT_MAX, limit - newestFirst.length);
    const page = await readPage(reader, source, {
      ...baseQuery(filters),
      order: "desc",
      limit: asked,
      offset: offset ?? undefined,
    });
    newestFirst.push(...page.logs.slice(0, asked));
    offset = cursors.next(page.cursor, asked, page.logs.length);
  } while (offset !== null && newestFirst.length < limit);
  return newestFirst.reverse();
}

/**
 * Every entry from `filters.since` on (the whole log without it; at most `limit`), oldest
 * first, a page at a time as each arrives: the first is printed one round trip after the ask.
 * The next page is asked for as soon as this one's cursor is known, before this one is handed
 * out: printing a page overlaps the wait for the next.
 */
export async function* entriesForward(
  reader: LogReader,
  source: LogSource,
  filters: LogFilters,
  limit = Number.POSITIVE_INFINITY,
): AsyncGenerator<LogEntry[]> {
  const cursors = new Cursors();
  const ask = (offset: string | null, count: number) => {
    const asked = Math.min(LOG_LIMIT_MAX, limit - count);
    const page = readPage(reader, source, {
      ...baseQuery(filters),
      order: "asc",
      limit: asked,
      offset: offset ?? undefined,
    });
    // Awaited below; a reader that stops early leaves it, which must not count as unhandled.
    page.catch(() => {});
    return { asked, page };
  };
  let count = 0;
  let next: ReturnType<typeof ask> | null = ask(null, 0);
  while (next) {
    const { asked, page: pending } = next;
    const page = await pending;
    const entries = page.logs.slice(0, asked);
    count += entries.length;
    // A cursor given twice ends the read, after this page's entries, which are good.
    let cursor: string | null = null;
    let failure: unknown = null;
    try {
      cursor = cursors.next(page.cursor, asked, page.logs.length);
    } catch (error) {
      failure = error;
    }
    next = cursor !== null && count < limit ? ask(cursor, count) : null;
    if (entries.length > 0) yield entries;
    if (failure) throw failure;
  }
}

/**
 * Follows a log as it grows, as the public clients of the service do: each call asks, oldest
 * first, for what came at or after the last entry seen, and drops the entries already seen.
 * Only the IDs at the last timestamp can come back, so only those are remembered. One request
 * a call, unless more than a page came since the last.
 */
export class LogFollower {
  private lastTime: number | null = null;
  private seenAtLastTime = new Set<string>();

  constructor(
    private readonly reader: LogReader,
    private readonly source: LogSource,
    private readonly filters: LogFilters = {},
  ) {}

  /** Records entries already shown (the first batch), so that following starts after them. */
  seen(entries: readonly LogEntry[]): void {
    for (const entry of entries) this.remember(entry);
  }

  async next(): Promise<LogEntry[]> {
    const fresh: LogEntry[] = [];
    const since = this.lastTime === null ? this.filters.since : new Date(this.lastTime).toISOString();
    for await (const page of entriesForward(this.reader, this.source, { ...this.filters, since })) {
      for (const entry of page) {
        const time = entryTime(entry);
        if (this.lastTime !== null && time === this.lastTime && this.seenAtLastTime.has(entry.id)) continue;
        if (this.lastTime !== null && time < this.lastTime) continue;
        fresh.push(entry);
        this.remember(entry);
      }
    }
    return fresh;
  }

  private remember(entry: LogEntry): void {
    const time = entryTime(entry);
    // An entry without a readable time cannot place the next ask: it is shown, not followed from.
    if (Number.isNaN(time)) return;
    if (this.lastTime === null || time > this.lastTime) {
      this.lastTime = time;
      this.seenAtLastTime = new Set();
    }
    if (time === this.lastTime) this.seenAtLastTime.add(entry.id);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
