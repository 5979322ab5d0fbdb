// The one item an ID prefix starts (operations/resolve.ts, id-flags.ts): several are a usage
// error that lists them (exit 2), none the error the caller makes (a not-found, exit 4).
import { UsageError } from "../errors.js";

export function single<T>(
  what: string,
  ref: string,
  matches: T[],
  describe: (item: T) => string,
  none: () => Error,
): T {
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw none();
  throw new UsageError(
    `${matches.length} ${what}s have an ID that starts with '${ref}': ${matches.map(describe).join(", ")}; give more of the ID`,
  );
}
