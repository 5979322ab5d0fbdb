// Every page of a `{resources, offset}` list, in order. The first page is asked alone: most
// lists (a look-up by name, a team's deployments) end there, in one request. While pages come
// back full, more are asked at once, as many as can be wasted without asking more pages past
// the list's end than pages that held items: with page N known full, pages up to 2N may be in
// flight (if N+1 is empty, the N past the end match the N that held items). The pages in
// flight thus double each round trip (1, 2, 4, 8...), up to the window (CPCTL_PAGE_WINDOW, 8 by
// default, 1 to 32; a 429 or a Retry-After halves it: the server asked for less). Each page is
// read as it arrives, like any answer: what is in flight is all that is held.
//
// The service's `offset` is the value to send for the next page, and in practice it is the
// previous offset plus the page size: pages are asked ahead on that prediction. A page whose
// `offset` is not the one predicted drops what was asked ahead, and the rest is read a page at
// a time from what the server said. Pages are handed out in order as each is in; the first
// short page ends the list, and the first error ends it too (the pages before it are out,
// nothing after).
import { ApiError, NetworkError } from "../errors.js";

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
}

/**
 * The most pages in flight at once, by default (CPCTL_PAGE_WINDOW sets it). Pages that come
 * back before their turn are held parsed: at 24, a near server's 10,000 deployments as
 * ndjson peaked at 100 to 117 MB; at 8, 78 to 82 MB, and no slower (docs/performance.md).
 */
export const DEFAULT_PAGE_WINDOW = 8;
export const MAX_PAGE_WINDOW = 32;

export interface PageOptions {
  /** The most pages in flight at once (CPCTL_PAGE_WINDOW); 1 is one page after another. */
  window: number;
}

interface Page<T> {
  resources: T[];
  offset: QueryValue;
}

/** A page asked ahead, by its number in the list (0 is the first). */
interface Ahead<T> {
  index: number;
  controller: AbortController;
  page: Promise<Page<T>>;
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
  const start = Number(query.offset ?? 0);
  const seen = new Set([String(start)]);
  const { offset: given, ...filters } = query;
  const ask = (index: number, offset: QueryValue, signal?: AbortSignal): Promise<Page<T>> =>
    client
      .get<unknown>(path, {
        // The first page as the caller gave it: without an offset when it gave none.
        query: { ...filters, limit: pageSize, offset: index === 0 ? given : offset },
        signal,
        onRetry: ({ error }) => {
          if (error instanceof ApiError && (error.status === 429 || error.retryAfterSeconds !== null))
            window = Math.max(1, Math.floor(window / 2));
        },
      })
      .then(({ body }) => readPage<T>(body, display));

  const ahead: Ahead<T>[] = [];
  /** The highest page known full, and so the highest that may be asked: twice as far. */
  let knownFull = 0;
  let nextIndex = 1;
  const fill = () => {
    while (ahead.length < window && nextIndex + 1 <= 2 * knownFull) {
      const index = nextIndex++;
      const controller = new AbortController();
      const page = ask(index, start + index * pageSize, controller.signal);
      // Read in its turn, or dropped: never an unhandled rejection.
      page.then(
        (arrived) => {
          if (arrived.resources.length >= pageSize) knownFull = Math.max(knownFull, index + 1);
        },
        () => {},
      );
      ahead.push({ index, controller, page });
    }
  };

  try {
    let page = await ask(0, given);
    let index = 0;
    for (;;) {
      if (page.resources.length > 0) yield page.resources;
      if (page.resources.length < pageSize) return;
      const next = nextOffset(page.offset, seen, path);
      if (String(next) !== String(start + (index + 1) * pageSize)) {
        // Not the offsets predicted: what was asked ahead may be wrong; follow the server.
        for (const entry of ahead.splice(0)) entry.controller.abort();
        yield* readPages<T>(client, path, { ...query, offset: next }, pageSize, { window: 1 });
        return;
      }
      knownFull = Math.max(knownFull, index + 1);
      // With the queue empty, at least the next page is asked (2N >= N + 1).
      fill();
      const head = ahead.shift()!;
      page = await head.page;
      index = head.index;
    }
  } finally {
    // The last page, an error or a reader that stopped early: nothing asked ahead stays open.
    for (const entry of ahead) entry.controller.abort();
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
