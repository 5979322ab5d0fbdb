// Query parameters of the list endpoints (spec 4.2 with the names from service-facts).
// Bad values are refused with 422 at `loc: ["query", <name>]`, every problem at once, as
// the service's framework does. An empty value (`?status=`) counts as absent.
import {
  BULK_DELETE_MAX,
  DEPLOYMENT_STATUSES,
  DEPLOYMENT_TYPES,
  type DeploymentStatus,
  type DeploymentType,
  isUuid,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  LIST_LIMIT_MIN,
  REVISION_STATUSES,
  type RevisionStatus,
} from "../../model/enums.js";
import type { FieldIssue } from "../../model/issue-path.js";
import { fieldIssue, invalid } from "../responses.js";

export interface Page {
  limit: number;
  offset: number;
}

export interface DeploymentFilters extends Page {
  name: string | null;
  nameContains: string | null;
  status: DeploymentStatus | null;
  remoteReconciled: boolean | null;
  /** Emulated deployments carry no tags: any non-empty list matches nothing. */
  tagValueIds: string[] | null;
  imageVersion: string | null;
  deploymentType: DeploymentType | null;
  deploymentIds: Set<string> | null;
}

export interface RevisionFilters extends Page {
  /** Any of these statuses (service-facts: a comma-separated list). */
  statuses: Set<RevisionStatus> | null;
  /** Revisions of remote-reconciled (self-hosted: external_container) deployments, or of the others. */
  remoteReconciled: boolean | null;
}

export interface DeleteOptions {
  /** Also delete the tracing project created with the deployment (default false). */
  deleteTracingProject: boolean;
  /** `force=true` (service-facts "Newer endpoints"): refused while the deployment is active. */
  force: boolean;
}

export function parsePage(query: URLSearchParams, issues: FieldIssue[]): Page {
  const limit = integer(query, "limit", issues, LIST_LIMIT_MIN, LIST_LIMIT_MAX) ?? LIST_LIMIT_DEFAULT;
  const offset = integer(query, "offset", issues, 0, Number.MAX_SAFE_INTEGER) ?? 0;
  return { limit, offset };
}

export function parseDeploymentFilters(query: URLSearchParams): DeploymentFilters {
  const issues: FieldIssue[] = [];
  const filters: DeploymentFilters = {
    ...parsePage(query, issues),
    name: text(query, "name"),
    nameContains: text(query, "name_contains"),
    status: oneOf(query, "status", DEPLOYMENT_STATUSES, issues),
    remoteReconciled: boolean(query, "remote_reconciled", issues),
    tagValueIds: list(query, "tag_value_ids"),
    imageVersion: text(query, "image_version"),
    deploymentType: oneOf(query, "deployment_type", DEPLOYMENT_TYPES, issues),
    deploymentIds: null,
  };
  const ids = list(query, "deployment_ids");
  if (ids) {
    const bad = ids.filter((id) => !isUuid(id));
    if (bad.length) {
      issues.push(
        fieldIssue(
          ["query", "deployment_ids"],
          `must be a comma-separated list of UUIDs; not UUIDs: ${bad.slice(0, 5).join(", ")}`,
          "uuid_parsing",
        ),
      );
    }
    filters.deploymentIds = new Set(ids.map((id) => id.toLowerCase()));
  }
  if (issues.length) throw invalid(issues);
  return filters;
}

export function parseRevisionFilters(query: URLSearchParams): RevisionFilters {
  const issues: FieldIssue[] = [];
  const filters = {
    ...parsePage(query, issues),
    statuses: someOf(query, "status", REVISION_STATUSES, issues),
    remoteReconciled: boolean(query, "remote_reconciled", issues),
  };
  if (issues.length) throw invalid(issues);
  return filters;
}

export function parseDeleteOptions(query: URLSearchParams): DeleteOptions {
  const issues: FieldIssue[] = [];
  const deleteTracingProject = boolean(query, "delete_tracing_project", issues) ?? false;
  const force = boolean(query, "force", issues) ?? false;
  if (issues.length) throw invalid(issues);
  return { deleteTracingProject, force };
}

/**
 * The IDs of a bulk DELETE /v2/deployments: `deployment_ids` repeated (the document's array
 * parameter in its default form, `?deployment_ids=A&deployment_ids=B`), required, at most
 * BULK_DELETE_MAX, each a UUID. A comma-separated value is one value that is not a UUID, as
 * the service's framework reads it. An empty value counts as absent. Duplicates count once.
 */
export function parseBulkDeleteIds(query: URLSearchParams): string[] {
  const given = query.getAll("deployment_ids");
  const issues: FieldIssue[] = [];
  if (given.every((value) => value === "")) {
    throw invalid([fieldIssue(["query", "deployment_ids"], "Field required", "missing")]);
  }
  if (given.length > BULK_DELETE_MAX) {
    issues.push(
      fieldIssue(
        ["query", "deployment_ids"],
        `must hold at most ${BULK_DELETE_MAX} IDs, not ${given.length}`,
        "too_long",
      ),
    );
  }
  given.forEach((value, index) => {
    if (value !== "" && !isUuid(value) && issues.length < 20) {
      issues.push(
        fieldIssue(
          ["query", "deployment_ids", index],
          `must be a UUID, not ${JSON.stringify(value.slice(0, 60))}`,
          "uuid_parsing",
        ),
      );
    }
  });
  if (issues.length) throw invalid(issues);
  return [...new Set(given.filter((value) => value !== "").map((id) => id.toLowerCase()))];
}

export function parseListenerPage(query: URLSearchParams): Page {
  const issues: FieldIssue[] = [];
  const page = parsePage(query, issues);
  if (issues.length) throw invalid(issues);
  return page;
}

function text(query: URLSearchParams, name: string): string | null {
  const value = query.get(name);
  return value ? value : null;
}

function list(query: URLSearchParams, name: string): string[] | null {
  const value = text(query, name);
  if (value === null) return null;
  const items = value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  return items.length ? items : null;
}

function integer(
  query: URLSearchParams,
  name: string,
  issues: FieldIssue[],
  min: number,
  max: number,
): number | null {
  const value = text(query, name);
  if (value === null) return null;
  if (!/^[+-]?\d{1,16}$/.test(value)) {
    issues.push(
      fieldIssue(
        ["query", name],
        `must be an integer, not ${JSON.stringify(value.slice(0, 40))}`,
        "int_parsing",
      ),
    );
    return null;
  }
  const number = Number(value);
  if (number < min) {
    issues.push(fieldIssue(["query", name], `must be at least ${min}, not ${number}`, "greater_than_equal"));
    return null;
  }
  if (number > max) {
    issues.push(fieldIssue(["query", name], `must be at most ${max}, not ${number}`, "less_than_equal"));
    return null;
  }
  return number;
}

function oneOf<T extends string>(
  query: URLSearchParams,
  name: string,
  values: readonly T[],
  issues: FieldIssue[],
): T | null {
  const value = text(query, name);
  if (value === null) return null;
  if ((values as readonly string[]).includes(value)) return value as T;
  issues.push(
    fieldIssue(
      ["query", name],
      `must be one of ${values.join(", ")}; not ${JSON.stringify(value.slice(0, 40))}`,
      "enum",
    ),
  );
  return null;
}

/** A comma-separated list of values from `values`; every unknown one is named in one issue. */
function someOf<T extends string>(
  query: URLSearchParams,
  name: string,
  values: readonly T[],
  issues: FieldIssue[],
): Set<T> | null {
  const items = list(query, name);
  if (items === null) return null;
  const unknown = items.filter((item) => !(values as readonly string[]).includes(item));
  if (unknown.length) {
    issues.push(
      fieldIssue(
        ["query", name],
        `must be a comma-separated list of ${values.join(", ")}; unknown: ${unknown
          .slice(0, 5)
          .map((item) => JSON.stringify(item.slice(0, 40)))
          .join(", ")}`,
        "enum",
      ),
    );
    return null;
  }
  return new Set(items as T[]);
}

const TRUE = new Set(["true", "1", "yes"]);
const FALSE = new Set(["false", "0", "no"]);

function boolean(query: URLSearchParams, name: string, issues: FieldIssue[]): boolean | null {
  const value = text(query, name);
  if (value === null) return null;
  const lower = value.toLowerCase();
  if (TRUE.has(lower)) return true;
  if (FALSE.has(lower)) return false;
  issues.push(
    fieldIssue(
      ["query", name],
      `must be true or false, not ${JSON.stringify(value.slice(0, 40))}`,
      "bool_parsing",
    ),
  );
  return null;
}
