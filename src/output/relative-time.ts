// Times in a terminal table are read as "how long ago": "3m ago", "2d ago". The exact ISO
// time stays in json, yaml, ndjson and the tab-separated rows (scripts parse those), and in
// the one-item detail view.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const YEAR = 365 * DAY;
const ISO_DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d/;

/**
 * `iso` relative to `now` (ms since the epoch), in at most 8 columns: "just now" within a
 * minute, then whole minutes, hours, days, years ("3m ago", "5h ago", "12d ago", "2y ago"),
 * rounded down as a clock is read. A time ahead of `now` by more than a minute (a clock
 * elsewhere that runs fast) says so: "in 3m". null when `iso` is not a time.
 */
export function relativeTime(iso: string, now: number): string | null {
  // Date.parse reads much that is not ISO 8601 ("1" is the year 2001): only a date and a time.
  if (!ISO_DATE_TIME.test(iso)) return null;
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return null;
  const ago = now - at;
  if (Math.abs(ago) < MINUTE) return "just now";
  const span = amount(Math.abs(ago));
  return ago > 0 ? `${span} ago` : `in ${span}`;
}

function amount(ms: number): string {
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)}m`;
  if (ms < DAY) return `${Math.floor(ms / HOUR)}h`;
  if (ms < YEAR) return `${Math.floor(ms / DAY)}d`;
  return `${Math.floor(ms / YEAR)}y`;
}
