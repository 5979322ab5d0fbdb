// A flag value that must be one of a fixed set, for commander: the commands' flags
// (commands/parsers.ts) and the global -o (global-options.ts).
import { InvalidArgumentError } from "@commander-js/extra-typings";

/**
 * One of `values`, whatever its case where that leaves one choice (`--status ready` is READY):
 * after `.choices(values)`, which still lists them in help and completions.
 */
export function oneOf<T extends string>(values: readonly T[]) {
  return (value: string): T => {
    const exact = values.find((v) => v === value);
    if (exact) return exact;
    const folded = values.filter((v) => v.toLowerCase() === value.toLowerCase());
    if (folded.length === 1) return folded[0]!;
    throw new InvalidArgumentError(`expected one of ${values.join(", ")}.`);
  };
}
