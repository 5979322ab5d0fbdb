// Durations as CLI.md accepts them: `500ms`, `90` (seconds), `90s`, `15m`, `1h`; and days,
// `7d`, for what is measured in them (deploy prune --older-than).

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;

/** Milliseconds, or null when the text is not a duration. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text.trim());
  if (!match) return null;
  const ms = Number(match[1]) * UNIT_MS[match[2] ?? "s"]!;
  return Number.isFinite(ms) ? Math.round(ms) : null;
}

export const DURATION_HELP = "e.g. 500ms, 90 (seconds), 90s, 15m, 1h, 7d";

/**
 * A short human form: 450ms, 12s, 3m05s, 1h02m, 2d03h. `exact`: seconds below a minute keep their
 * tenth (1.5s), for a limit the user gave rather than a time that passed.
 */
export function formatDuration(ms: number, { exact = false } = {}): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (exact && ms < 60_000 && ms % 1000 !== 0) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, "0")}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h${String(minutes % 60).padStart(2, "0")}m`;
  return `${Math.floor(hours / 24)}d${String(hours % 24).padStart(2, "0")}h`;
}
