// A log entry as one line of text: `TIME LEVEL MESSAGE` (CLI.md "Output"), the level coloured
// where colour is on. The message is the service's text: control characters in it are shown
// escaped, so that a log cannot move the cursor or recolour the terminal.
import type { LogEntry } from "../api/endpoints.js";
import type { Paint } from "../log.js";
import { visible } from "./safe-text.js";

const LEVEL_WIDTH = 8;

/** The entry's time in epoch milliseconds (the service gives milliseconds or ISO 8601). */
export function entryTime(entry: LogEntry): number {
  return typeof entry.timestamp === "number" ? entry.timestamp : Date.parse(entry.timestamp);
}

export function logLine(entry: LogEntry, paint: Paint): string {
  const time = Number.isNaN(entryTime(entry))
    ? String(entry.timestamp)
    : new Date(entryTime(entry)).toISOString();
  const level = visible(entry.level);
  return `${visible(time)} ${levelPaint(level, paint)(level.padEnd(LEVEL_WIDTH))} ${visible(entry.message)}`;
}

function levelPaint(level: string, paint: Paint): (text: string) => string {
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
