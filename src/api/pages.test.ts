// readPages driven on a clock of its own against a getter whose answers come when the test
// says: how many pages are in flight, how many are asked past the end, and how long a list
// takes at a distance, without waiting on real time.
import { describe, expect, it } from "vitest";
import { type Query, readPages } from "./pages.js";
import { UnreadableBodyError } from "./retry.js";

describe("readPages on a clock of its own", () => {
  /** Every callback and promise step that is ready: the pager's turn. */
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

  interface Simulation {
    roundTripMs: number;
    readerMs: number;
    total: number;
    pageSize?: number;
    window?: number;
    /** The whole list is read (`--all`): pages asked ahead from the first. */
    whole?: boolean;
    /** Offsets whose first answer arrives garbled (a JSON body cut short). */
    garbled?: number[];
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
    const garbled = new Set(options.garbled ?? []);
    let mostInFlight = 0;
    const getter = {
      get<T>(
        _path: string,
        request: { query: Query; parseLater?: boolean; signal?: AbortSignal },
      ): Promise<{ body: T }> {
        const offset = Number(request.query.offset ?? 0);
        asked.push(offset);
        const count = Math.max(0, Math.min(pageSize, options.total - offset));
        const body = {
          resources: Array.from({ length: count }, (_, i) => offset + i),
          offset: offset + count,
        };
        const cutShort = request.parseLater === true && garbled.delete(offset);
        return new Promise((resolve) => {
          const parse = () => {
            if (cutShort) throw new UnreadableBodyError("cut short", 200);
            return body;
          };
          const unparsed = { bytes: JSON.stringify(body).length, parse };
          const answer = () => resolve({ body: (request.parseLater ? unparsed : body) as T });
          const entry = { due: now + options.roundTripMs, answer };
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

    const pages = readPages<number>(getter, "/v2/deployments", {}, pageSize, {
      window: options.window ?? 8,
      whole: options.whole ?? true,
    });
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
    return { items, asked, mostInFlight, elapsedMs: now };
  }

  const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);

  it("a whole list over a slow network: a window's worth in flight, every item once, in order", async () => {
    const run = await simulate({ roundTripMs: 50, readerMs: 5, total: 400 });
    expect(run.items).toEqual(upTo(400));
    expect(run.mostInFlight).toBe(8);
    // One page at a time would take 41 x 55 ms.
    expect(run.elapsedMs).toBeLessThan(0.3 * 41 * 55);
  });

  it("a whole list that fits the window: one round trip, as if every page were asked at once", async () => {
    // 2,000 items in pages of 100 and the default window (24): 21 pages and the end in one go.
    const run = await simulate({ roundTripMs: 200, readerMs: 1, total: 2000, pageSize: 100, window: 24 });
    expect(run.items).toEqual(upTo(2000));
    expect(run.elapsedMs).toBeLessThan(200 + 21 * 1 + 1);
    // Pages past the end (beyond the empty one that ends it) are the price: at most a window.
    expect(run.asked.length).toBeLessThanOrEqual(24);
  });

  it("a look-up asks its first page alone: a list of one page costs one request", async () => {
    const run = await simulate({ roundTripMs: 50, readerMs: 1, total: 3, whole: false });
    expect(run.items).toEqual(upTo(3));
    expect(run.asked).toEqual([0]);
  });

  it("a look-up whose first page is full goes on with the window", async () => {
    const run = await simulate({ roundTripMs: 50, readerMs: 1, total: 95, whole: false });
    expect(run.items).toEqual(upTo(95));
    expect(run.asked[0]).toBe(0);
    expect(run.mostInFlight).toBe(8);
  });

  it("CPCTL_PAGE_WINDOW=1: one page at a time, however slow the network", async () => {
    const run = await simulate({ roundTripMs: 50, readerMs: 5, total: 95, window: 1 });
    expect(run.items).toEqual(upTo(95));
    expect(run.mostInFlight).toBe(1);
    expect(run.asked).toEqual(upTo(10).map((i) => i * 10));
  });

  it("a page asked ahead that arrives garbled is asked for again when its turn comes", async () => {
    const run = await simulate({ roundTripMs: 50, readerMs: 5, total: 100, garbled: [40] });
    expect(run.items).toEqual(upTo(100));
    expect(run.asked.filter((offset) => offset === 40)).toHaveLength(2);
  });
});
