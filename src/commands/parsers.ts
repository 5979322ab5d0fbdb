// Option-value parsers for commander: a bad value becomes a usage error (exit 2) that
// quotes the value and says what is expected.
import { InvalidArgumentError } from "@commander-js/extra-typings";
import { isIdPrefix, isUuid, MIN_ID_PREFIX } from "../model/enums.js";
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

// The global options use it too (global-options.ts): it lives below both.
export { oneOf } from "../util/one-of.js";

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

/**
 * An ID, or its first 8 characters or more (what a narrow table shows): the command resolves a
 * prefix to the one ID it starts (operations/resolve.ts).
 */
export function idOrPrefix(value: string): string {
  if (isUuid(value) || isIdPrefix(value)) return value;
  throw new InvalidArgumentError(
    `expected an ID (8-4-4-4-12 hexadecimal digits), or its first ${MIN_ID_PREFIX} characters or more.`,
  );
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

/** A byte size as --max-size takes it: 50MiB, 1GiB, 20MB, a number of bytes. */
export function size(value: string): number {
  const bytes = parseSize(value);
  if (bytes === null) throw new InvalidArgumentError(`expected a size (${SIZE_HELP}).`);
  return bytes;
}

/** Repeatable options collect into an array. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  ${line}`).join("\n")}`;
}
