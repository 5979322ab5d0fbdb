// Reading a log as `deploy logs`, the failure tail of a wait and `--logs` do: the newest
// entries, everything from a time on, or following as it grows. Entries come back oldest
// first whatever order they were asked in.
import type { ApiClient } from "../api/client.js";
import { type LogEntry, type LogQuery, type LogSource, readLogPage } from "../api/endpoints.js";
import { entryTime } from "../output/log-lines.js";

export interface LogFilters {
  /** At least this level (DEBUG, INFO, WARNING, ERROR, CRITICAL). */
  level?: string;
  /** Only entries whose message contains this text. */
  grep?: string;
  /** ISO 8601. */
  since?: string;
  until?: string;
}

/** The largest page cpctl asks for; the server may answer with fewer. */
const PAGE = 100;

function baseQuery(filters: LogFilters): LogQuery {
  return {
    level: filters.level,
    query: filters.grep,
    start_time: filters.since,
    end_time: filters.until,
  };
}

/** The newest `limit` entries matching the filters, oldest first. */
export async function newestEntries(
  api: ApiClient,
  source: LogSource,
  filters: LogFilters,
  limit: number,
): Promise<LogEntry[]> {
  const newestFirst: LogEntry[] = [];
  let offset: string | undefined;
  do {
    const page = await readLogPage(api, source, {
      ...baseQuery(filters),
      order: "desc",
      limit: Math.min(PAGE, limit - newestFirst.length),
      offset,
    });
    newestFirst.push(...page.logs.slice(0, limit - newestFirst.length));
    offset = page.next_offset ?? undefined;
  } while (offset && newestFirst.length < limit);
  return newestFirst.reverse();
}

/** Every entry from `filters.since` on (at most `limit`), oldest first, a page at a time. */
export async function* entriesForward(
  api: ApiClient,
  source: LogSource,
  filters: LogFilters,
  limit = Number.POSITIVE_INFINITY,
): AsyncGenerator<LogEntry[]> {
  let offset: string | undefined;
  let count = 0;
  let full: boolean;
  do {
    const asked = Math.min(PAGE, limit - count);
    const page = await readLogPage(api, source, {
      ...baseQuery(filters),
      order: "asc",
      limit: asked,
      offset,
    });
    const entries = page.logs.slice(0, limit - count);
    count += entries.length;
    if (entries.length > 0) yield entries;
    offset = page.next_offset ?? undefined;
    // Oldest first, a cursor comes at the end of the log too (to follow it later): a page
    // shorter than asked is the end for now.
    full = page.logs.length >= asked;
  } while (offset && full && count < limit);
}

/**
 * Follows a log as it grows, as the public client of the service does: each call asks, oldest
 * first, for what came at or after the last entry seen, and drops the entries already seen.
 * Only the IDs at the last timestamp can come back, so only those are remembered.
 */
export class LogFollower {
  private lastTime: number | null = null;
  private seenAtLastTime = new Set<string>();

  constructor(
    private readonly api: ApiClient,
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
    for await (const page of entriesForward(this.api, this.source, { ...this.filters, since })) {
      for (const entry of page) {
        if (this.lastTime !== null && entryTime(entry) === this.lastTime && this.seenAtLastTime.has(entry.id))
          continue;
        if (this.lastTime !== null && entryTime(entry) < this.lastTime) continue;
        fresh.push(entry);
        this.remember(entry);
      }
    }
    return fresh;
  }

  private remember(entry: LogEntry): void {
    const time = entryTime(entry);
    if (this.lastTime === null || time > this.lastTime) {
      this.lastTime = time;
      this.seenAtLastTime = new Set();
    }
    if (time === this.lastTime) this.seenAtLastTime.add(entry.id);
  }
}
