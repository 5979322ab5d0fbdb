import { expect, test } from "vitest";
import { relativeTime } from "./relative-time.js";

const NOW = Date.parse("2026-03-10T12:00:00.000Z");

test.each([
  ["2026-03-10T11:59:30.000Z", "just now"],
  ["2026-03-10T12:00:20Z", "just now"], // a few seconds ahead: clocks differ
  ["2026-03-10T11:57:00.000Z", "3m ago"],
  ["2026-03-10T11:00:00.001Z", "59m ago"],
  ["2026-03-10T07:00:00.000Z", "5h ago"],
  ["2026-03-08T11:00:00.000Z", "2d ago"],
  ["2025-03-11T12:00:00.000Z", "364d ago"],
  ["2024-01-01T00:00:00.000Z", "2y ago"],
  ["2026-03-10T12:03:00.000Z", "in 3m"],
  ["2026-03-10T11:56:59.123456+00:00", "3m ago"], // microseconds and an offset, as Python services write them
])("%s is %j", (iso, shown) => {
  expect(relativeTime(iso, NOW)).toBe(shown);
});

test("what is not an ISO time is left to the caller (shown as it is)", () => {
  for (const text of ["", "1", "yesterday", "2026-03-10", "2026-13-45T99:99:99Z"])
    expect(relativeTime(text, NOW), text).toBeNull();
});
