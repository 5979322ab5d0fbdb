// `--set PATH=VALUE`: any field of the body, the value typed by the schema at that path.

import type * as z from "zod/mini";
import { UsageError } from "../errors.js";
import { formatPath } from "../model/issue-path.js";
import { type FieldType, fieldTypeAt } from "../model/paths.js";
import { closest } from "../util/did-you-mean.js";
import { type Path, PROTO_KEY, PROTO_KEY_REFUSED, protoKeyPath } from "../util/object-path.js";

export type { Path } from "../util/object-path.js";
export { deleteAt, getAt, setAt } from "../util/object-path.js";

/** No field of the API holds lists this long; a larger index is a typo that would allocate gigabytes. */
const MAX_INDEX = 999;

/** Splits `a.b[0].c=VALUE` (or `a.b.0.c=VALUE`) into a path and the raw value. */
export function parseAssignment(text: string): { path: Path; raw: string } {
  const eq = text.indexOf("=");
  if (eq <= 0)
    throw new UsageError(
      `--set '${eq === 0 ? "=..." : text}': expected PATH=VALUE, e.g. --set source_config.resource_spec.queue_cpu=0.5`,
    );
  const pathText = text.slice(0, eq).trim();
  const path: (string | number)[] = [];
  for (const segment of pathText.split(".")) {
    const match = /^([^[\]]*)((?:\[\d+\])*)$/.exec(segment);
    if (!match || (match[1] === "" && match[2] === "")) {
      throw new UsageError(
        `--set '${pathText}=...': '${pathText}' is not a field path; write it like source_config.resource_spec.cpu or ...sidecars[0].image`,
      );
    }
    if (match[1]) path.push(/^\d+$/.test(match[1]) ? Number(match[1]) : match[1]);
    for (const index of match[2]!.matchAll(/\[(\d+)\]/g)) path.push(Number(index[1]));
  }
  if (path.includes(PROTO_KEY)) {
    const upTo = path.slice(0, path.indexOf(PROTO_KEY) + 1);
    throw new UsageError(`--set ${formatPath(upTo)}: ${PROTO_KEY_REFUSED}`);
  }
  const tooLarge = path.find((part) => typeof part === "number" && part > MAX_INDEX);
  if (tooLarge !== undefined) {
    throw new UsageError(
      `--set '${pathText}': index ${tooLarge} is too large (at most ${MAX_INDEX}); list items are numbered from 0`,
    );
  }
  return { path, raw: text.slice(eq + 1) };
}

/** The value converted to the type the schema expects at the path. */
export function typedSetValue(schema: z.core.$ZodType, path: Path, raw: string): unknown {
  const lookup = fieldTypeAt(schema, path);
  const shown = formatPath(path);
  if (!lookup.ok) {
    const wrong = lookup.at.at(-1);
    const parent = formatPath(lookup.at.slice(0, -1)) || "the body";
    const hint = typeof wrong === "string" ? closest(wrong, lookup.known) : null;
    throw new UsageError(
      `--set ${shown}: '${String(wrong)}' is not a field of ${parent}${hint ? `; did you mean '${hint}'?` : lookup.known.length ? `; fields: ${lookup.known.join(", ")}` : ""}`,
    );
  }
  const value = convert(raw, lookup.type, shown);
  const proto = protoKeyPath(value, path);
  if (proto) throw new UsageError(`--set ${formatPath(proto)}: ${PROTO_KEY_REFUSED}`);
  return value;
}

function convert(raw: string, type: FieldType, shown: string): unknown {
  const fail = (expected: string): never => {
    // Anything under secrets may be a secret's value: never quoted back.
    const value = shown.startsWith("secrets") ? "(value not shown)" : raw;
    throw new UsageError(`--set ${shown}=${value}: expected ${expected}`);
  };
  if (raw === "null" && type.nullable) return null;
  switch (type.kind) {
    case "string":
      return raw;
    case "number": {
      const n = Number(raw);
      return raw.trim() !== "" && Number.isFinite(n) ? n : fail("a number, e.g. 0.5");
    }
    case "integer": {
      const n = Number(raw);
      return /^-?\d+$/.test(raw.trim()) && Number.isSafeInteger(n) ? n : fail("a whole number");
    }
    case "boolean":
      return raw === "true" ? true : raw === "false" ? false : fail("true or false");
    case "enum":
      return type.values?.includes(raw) ? raw : fail(`one of ${type.values?.join(", ")}`);
    default:
      try {
        return JSON.parse(raw);
      } catch {
        return fail(
          `JSON for this ${type.kind}, e.g. --set '${shown}=${type.kind === "array" ? '["a","b"]' : '{"key":"value"}'}'`,
        );
      }
  }
}
