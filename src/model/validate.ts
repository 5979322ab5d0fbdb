// Validation entry points: the schema first (shapes, types, bounds), then the cross-field
// rules. Problems come back in the API's own 422 shape, `{loc, msg, type}`, with `loc`
// starting at "body" as the service's does.
import type * as z from "zod/mini";
import { closest } from "../util/did-you-mean.js";
import { SOURCES } from "./enums.js";
import type { FieldIssue } from "./issue-path.js";
import { formatPath, issueLine } from "./issue-path.js";
import type { DeploymentT } from "./responses.js";
import { checkCreateRules, checkPatchRules } from "./rules.js";
import { keysOf, schemaAt } from "./schema-walk.js";
import {
  type CreateRequest,
  DeploymentCreateRequest,
  DeploymentPatchRequest,
  type PatchRequest,
  RESOURCE_SPEC_FIELDS,
} from "./schemas.js";

// zod leaves the offending value out of its issues unless asked; messages quote it.
const PARSE_OPTIONS = { reportInput: true } as const;

export type Validated<T> = { ok: true; value: T } | { ok: false; issues: FieldIssue[] };

export function validateCreateRequest(input: unknown): Validated<CreateRequest> {
  const parsed = DeploymentCreateRequest.safeParse(input, PARSE_OPTIONS);
  if (!parsed.success) {
    return {
      ok: false,
      issues: withRuleIssues(
        fromZodIssues(parsed.error.issues, DeploymentCreateRequest),
        input,
        hasCreateShape,
        (body) => checkCreateRules(body as CreateRequest),
      ),
    };
  }
  const issues = checkCreateRules(parsed.data);
  return issues.length ? { ok: false, issues } : { ok: true, value: parsed.data };
}

/** `current` is the deployment being patched: some rules depend on what it already holds. */
export function validatePatchRequest(input: unknown, current: DeploymentT): Validated<PatchRequest> {
  const parsed = DeploymentPatchRequest.safeParse(input, PARSE_OPTIONS);
  if (!parsed.success) {
    return {
      ok: false,
      issues: withRuleIssues(
        fromZodIssues(parsed.error.issues, DeploymentPatchRequest),
        input,
        isObject,
        (body) => checkPatchRules(body as PatchRequest, current),
      ),
    };
  }
  const issues = checkPatchRules(parsed.data, current);
  return issues.length ? { ok: false, issues } : { ok: true, value: parsed.data };
}

/**
 * Adds the cross-field problems to the schema's, so that a person sees every problem at
 * once rather than one batch per attempt. The rules only run when the body's outline is
 * sound, and a rule's finding is dropped where the schema already reported that field.
 */
function withRuleIssues(
  schemaIssues: FieldIssue[],
  input: unknown,
  outlineIsSound: (input: unknown) => boolean,
  rules: (body: unknown) => FieldIssue[],
): FieldIssue[] {
  if (!outlineIsSound(input)) return schemaIssues;
  let ruleIssues: FieldIssue[];
  try {
    ruleIssues = rules(input);
  } catch {
    return schemaIssues;
  }
  // Rules compare siblings (a limit with its request), so any finding inside an object that
  // holds a field the schema refused may be an echo of that field: leave it out. (A set of the
  // parents, each finding's own parents looked up in it: comparing every finding with every
  // parent took seconds for a file with thousands of broken secrets.)
  const brokenParents = new Set(schemaIssues.map((issue) => formatPath(issue.loc.slice(0, -1))));
  const covered = (issue: FieldIssue) => {
    for (let length = 1; length < issue.loc.length; length++)
      if (brokenParents.has(formatPath(issue.loc.slice(0, length)))) return true;
    return false;
  };
  return [...schemaIssues, ...ruleIssues.filter((issue) => !covered(issue))];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

function hasCreateShape(input: unknown): boolean {
  return (
    isObject(input) &&
    (SOURCES as readonly unknown[]).includes(input.source) &&
    isObject(input.source_config) &&
    isObject(input.source_revision_config) &&
    Array.isArray(input.secrets)
  );
}

/** Schema-only check of a patch body, for when the deployment is not at hand (dry runs by ID). */
export function validatePatchShape(input: unknown): Validated<PatchRequest> {
  const parsed = DeploymentPatchRequest.safeParse(input, PARSE_OPTIONS);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, issues: fromZodIssues(parsed.error.issues, DeploymentPatchRequest) };
}

/** A body checked against `schema` alone (no cross-field rules): the listener requests (listeners.ts). */
export function validateShape<T>(schema: z.ZodMiniType<T>, input: unknown): Validated<T> {
  const parsed = schema.safeParse(input, PARSE_OPTIONS);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, issues: fromZodIssues(parsed.error.issues, schema) };
}

/** One line a problem: `source_config.build_on_push: <message>`. */
export function describeIssue(issue: FieldIssue): string {
  return issueLine(issue.loc, issue.msg);
}

/** Translates zod's issues into field-level messages a person can act on. */
function fromZodIssues(issues: readonly z.core.$ZodIssue[], schema: z.core.$ZodType): FieldIssue[] {
  const result: FieldIssue[] = [];
  for (const issue of issues) {
    const loc = ["body", ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))];
    if (issue.code === "unrecognized_keys") {
      const found = schemaAt(schema, issue.path);
      const known = (found.ok && keysOf(found.schema)) || [];
      for (const key of issue.keys) {
        const hint = misplacedResourceField(issue.path, key) ?? closest(key, known);
        result.push({
          loc: [...loc, key],
          msg: `is not a known field${hint ? `; did you mean '${hint}'?` : "; remove it"}`,
          type: "extra_forbidden",
        });
      }
      continue;
    }
    // A secret's value is never quoted back, whole or in part: it would reach a terminal or a CI log.
    result.push({ loc, ...describeZodIssue(issue, !loc.includes("secrets")) });
  }
  return result;
}

function describeZodIssue(issue: z.core.$ZodIssue, quoteInput: boolean): { msg: string; type: string } {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return { msg: "is required", type: "missing" };
      return {
        msg: `must be ${article(issue.expected)}, not ${describeValue(issue.input, quoteInput)}`,
        type: `${issue.expected}_type`,
      };
    case "invalid_value": {
      const choices = issue.values.map((v) => JSON.stringify(v)).join(", ");
      if (issue.input === undefined) return { msg: `is required: one of ${choices}`, type: "missing" };
      return { msg: `must be one of ${choices}`, type: "enum" };
    }
    case "too_small":
    case "too_big":
    case "invalid_format":
    case "custom":
      return {
        msg: issue.message && issue.message !== "Invalid input" ? issue.message : genericMessage(issue),
        type: "value_error",
      };
    case "invalid_union":
      return { msg: "has the wrong shape", type: "value_error" };
    default:
      return { msg: issue.message || "is not valid", type: "value_error" };
  }
}

function genericMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "too_small") return `must be at least ${String(issue.minimum)}`;
  if (issue.code === "too_big") return `must be at most ${String(issue.maximum)}`;
  if (issue.code === "invalid_format") return `must be a valid ${issue.format}`;
  return "is not valid";
}

function article(expected: string): string {
  if (expected === "int") return "an integer";
  if (expected === "array" || expected === "object") return `an ${expected}`;
  return `a ${expected}`;
}

/** What kind of value it is, and (when `quote`) the value itself, shortened. */
function describeValue(value: unknown, quote: boolean): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (!quote) return typeof value === "object" ? "an object" : `a ${typeof value}`;
  if (typeof value === "number" && !Number.isInteger(value)) return `a fraction (${value})`;
  if (typeof value === "string")
    return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  return typeof value === "object" ? "an object" : `a ${typeof value} (${String(value)})`;
}

/** `source_config.cpu` is a common slip for `source_config.resource_spec.cpu`. */
function misplacedResourceField(path: readonly PropertyKey[], key: string): string | null {
  const atSourceConfig = path.length === 1 && path[0] === "source_config";
  return atSourceConfig && (RESOURCE_SPEC_FIELDS as string[]).includes(key) ? `resource_spec.${key}` : null;
}
