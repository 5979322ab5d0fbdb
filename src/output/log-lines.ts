// A log entry as one line of text: `TIME LEVEL MESSAGE` (CLI.md "Output"), the level coloured
// where colour is on. The message is the service's text: control characters in it are shown
// escaped, so that a log cannot move the cursor or recolour the terminal.
import { entryTime, type LogEntry } from "../api/endpoints.js";
import type { Paint } from "../log.js";

const LEVEL_WIDTH = 8;

export function logLine(entry: LogEntry, paint: Paint): string {
  const time = Number.isNaN(entryTime(entry))
    ? String(entry.timestamp)
    : new Date(entryTime(entry)).toISOString();
  return `${time} ${levelPaint(entry.level, paint)(entry.level.padEnd(LEVEL_WIDTH))} ${visible(entry.message)}`;
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

/** Control characters (ESC, CR, ...) as visible escapes; a tab stays a tab. */
function visible(text: string): string {
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g, (ch) =>
    ch === "\n" ? "\\n" : `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}
