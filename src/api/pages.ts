// Every page of a `{resources, offset}` list, in order, with a few pages in flight at once.
//
// The service's `offset` is the value to send for the next page, and in practice it is the
// previous offset plus the page size. Once the first page shows that, the next pages are
// asked for ahead (a window of them) and checked as they come: a page whose `offset` is not
// the one predicted drops the pages asked ahead and goes on one page at a time from what the
// server said. Pages are handed out in order as soon as each is in, so output still streams;
// the first short page ends the list and the first error ends it too (the pages before it
// are out, nothing after). A 429 or a Retry-After halves the window: the server asked for less.
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

/** Pages in flight at once, by default (CPCTL_PAGE_WINDOW sets it, 1 to 16). */
export const DEFAULT_PAGE_WINDOW = 8;
const MAX_PAGE_WINDOW = 16;

interface Page<T> {
  resources: T[];
  offset: QueryValue;
}

export async function* readPages<T>(
  client: Getter,
  path: string,
  query: Query,
  pageSize: number,
  window: number,
): AsyncGenerator<T[], void, undefined> {
  let offset: QueryValue = query.offset;
  const seen = new Set([String(offset ?? 0)]);
  let size = Math.max(1, Math.min(MAX_PAGE_WINDOW, Math.floor(window)));
  const fetch = (at: QueryValue, signal?: AbortSignal) =>
    client
      .get<unknown>(path, {
        query: { ...query, limit: pageSize, offset: at },
        signal,
        onRetry: ({ error }) => {
          if (error instanceof ApiError && (error.status === 429 || error.retryAfterSeconds !== null))
            size = Math.max(1, Math.floor(size / 2));
        },
      })
      .then(({ body }) => readPage<T>(body, `GET ${path}`));

  // One page at a time until the offsets are seen to be predictable.
  for (;;) {
    const page = await fetch(offset);
    if (page.resources.length > 0) yield page.resources;
    if (page.resources.length < pageSize) return;
    const next = nextOffset(page.offset, seen, path);
    const predicted = Number(offset ?? 0) + pageSize;
    offset = next;
    if (size > 1 && String(next) === String(predicted)) break;
  }

  // Ahead: pages at offset, offset + pageSize, ... with up to `size` in flight.
  const controller = new AbortController();
  const ahead: { offset: number; page: Promise<Page<T>> }[] = [];
  let nextToAsk = Number(offset);
  const fill = () => {
    while (ahead.length < size) {
      const page = fetch(nextToAsk, controller.signal);
      // Settled later, or dropped: never an unhandled rejection.
      page.catch(() => {});
      ahead.push({ offset: nextToAsk, page });
      nextToAsk += pageSize;
    }
  };
  try {
    for (;;) {
      fill();
      const head = ahead.shift()!;
      const page = await head.page;
      if (page.resources.length > 0) yield page.resources;
      if (page.resources.length < pageSize) return;
      const next = nextOffset(page.offset, seen, path);
      if (String(next) !== String(head.offset + pageSize)) {
        // Not the offsets predicted: what was asked ahead may be wrong; follow the server.
        controller.abort();
        for await (const rest of readPages<T>(client, path, { ...query, offset: next }, pageSize, 1))
          yield rest;
        return;
      }
    }
  } finally {
    // The last page, an error or a consumer that stopped early: nothing asked ahead stays open.
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
