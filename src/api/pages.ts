// Every page of a `{resources, offset}` list, in order, with a few pages in flight at once.
//
// The service's `offset` is the value to send for the next page, and in practice it is the
// previous offset plus the page size. Once the first page shows that, the next pages are
// asked for ahead and checked as they come: a page whose `offset` is not the one predicted
// drops the pages asked ahead and goes on one page at a time from what the server said.
// Pages are handed out in order as soon as each is in, so output still streams; the first
// short page ends the list and the first error ends it too (the pages before it are out,
// nothing after).
//
// How many pages are asked ahead adapts (PageWindow): as many as it takes for the next page
// to be in when the reader wants it, and no more, up to a ceiling (CPCTL_PAGE_WINDOW, 8 by
// default). Over a slow network that is the ceiling; against a server as fast as the reader
// (the local emulator) it is two, since more pages in flight would only wait in memory. A 429
// or a Retry-After halves the ceiling: the server asked for less. Pages asked ahead wait as
// bytes and are parsed when their turn comes, so a page's objects live only while it is read
// (a long list's peak memory is the figure in docs/performance.md).
import { ApiError, NetworkError } from "../errors.js";
import { UnreadableBodyError } from "./retry.js";

export type QueryValue = string | number | boolean | undefined | null;
export type Query = Record<string, QueryValue>;

/** What the pager needs of the client: a GET with retries (the client's own, given in). */
interface Getter {
  get<T>(path: string, options: PageRequest): Promise<{ body: T }>;
}

/** The part of the client's request options the pager uses. */
interface PageRequest {
  query: Query;
  signal?: AbortSignal;
  onRetry: (retry: { error: unknown }) => void;
  /** The body comes back as an UnparsedBody (client.ts). */
  parseLater?: boolean;
}

/** client.ts's UnparsedBody, as the pager uses it. */
interface UnparsedBody {
  parse(): unknown;
}

/** The most pages in flight at once, by default (CPCTL_PAGE_WINDOW sets it, 1 to 16). */
export const DEFAULT_PAGE_WINDOW = 8;
const MAX_PAGE_WINDOW = 16;

export interface PageOptions {
  /** The most pages in flight at once (CPCTL_PAGE_WINDOW); 1 is one page after another. */
  ceiling: number;
  /** Milliseconds, for the waits the window adapts to (tests give a clock of their own). */
  now?: () => number;
}

interface Page<T> {
  resources: T[];
  offset: QueryValue;
}

/**
 * How many pages to keep in flight: enough that the next page is in when the reader asks for
 * it. A page asked for now is taken about (size - 1) reader's turns later, so it is in time
 * when (size - 1) x the reader's time on a page covers the round trip: size = 1 + round trip /
 * reader's time, rounded (a page late by less than half a turn is not worth another in
 * memory), at least 2 (one page comes while the reader reads another) and at most the
 * ceiling. The round trip is the least of the last few pages' (a page that waited in a queue
 * at the server, or behind a garbage collection, says nothing about the network); the
 * reader's time is smoothed. Over a network of 50 ms a page that is the ceiling; against a
 * local server as fast as the reader it is 2, and pages that would only wait, as bytes in
 * memory, are not asked for.
 */
export class PageWindow {
  /** Round trips remembered: the window follows a network that changes within a list. */
  static readonly RECENT_ROUND_TRIPS = 16;
  /** Weight of the newest reader's time in the smoothed one. */
  private static readonly READER_WEIGHT = 0.25;
  private ceilingNow: number;
  private readonly roundTrips: number[] = [];
  private readerMs: number | null = null;

  constructor(ceiling: number) {
    this.ceilingNow = Math.max(1, Math.min(MAX_PAGE_WINDOW, Math.floor(ceiling)));
  }

  get ceiling(): number {
    return this.ceilingNow;
  }

  get size(): number {
    const least = Math.min(2, this.ceilingNow);
    if (this.roundTrips.length === 0 || this.readerMs === null) return least;
    const roundTrip = Math.min(...this.roundTrips);
    // A reader that takes no measurable time gets the ceiling.
    const needed = 1 + Math.round(roundTrip / Math.max(this.readerMs, 0.01));
    return Math.max(least, Math.min(this.ceilingNow, needed));
  }

  /** A page came back `ms` after it was asked for. */
  arrived(ms: number): void {
    this.roundTrips.push(Math.max(0, ms));
    if (this.roundTrips.length > PageWindow.RECENT_ROUND_TRIPS) this.roundTrips.shift();
  }

  /** The reader spent `ms` on a page (parsing it included), from handing it out to asking again. */
  read(ms: number): void {
    const sample = Math.max(0, ms);
    this.readerMs =
      this.readerMs === null ? sample : this.readerMs + PageWindow.READER_WEIGHT * (sample - this.readerMs);
  }

  /** The server asked for less (429, Retry-After): the ceiling halves. */
  throttled(): void {
    this.ceilingNow = Math.max(1, Math.floor(this.ceilingNow / 2));
  }
}

export async function* readPages<T>(
  client: Getter,
  path: string,
  query: Query,
  pageSize: number,
  options: PageOptions,
): AsyncGenerator<T[], void, undefined> {
  const now = options.now ?? (() => performance.now());
  const display = `GET ${path}`;
  const window = new PageWindow(options.ceiling);
  let offset: QueryValue = query.offset;
  const seen = new Set([String(offset ?? 0)]);
  const request = (at: QueryValue, signal: AbortSignal | undefined, parseLater: boolean): PageRequest => ({
    query: { ...query, limit: pageSize, offset: at },
    signal,
    parseLater,
    onRetry: ({ error }) => {
      if (error instanceof ApiError && (error.status === 429 || error.retryAfterSeconds !== null))
        window.throttled();
    },
  });
  const fetchNow = (at: QueryValue) => {
    const asked = now();
    return client.get<unknown>(path, request(at, undefined, false)).then(({ body }) => {
      window.arrived(now() - asked);
      return readPage<T>(body, display);
    });
  };
  // A page asked ahead, kept as bytes. One that arrived garbled is asked for again when its
  // turn comes, as the client would have retried it (a safe GET).
  const fetchAhead = (at: number, signal: AbortSignal) => {
    const asked = now();
    return client.get<UnparsedBody>(path, request(at, signal, true)).then(({ body }) => {
      window.arrived(now() - asked);
      return body;
    });
  };
  const parseAhead = (body: UnparsedBody, at: number): Promise<Page<T>> => {
    try {
      return Promise.resolve(readPage<T>(body.parse(), display));
    } catch (error) {
      if (error instanceof UnreadableBodyError) return fetchNow(at);
      throw error;
    }
  };

  // One page at a time until the offsets are seen to be predictable.
  for (;;) {
    const page = await fetchNow(offset);
    if (page.resources.length > 0) {
      const handedOut = now();
      yield page.resources;
      window.read(now() - handedOut);
    }
    if (page.resources.length < pageSize) return;
    const next = nextOffset(page.offset, seen, path);
    const predicted = Number(offset ?? 0) + pageSize;
    offset = next;
    if (window.ceiling > 1 && String(next) === String(predicted)) break;
  }

  // Ahead: pages at offset, offset + pageSize, ... with window.size in flight.
  const controller = new AbortController();
  const ahead: { offset: number; body: Promise<UnparsedBody> }[] = [];
  let nextToAsk = Number(offset);
  const fill = () => {
    while (ahead.length < window.size) {
      const body = fetchAhead(nextToAsk, controller.signal);
      // Settled later, or dropped: never an unhandled rejection.
      body.catch(() => {});
      ahead.push({ offset: nextToAsk, body });
      nextToAsk += pageSize;
    }
  };
  try {
    for (;;) {
      fill();
      const head = ahead.shift()!;
      const body = await head.body;
      // Parsing counts as the reader's time: it is what a page costs once it is in.
      const handedOut = now();
      const page = await parseAhead(body, head.offset);
      if (page.resources.length > 0) yield page.resources;
      window.read(now() - handedOut);
      if (page.resources.length < pageSize) return;
      const next = nextOffset(page.offset, seen, path);
      if (String(next) !== String(head.offset + pageSize)) {
        // Not the offsets predicted: what was asked ahead may be wrong; follow the server.
        controller.abort();
        for await (const rest of readPages<T>(client, path, { ...query, offset: next }, pageSize, {
          ceiling: 1,
        }))
          yield rest;
        return;
      }
    }
  } finally {
    // The last page, an error or a reader that stopped early: nothing asked ahead stays open.
    controller.abort();
  }
}

function readPage<T>(body: unknown, display: string): Page<T> {
  if (!isRecord(body) || !Array.isArray(body.resources)) {
    throw new NetworkError(
      `the server answered ${display} without a "resources" list: is --base-url the control plane API?`,
      "bad_response",
      true,
    );
  }
  const offset = body.offset;
  return {
    resources: body.resources as T[],
    offset: typeof offset === "number" || typeof offset === "string" ? offset : null,
  };
}

function nextOffset(offset: QueryValue, seen: Set<string>, path: string): QueryValue {
  if (offset === null || offset === undefined) {
    throw new NetworkError(
      `the server answered a full page of GET ${path} without the "offset" of the next page`,
      "bad_response",
      true,
    );
  }
  const key = String(offset);
  if (seen.has(key)) {
    throw new NetworkError(
      `the server returned offset ${key} twice while paging GET ${path}; stopping instead of looping forever`,
      "bad_response",
      true,
    );
  }
  seen.add(key);
  return offset;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
