// A log line from whatever a server sends as an entry (issue 22 item 6): a time that is not
// one is never printed as it came, and nothing a server sends makes the line throw.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LogEntry } from "../model/responses.js";
import { entryTime, logLine } from "./log-lines.js";
import { NO_PAINT } from "./safe-text.js";

const entry = (timestamp: unknown, message = "hello"): LogEntry =>
  ({ id: "1", timestamp, level: "INFO", message }) as LogEntry;
const ISO_OR_PLACEHOLDER = /^([+-]?\d{4,6}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z|\(unreadable time\) {7}) /;

describe("logLine", () => {
  it("epoch milliseconds and ISO 8601 strings: the time in UTC", () => {
    expect(logLine(entry(Date.UTC(2026, 0, 2, 3, 4, 5, 6)), NO_PAINT).text).toBe(
      "2026-01-02T03:04:05.006Z INFO     hello",
    );
    expect(logLine(entry("2026-01-02T04:04:05.006+01:00"), NO_PAINT).text).toBe(
      "2026-01-02T03:04:05.006Z INFO     hello",
    );
  });

  it("a timestamp that is not a time is not printed; the line says so, at the same width", () => {
    for (const timestamp of [
      "not a date",
      "2026-11-21T12:00:00Z ERROR  forged second entry",
      "1",
      "Tue Mar 01 2011",
      "",
      null,
      undefined,
      {},
      [2026],
      true,
    ]) {
      const line = logLine(entry(timestamp), NO_PAINT).text;
      expect(line).toBe("(unreadable time)        INFO     hello");
      expect(entryTime(entry(timestamp))).toBeNaN();
    }
  });

  it("a number out of a date's range or not finite does not throw (it did: toISOString of 1e20)", () => {
    for (const timestamp of [1e20, -1e20, Number.POSITIVE_INFINITY, Number.NaN, 8.64e15 + 1]) {
      expect(logLine(entry(timestamp), NO_PAINT).text).toMatch(/^\(unreadable time\) /);
    }
    expect(logLine(entry(8.64e15), NO_PAINT).text).toMatch(/^\+275760-09-13T00:00:00\.000Z /);
  });

  it("property: any entry a server sends gives one line that starts with a time or the placeholder", () => {
    const anything = fc.oneof(
      fc.string(),
      fc.double(),
      fc.integer(),
      fc.constant(null),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.date({ noInvalidDate: true }).map((d) => d.getTime()),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(anything, anything, anything, (timestamp, level, message) => {
        const line = logLine({ id: "x", timestamp, level, message } as LogEntry, NO_PAINT).text;
        expect(line).toMatch(ISO_OR_PLACEHOLDER);
        expect(line).not.toMatch(/[\n\r\x1b]/);
      }),
      { numRuns: 500 },
    );
  });
});
