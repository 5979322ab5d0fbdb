// Every page of a `{resources, offset}` list, in order, with a fixed number of pages in flight.
//
// The service's `offset` is the value to send for the next page, and in practice it is the
// previous offset plus the page size, so pages can be asked for before the one before them has
// come back. Each page is checked as its turn comes: one whose `offset` is not the one
// predicted drops the pages asked ahead and the rest is read one page at a time from what the
// server said. Pages are handed out in order as soon as each is in, so output still streams;
// the first short page ends the list and the first error ends it too (the pages before it are
// out, nothing after).
//
// - A list read whole (`--all`) asks a window of pages at once from its first page: over a
//   network, a list of 2,000 is then one round trip, as if every page were asked at once. A
//   short list pays for it in pages asked past its end, which cost the server little.
// - A look-up that is usually one page (a deployment by name, a revision to roll back to) asks
//   its first page alone, and goes on with the window only when that page is full.
// - The window is CPCTL_PAGE_WINDOW (24 by default, 1 to 32); a 429 or a Retry-After halves it
//   (the server asked for less). Pages asked ahead wait as bytes and are parsed when their turn
//   comes, so a page's objects live only while it is read; with a whole list read, V8's young
//   generation is kept small (util/young-generation.ts), so that memory stays what the window
//   holds whatever the list's length (10,000 from the local emulator: 80 MB, 100 MB without).
//
// An adaptive window (as many pages ahead as the round trip and the reader's pace call for,
// after a first page asked alone) was measured against this one (docs/performance.md): it lost
// on lists at a distance, the figure users feel, by twice the time.
import { ApiError, NetworkError } from "../errors.js";
import { keepYoungGenerationSmall } from "../util/young-generation.js";
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
  bytes: number;
  parse(): unknown;
}

/**
 * A page this small is parsed as soon as it is in, out of turn, to see whether the list ends
 * there: an empty page past the end is a few dozen bytes, a full page of deployments about
 * 150 kB, and parsing a small one early holds little in memory.
 */
const SMALL_PAGE_BYTES = 4096;

/** The most pages in flight at once, by default (CPCTL_PAGE_WINDOW sets it). */
export const DEFAULT_PAGE_WINDOW = 24;
export const MAX_PAGE_WINDOW = 32;

export interface PageOptions {
  /** The most pages in flight at once (CPCTL_PAGE_WINDOW); 1 is one page after another. */
  window: number;
  /** The whole list is wanted: ask a window of pages from the first (else the first alone). */
  whole?: boolean;
}

interface Page<T> {
  resources: T[];
  offset: QueryValue;
}

export async function* readPages<T>(
  client: Getter,
  path: string,
  query: Query,
  pageSize: number,
  options: PageOptions,
): AsyncGenerator<T[], void, undefined> {
  const display = `GET ${path}`;
  let window = Math.max(1, Math.min(MAX_PAGE_WINDOW, Math.floor(options.window)));
  let offset: QueryValue = query.offset;
  const seen = new Set([String(offset ?? 0)]);
  const request = (at: QueryValue, signal: AbortSignal | undefined, parseLater: boolean): PageRequest => ({
    query: { ...query, limit: pageSize, offset: at },
    signal,
    parseLater,
    onRetry: ({ error }) => {
      if (error instanceof ApiError && (error.status === 429 || error.retryAfterSeconds !== null))
        window = Math.max(1, Math.floor(window / 2));
    },
  });
  const fetchNow = (at: QueryValue) =>
    client.get<unknown>(path, request(at, undefined, false)).then(({ body }) => readPage<T>(body, display));

  // One page at a time: a look-up's first page, or all of them with a window of 1, or after
  // the server's offsets turned out not to be the ones predicted.
  if (!options.whole || window === 1) {
    for (;;) {
      const page = await fetchNow(offset);
      if (page.resources.length > 0) yield page.resources;
      if (page.resources.length < pageSize) return;
      const next = nextOffset(page.offset, seen, path);
      const predicted = Number(offset ?? 0) + pageSize;
      offset = next;
      if (window > 1 && String(next) === String(predicted)) break;
    }
  }

  // Ahead: the pages at offset, offset + pageSize, ... with `window` in flight.
  const letGo = keepYoungGenerationSmall();
  const ahead: Ahead<T>[] = [];
  const start = Number(offset ?? 0);
  let nextToAsk = start;
  let endAsked = false;

  // A page asked ahead that arrived garbled is asked for again when its turn comes, as the
  // client would have retried it (a safe GET).
  const parsed = (entry: Ahead<T>): Page<T> | Promise<Page<T>> => {
    if (entry.page) return entry.page;
    try {
      entry.page = readPage<T>(entry.arrived!.parse(), display);
      return entry.page;
    } catch (error) {
      if (error instanceof UnreadableBodyError) return fetchNow(entry.offset);
      throw error;
    }
  };
  /**
   * A page asked ahead that is in, small, and short: the end of the list is asked for already.
   * A page that cannot be read is left for its turn, which says so in order.
   */
  const endIsAsked = () =>
    ahead.some((entry) => {
      if (!entry.arrived || entry.arrived.bytes > SMALL_PAGE_BYTES) return false;
      try {
        entry.page ??= readPage<T>(entry.arrived.parse(), display);
      } catch {
        return false;
      }
      return entry.page.resources.length < pageSize;
    });
  const fill = () => {
    while (ahead.length < window && !endAsked) {
      if (endIsAsked()) {
        endAsked = true;
        return;
      }
      // The first page as the caller gave it: without an offset when it gave none.
      const at = nextToAsk === start && offset === undefined ? undefined : nextToAsk;
      const controller = new AbortController();
      const entry: Ahead<T> = {
        offset: nextToAsk,
        controller,
        body: client.get<UnparsedBody>(path, request(at, controller.signal, true)),
      };
      entry.body.then(
        ({ body }) => {
          entry.arrived = body;
        },
        // Settled later, or dropped: never an unhandled rejection.
        () => {},
      );
      ahead.push(entry);
      nextToAsk += pageSize;
    }
  };
  try {
    for (;;) {
      fill();
      const head = ahead.shift()!;
      await head.body;
      const page = await parsed(head);
      if (page.resources.length > 0) yield page.resources;
      if (page.resources.length < pageSize) return;
      const next = nextOffset(page.offset, seen, path);
      if (String(next) !== String(head.offset + pageSize)) {
        // Not the offsets predicted: what was asked ahead may be wrong; follow the server.
        for (const entry of ahead) entry.controller.abort();
        yield* readPages<T>(client, path, { ...query, offset: next }, pageSize, { window: 1 });
        return;
      }
    }
  } finally {
    // The last page, an error or a reader that stopped early: nothing asked ahead stays open.
    for (const entry of ahead) entry.controller.abort();
    letGo();
  }
}

/** A page asked ahead: its answer once in, kept as bytes until its turn (or the tail check). */
interface Ahead<T> {
  offset: number;
  controller: AbortController;
  body: Promise<{ body: UnparsedBody }>;
  arrived?: UnparsedBody;
  page?: Page<T>;
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
