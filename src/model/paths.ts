// What the schema expects at a field path: used to type `--set PATH=VALUE` values and to
// suggest the right name when a path is wrong. The walking is schema-walk.ts's.
import type * as z from "zod/mini";
import { type LeafKind, leafOf, schemaAt } from "./schema-walk.js";

export type { LeafKind };

export interface FieldType {
  kind: LeafKind;
  nullable: boolean;
  /** Allowed values of an enum. */
  values?: string[];
}

type PathLookup = { ok: true; type: FieldType } | { ok: false; at: (string | number)[]; known: string[] };

/** The type the schema expects at `path`; or, when the path leaves the schema, where and what was possible. */
export function fieldTypeAt(root: z.core.$ZodType, path: readonly (string | number)[]): PathLookup {
  const found = schemaAt(root, path);
  if (!found.ok) return { ok: false, at: path.slice(0, found.at.length), known: found.known };
  return { ok: true, type: { ...leafOf(found.schema), nullable: found.nullable } };
}
