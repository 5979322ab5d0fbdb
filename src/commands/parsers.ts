// Option-value parsers for commander: a bad value becomes a usage error (exit 2) that
// quotes the value and says what is expected.
import { InvalidArgumentError } from "@commander-js/extra-typings";
import { isUuid } from "../model/enums.js";
import { parseSize, SIZE_HELP } from "../upload/size.js";
import { DURATION_HELP, parseDuration } from "../util/duration.js";

export function integerIn(min: number, max = Number.MAX_SAFE_INTEGER) {
  const expected =
    max === Number.MAX_SAFE_INTEGER
      ? min === Number.MIN_SAFE_INTEGER
        ? "expected a whole number."
        : `expected a whole number >= ${min}.`
      : `expected a whole number from ${min} to ${max}.`;
  return (value: string): number => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(expected);
    }
    return n;
  };
}

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

export function finiteNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n))
    throw new InvalidArgumentError("expected a number, e.g. 0.5.");
  return n;
}

export function booleanWord(value: string): boolean {
  const word = value.trim().toLowerCase();
  if (["true", "yes", "1", "on"].includes(word)) return true;
  if (["false", "no", "0", "off"].includes(word)) return false;
  throw new InvalidArgumentError("expected true or false.");
}

export function uuid(value: string): string {
  if (!isUuid(value)) throw new InvalidArgumentError("expected a UUID (8-4-4-4-12 hexadecimal digits).");
  return value;
}

export function uuidList(value: string): string {
  const ids = value
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean);
  const bad = ids.find((id) => !isUuid(id));
  if (ids.length === 0 || bad !== undefined) {
    throw new InvalidArgumentError(`expected comma-separated UUIDs${bad ? `; '${bad}' is not one` : ""}.`);
  }
  return ids.join(",");
}

export function duration(value: string): number {
  const ms = parseDuration(value);
  if (ms === null || ms <= 0) throw new InvalidArgumentError(`expected a duration (${DURATION_HELP}).`);
  return ms;
}

/** Repeatable options collect into an array. */
/** A byte size as --max-size takes it: 50MiB, 1GiB, 20MB, a number of bytes. */
export function size(value: string): number {
  const bytes = parseSize(value);
  if (bytes === null) throw new InvalidArgumentError(`expected a size (${SIZE_HELP}).`);
  return bytes;
}

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  ${line}`).join("\n")}`;
}
