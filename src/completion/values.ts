// The values a shell completes for a flag or an argument whose values a parser of its own checks
// (`--level warning` is WARNING; commander's `.choices()` would refuse it), stated where the flag
// is defined: `completes(new Option("--level <level>", ...).argParser(level), LOG_LEVELS)`.
// tree.ts reads them as it reads commander's choices. No imports: command modules use it.

const values = new WeakMap<object, readonly string[]>();

/** Marks `target` (an Option or an Argument) as completing with `completions`; returns it. */
export function completes<T extends object>(target: T, completions: readonly string[]): T {
  values.set(target, completions);
  return target;
}

/** The values `completes` gave `target`, or null. */
export function completionsOf(target: object): readonly string[] | null {
  return values.get(target) ?? null;
}
