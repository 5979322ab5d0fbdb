// readPages driven on a clock of its own against a getter whose answers come when the test
// says: how many pages are in flight, how many are asked past the end, and how long a list
// takes at a distance, without waiting on real time.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Query, readPages } from "./pages.js";

/** Every callback and promise step that is ready: the pager's turn. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Simulation {
  roundTripMs: number;
  readerMs: number;
  total: number;
  pageSize?: number;
  window?: number;
}

/**
 * A list of `total` items read with readPages: each request is answered `roundTripMs` after
 * it was asked (on the simulated clock), and the reader spends `readerMs` on each page.
 */
async function simulate(options: Simulation) {
  const pageSize = options.pageSize ?? 10;
  let now = 0;
  const pending: { due: number; answer: () => void }[] = [];
  const asked: number[] = [];
  let mostInFlight = 0;
  const getter = {
    get<T>(_path: string, request: { query: Query; signal?: AbortSignal }): Promise<{ body: T }> {
      const offset = Number(request.query.offset ?? 0);
      asked.push(offset);
      const count = Math.max(0, Math.min(pageSize, options.total - offset));
      const body = {
        resources: Array.from({ length: count }, (_, i) => offset + i),
        offset: offset + count,
      };
      return new Promise((resolve) => {
        const entry = { due: now + options.roundTripMs, answer: () => resolve({ body: body as T }) };
        pending.push(entry);
        // A request dropped by the pager is no longer in flight (its answer never comes).
        request.signal?.addEventListener("abort", () => pending.splice(pending.indexOf(entry), 1), {
          once: true,
        });
        mostInFlight = Math.max(mostInFlight, pending.length);
      });
    },
  };
  /** Moves the clock to `until`, answering on the way every request that comes due. */
  async function runUntil(until: number) {
    for (;;) {
      pending.sort((a, b) => a.due - b.due);
      const first = pending[0];
      if (!first || first.due > until) break;
      pending.shift();
      now = Math.max(now, first.due);
      first.answer();
      await settle();
    }
    now = Math.max(now, until);
  }

  const pages = readPages<number>(getter, "/v2/deployments", {}, pageSize, { window: options.window ?? 24 });
  const items: number[] = [];
  for (;;) {
    let ready = false;
    const next = pages.next().finally(() => {
      ready = true;
    });
    await settle();
    while (!ready) {
      const due = Math.min(...pending.map((p) => p.due));
      if (!Number.isFinite(due)) throw new Error("the pager waits for nothing");
      await runUntil(due);
    }
    const result = await next;
    if (result.done) break;
    items.push(...result.value);
    await runUntil(now + options.readerMs);
  }
  // Pages with items, and the requests for pages past the last of them.
  const withItems = Math.ceil(options.total / pageSize);
  const pastEnd = asked.filter((offset) => offset >= options.total && offset > 0).length;
  return { items, asked, mostInFlight, elapsedMs: now, withItems, pastEnd };
}

const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);

describe("readPages on a clock of its own", () => {
  it("a list that fits in one page costs one request", async () => {
    for (const total of [0, 3, 99]) {
      const run = await simulate({ roundTripMs: 50, readerMs: 1, total, pageSize: 100 });
      expect(run.items).toEqual(upTo(total));
      expect(run.asked).toEqual([0]);
    }
  });

  it("a 4-page list: at most 8 requests in all; pages in flight double while they come back full", async () => {
    for (const total of [301, 350, 400]) {
      const run = await simulate({ roundTripMs: 100, readerMs: 1, total, pageSize: 100 });
      expect(run.items).toEqual(upTo(total));
      expect(run.asked.length).toBeLessThanOrEqual(8);
    }
    const run = await simulate({ roundTripMs: 100, readerMs: 0, total: 1550, pageSize: 100 });
    // Round trips: 1 page, then 1, 2, 4 and 8 (the 16th, short, ends it): 5 in all.
    expect(run.elapsedMs).toBe(5 * 100);
  });

  it("2,000 deployments at a 100 ms round trip: 6 round trips, never more asked past the end than read", async () => {
    const run = await simulate({ roundTripMs: 100, readerMs: 1, total: 2000, pageSize: 100 });
    expect(run.items).toEqual(upTo(2000));
    expect(run.pastEnd).toBeLessThanOrEqual(run.withItems);
    expect(run.elapsedMs).toBeLessThanOrEqual(6 * 100 + 21);
  });

  it("the window caps the pages in flight", async () => {
    const run = await simulate({ roundTripMs: 50, readerMs: 5, total: 4000, pageSize: 10, window: 8 });
    expect(run.items).toEqual(upTo(4000));
    expect(run.mostInFlight).toBe(8);
  });

  it("CPCTL_PAGE_WINDOW=1: one page at a time, however slow the network", async () => {
    const run = await simulate({ roundTripMs: 50, readerMs: 5, total: 95, window: 1 });
    expect(run.items).toEqual(upTo(95));
    expect(run.mostInFlight).toBe(1);
    expect(run.asked).toEqual(upTo(10).map((i) => i * 10));
  });

  it("any list, any window, any pace: every item once, in order; past the end no more than pages read", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          total: fc.integer({ min: 0, max: 600 }),
          pageSize: fc.integer({ min: 1, max: 20 }),
          window: fc.integer({ min: 1, max: 32 }),
          roundTripMs: fc.integer({ min: 0, max: 200 }),
          readerMs: fc.integer({ min: 0, max: 50 }),
        }),
        async (options) => {
          const run = await simulate(options);
          expect(run.items).toEqual(upTo(options.total));
          expect(new Set(run.asked).size).toBe(run.asked.length);
          expect(run.pastEnd).toBeLessThanOrEqual(Math.max(1, run.withItems));
          expect(run.asked.length).toBeLessThanOrEqual(Math.max(1, 2 * run.withItems));
          expect(run.mostInFlight).toBeLessThanOrEqual(options.window);
        },
      ),
      { numRuns: 150 },
    );
  });
});
