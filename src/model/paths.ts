// What the schema expects at a field path: used to type `--set PATH=VALUE` values and to
// suggest the right name when a path is wrong.
import type * as z from "zod/mini";

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

export interface FieldType {
  kind: LeafKind;
  nullable: boolean;
  /** Allowed values of an enum. */
  values?: string[];
}

type PathLookup = { ok: true; type: FieldType } | { ok: false; at: (string | number)[]; known: string[] };

interface Def {
  type: string;
  format?: string;
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
  innerType?: z.core.$ZodType;
  valueType?: z.core.$ZodType;
  entries?: Record<string, string>;
}

const defOf = (schema: z.core.$ZodType) => schema._zod.def as unknown as Def;

/** The type the schema expects at `path`; or, when the path leaves the schema, where and what was possible. */
export function fieldTypeAt(root: z.core.$ZodType, path: readonly (string | number)[]): PathLookup {
  let current = root;
  let nullable = false;
  for (let i = 0; i <= path.length; i++) {
    ({ schema: current, nullable } = unwrap(current));
    if (i === path.length) break;
    const part = path[i]!;
    const def = defOf(current);
    // Own keys only: `__proto__` or `toString` must not walk into Object.prototype.
    if (def.type === "object" && typeof part === "string" && def.shape && Object.hasOwn(def.shape, part)) {
      current = def.shape[part]!;
    } else if (def.type === "array" && typeof part === "number" && def.element) {
      current = def.element;
    } else if (def.type === "record" && typeof part === "string" && def.valueType) {
      current = def.valueType;
    } else {
      return {
        ok: false,
        at: path.slice(0, i + 1),
        known: def.type === "object" ? Object.keys(def.shape ?? {}) : [],
      };
    }
  }
  return { ok: true, type: { ...leafOf(defOf(current)), nullable } };
}

function unwrap(schema: z.core.$ZodType): { schema: z.core.$ZodType; nullable: boolean } {
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

function leafOf(def: Def): Omit<FieldType, "nullable"> {
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
