// A log entry as one line of text: `TIME LEVEL MESSAGE` (CLI.md "Output"), the level coloured
// where colour is on. The message is the service's text: control characters in it are shown
// escaped, so that a log cannot move the cursor or recolour the terminal. A timestamp that is
// not a time (the service gives epoch milliseconds or ISO 8601) is not printed as it came: it
// could be anything, a fake second entry included; the line says the time is unreadable.
import type { LogEntry } from "../model/responses.js";
import { type Paint, type Styled, styled, visible } from "./safe-text.js";

const LEVEL_WIDTH = 8;
/** The width of an ISO 8601 time with milliseconds, which the placeholder keeps. */
const TIME_WIDTH = 24;
const NO_TIME = "(unreadable time)".padEnd(TIME_WIDTH);
/** The most milliseconds from the epoch a Date holds (ECMA-262 21.4.1.1). */
const MAX_DATE_MS = 8.64e15;
/** An ISO 8601 date, or date and time, as the service writes them (Date.parse alone takes "1"). */
const ISO_8601 =
  /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?$/;
/** The form a line shows (toISOString's): a timestamp already in it is shown as it came. */
const SHOWN_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The entry's time in epoch milliseconds, or NaN when its timestamp is not a time. */
export function entryTime(entry: LogEntry): number {
  const { timestamp } = entry as { timestamp: unknown };
  const ms =
    typeof timestamp === "number"
      ? timestamp
      : typeof timestamp === "string" && ISO_8601.test(timestamp)
        ? Date.parse(timestamp)
        : Number.NaN;
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS ? ms : Number.NaN;
}

export function logLine(entry: LogEntry, paint: Paint): Styled {
  const level = visible(textOf(entry.level));
  return styled`${shownTime(entry)} ${levelPaint(level, paint)(level.padEnd(LEVEL_WIDTH))} ${visible(textOf(entry.message))}`;
}

/** The time column: UTC with milliseconds, or the placeholder. */
function shownTime(entry: LogEntry): string {
  const { timestamp } = entry as { timestamp: unknown };
  // The service's own form, and a real date (not 2026-13-45): as it is, without a Date made.
  if (typeof timestamp === "string" && SHOWN_FORM.test(timestamp) && !Number.isNaN(Date.parse(timestamp)))
    return timestamp;
  const ms = entryTime(entry);
  return Number.isNaN(ms) ? NO_TIME : new Date(ms).toISOString();
}

/** A field that should be text; a server may send anything. */
function textOf(value: unknown): string {
  return typeof value === "string"
    ? value
    : value === undefined || value === null
      ? ""
      : JSON.stringify(value);
}

function levelPaint(level: string, paint: Paint): (text: string) => string | Styled {
  switch (level.toUpperCase()) {
    case "ERROR":
    case "CRITICAL":
      return paint.red;
    case "WARNING":
      return paint.yellow;
    case "DEBUG":
      return paint.dim;
    default:
      return (text) => text;
  }
}
