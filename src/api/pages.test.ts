// The page window: how many pages of a list are in flight, from the round trip and the
// reader's time (PageWindow), and readPages driven on a clock of its own against a getter
// whose answers come when the test says: nothing here waits on real time.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PageWindow, type Query, readPages } from "./pages.js";
import { UnreadableBodyError } from "./retry.js";

describe("PageWindow", () => {
  function windowAfter(ceiling: number, roundTrips: number[], readerMs: number[]): PageWindow {
    const window = new PageWindow(ceiling);
    for (const ms of roundTrips) window.arrived(ms);
    for (const ms of readerMs) window.read(ms);
    return window;
  }

  it("starts with one page ahead (two in flight), or one with a ceiling of 1", () => {
    expect(new PageWindow(8).size).toBe(2);
    expect(new PageWindow(1).size).toBe(1);
  });

  it("a round trip ten times the reader's time: the ceiling", () => {
    expect(windowAfter(8, [50], [5]).size).toBe(8);
    expect(windowAfter(16, [50], [5]).size).toBe(11);
  });

  it("a round trip shorter than the reader's time: two, whatever the ceiling", () => {
    expect(windowAfter(8, [2, 3, 2], [5, 4, 6]).size).toBe(2);
    expect(windowAfter(16, [4], [4]).size).toBe(2);
  });

  it("follows the round trip: 1 + round trip / reader's time, rounded", () => {
    expect(windowAfter(8, [12], [4]).size).toBe(4);
    expect(windowAfter(8, [13], [4]).size).toBe(4);
    expect(windowAfter(8, [14], [4]).size).toBe(5);
  });

  it("one slow page (a pause at the server) does not grow the window: the least recent round trip counts", () => {
    const window = windowAfter(8, [2, 2, 40, 2], [5]);
    expect(window.size).toBe(2);
  });

  it("a network that became slow grows it once the fast round trips are no longer recent", () => {
    const window = windowAfter(8, [2], [5]);
    for (let i = 0; i < PageWindow.RECENT_ROUND_TRIPS - 1; i++) window.arrived(50);
    expect(window.size).toBe(2);
    window.arrived(50);
    expect(window.size).toBe(8);
  });

  it("a reader that slows down needs fewer pages ahead (its time is smoothed)", () => {
    const window = windowAfter(8, [20], [2]);
    expect(window.size).toBe(8);
    for (let i = 0; i < 20; i++) window.read(20);
    expect(window.size).toBe(2);
  });

  it("a reader that takes no measurable time gets the ceiling", () => {
    expect(windowAfter(8, [1], [0]).size).toBe(8);
  });

  it("a 429 or Retry-After halves the ceiling, down to one page at a time", () => {
    const window = windowAfter(8, [50], [5]);
    window.throttled();
    expect(window.ceiling).toBe(4);
    expect(window.size).toBe(4);
    window.throttled();
    window.throttled();
    expect(window.size).toBe(1);
    window.throttled();
    expect(window.size).toBe(1);
  });

  it("property: the size is always a whole number from 1 to the ceiling, which only comes down", () => {
    const event = fc.oneof(
      fc.record({ kind: fc.constant("arrived" as const), ms: fc.double({ min: -1, max: 1e6, noNaN: true }) }),
      fc.record({ kind: fc.constant("read" as const), ms: fc.double({ min: -1, max: 1e6, noNaN: true }) }),
      fc.record({ kind: fc.constant("throttled" as const) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: -4, max: 40 }), fc.array(event, { maxLength: 60 }), (ceiling, events) => {
        const window = new PageWindow(ceiling);
        let lastCeiling = window.ceiling;
        expect(lastCeiling).toBeGreaterThanOrEqual(1);
        expect(lastCeiling).toBeLessThanOrEqual(16);
        for (const e of events) {
          if (e.kind === "arrived") window.arrived(e.ms);
          else if (e.kind === "read") window.read(e.ms);
          else window.throttled();
          expect(Number.isInteger(window.size)).toBe(true);
          expect(window.size).toBeGreaterThanOrEqual(1);
          expect(window.size).toBeLessThanOrEqual(window.ceiling);
          expect(window.ceiling).toBeLessThanOrEqual(lastCeiling);
          lastCeiling = window.ceiling;
        }
      }),
    );
  });
});

describe("readPages on a clock of its own", () => {
  /** Every callback and promise step that is ready: the pager's turn. */
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

  interface Simulation {
    roundTripMs: number;
    readerMs: number;
    total: number;
    pageSize?: number;
    ceiling?: number;
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
      get<T>(_path: string, request: { query: Query; parseLater?: boolean }): Promise<{ body: T }> {
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
          const answer = () => resolve({ body: (request.parseLater ? { parse } : body) as T });
          pending.push({ due: now + options.roundTripMs, answer });
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
      ceiling: options.ceiling ?? 8,
      now: () => now,
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

  it("over a slow network (50 ms a page, 5 ms to read one): the ceiling's worth in flight, every item once, in order", async () => {
    const run = await simulate({ roundTripMs: 50, readerMs: 5, total: 400 });
    expect(run.items).toEqual(upTo(400));
    expect(run.mostInFlight).toBe(8);
    // One page at a time would take 41 x 55 ms.
    expect(run.elapsedMs).toBeLessThan(0.3 * 41 * 55);
  });

  it("against a server faster than the reader (1 ms a page): never more than two in flight", async () => {
    const run = await simulate({ roundTripMs: 1, readerMs: 5, total: 400 });
    expect(run.items).toEqual(upTo(400));
    expect(run.mostInFlight).toBeLessThanOrEqual(2);
  });

  it("CPCTL_PAGE_WINDOW=1: one page at a time, however slow the network", async () => {
    const run = await simulate({ roundTripMs: 50, readerMs: 5, total: 95, ceiling: 1 });
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
