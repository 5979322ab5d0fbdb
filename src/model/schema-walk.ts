// The one reader of zod's internals (`_zod.def`): a schema's kind, the schema inside its
// optional and nullable wrappers, and the step from a schema to the one at a field path.
// paths.ts (what `--set` may write where) and validate.ts (the keys to suggest for an
// unknown field) both walk with it, so a change in zod's internals is met here alone.
import type * as z from "zod/mini";

type Schema = z.core.$ZodType;

/** What this module reads of a schema's definition. */
interface Def {
  type: string;
  format?: string;
  shape?: Record<string, Schema>;
  element?: Schema;
  innerType?: Schema;
  valueType?: Schema;
  entries?: Record<string, string>;
}

const defOf = (schema: Schema) => schema._zod.def as unknown as Def;

export type LeafKind =
  | "string"
  | "number"
  | "integer"
  | "boolean"
  | "enum"
  | "array"
  | "object"
  | "record"
  | "unknown";

/** The schema inside optional and nullable wrappers, and whether one of them allows null. */
export function unwrap(schema: Schema): { schema: Schema; nullable: boolean } {
  let current = schema;
  let nullable = false;
  for (;;) {
    const def = defOf(current);
    if ((def.type === "optional" || def.type === "nullable") && def.innerType) {
      nullable ||= def.type === "nullable";
      current = def.innerType;
    } else return { schema: current, nullable };
  }
}

/** The schema of `part` in an unwrapped schema: an object's own field, an array's item, a record's value. */
function childOf(schema: Schema, part: PropertyKey): Schema | undefined {
  const def = defOf(schema);
  // Own keys only: `__proto__` or `toString` must not walk into Object.prototype.
  if (def.type === "object" && typeof part === "string" && def.shape && Object.hasOwn(def.shape, part)) {
    return def.shape[part];
  }
  if (def.type === "array" && typeof part === "number") return def.element;
  if (def.type === "record" && typeof part === "string") return def.valueType;
  return undefined;
}

/** The field names of an unwrapped object schema; null for any other kind. */
export function keysOf(schema: Schema): string[] | null {
  const def = defOf(schema);
  return def.type === "object" ? Object.keys(def.shape ?? {}) : null;
}

export type SchemaLookup =
  | { ok: true; schema: Schema; nullable: boolean }
  | { ok: false; at: PropertyKey[]; known: string[] };

/**
 * The schema at `path` (unwrapped, and whether the field itself may be null); or, when the
 * path leaves the schema, the path up to the step that did and the fields possible there.
 */
export function schemaAt(root: Schema, path: readonly PropertyKey[]): SchemaLookup {
  let { schema, nullable } = unwrap(root);
  for (let i = 0; i < path.length; i++) {
    const child = childOf(schema, path[i]!);
    if (!child) return { ok: false, at: path.slice(0, i + 1), known: keysOf(schema) ?? [] };
    ({ schema, nullable } = unwrap(child));
  }
  return { ok: true, schema, nullable };
}

/** What kind of value an unwrapped schema takes (an enum with its values). */
export function leafOf(schema: Schema): { kind: LeafKind; values?: string[] } {
  const def = defOf(schema);
  switch (def.type) {
    case "string":
      return { kind: "string" };
    case "number":
      return { kind: def.format === "safeint" || def.format === "int32" ? "integer" : "number" };
    case "boolean":
      return { kind: "boolean" };
    case "enum":
      return { kind: "enum", values: Object.values(def.entries ?? {}) };
    case "array":
      return { kind: "array" };
    case "object":
      return { kind: "object" };
    case "record":
      return { kind: "record" };
    default:
      return { kind: "unknown" };
  }
}
