// The emulator's sense of time. Revision statuses are computed from it on every read (there
// are no timers), so moving the clock is all it takes to move every revision forward.
//
// Two kinds:
// - the default clock is real time plus an offset that `POST /_emulator/clock` grows, so a
//   CLI user can skip ahead without waiting, and the offset is saved with the state;
// - a manual clock, injected by tests, never moves on its own: a test decides exactly what
//   time it is and so never depends on wall-clock luck.

export interface Clock {
  /** Milliseconds since the epoch, as the emulator sees them. */
  now(): number;
  /** Moves the clock forward by `ms` (>= 0). */
  advance(ms: number): void;
}

/** Real time plus an offset. The offset only grows, so emulated time never runs backwards. */
export class OffsetClock implements Clock {
  constructor(
    public offsetMs = 0,
    private readonly realNow: () => number = Date.now,
  ) {}

  now(): number {
    return this.realNow() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/** A clock that only moves when told to. Starts at a fixed, readable instant. */
export class ManualClock implements Clock {
  constructor(private current = Date.parse("2025-01-01T00:00:00.000Z")) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  /** Sets the time; refuses to go backwards, as the emulator assumes time never does. */
  set(ms: number): void {
    if (ms < this.current) throw new Error("ManualClock cannot go backwards");
    this.current = ms;
  }
}

// toISOString is a measurable share of a list request; the same few instants (creation
// times, stage starts) are formatted over and over, so remember them.
const isoCache = new Map<number, string>();

export function iso(ms: number): string {
  let text = isoCache.get(ms);
  if (text === undefined) {
    if (isoCache.size >= 10_000) isoCache.clear();
    text = new Date(ms).toISOString();
    isoCache.set(ms, text);
  }
  return text;
}
