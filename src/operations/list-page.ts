// One page of a list (`deploy list`, `deploy revisions` without --all), and whether more
// exist after it: the page is never a silent cut (CLI.md "Output"). The API says nothing about
// a total, so one item more than the page is asked for; a page of the largest size costs one
// small request more, and only when it came back full.
import type { Page } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from "../model/enums.js";

type PageFetch<T> = (page: { limit: number; offset: number }) => Promise<Page<T>>;

export async function fetchPage<T>(
  fetch: PageFetch<T>,
  asked: { limit?: number; offset?: number },
): Promise<{ items: T[]; more: boolean }> {
  const limit = asked.limit ?? LIST_LIMIT_DEFAULT;
  const offset = asked.offset ?? 0;
  if (limit < LIST_LIMIT_MAX) {
    const page = await fetch({ limit: limit + 1, offset });
    return { items: page.resources.slice(0, limit), more: page.resources.length > limit };
  }
  const page = await fetch({ limit, offset });
  if (page.resources.length < limit) return { items: page.resources, more: false };
  const next = await fetch({ limit: 1, offset: offset + limit });
  return { items: page.resources, more: next.resources.length > 0 };
}

/** Says on stderr that the page is not the end, and how to get the rest. */
export function sayMoreExist(ctx: Ctx, what: string, shown: number, asked: { offset?: number }): void {
  const next = (asked.offset ?? 0) + shown;
  ctx.log.info(
    `more ${what} exist than the ${shown} shown: add --offset ${next} for the next page, or --all for every one`,
  );
}
