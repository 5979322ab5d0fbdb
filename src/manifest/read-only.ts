// Fields a deployment has that no request sets: what `deploy get -o yaml` prints beyond the
// request body (its ID, tenant, times, status, revision IDs, the commit a revision built, the
// custom_url the service sets for the deployments it hosts). A file made from that output
// (`deploy get NAME -o yaml | cpctl deploy apply -f -`) is read without them, with one note
// naming them; its IDs must still be the deployment's: a file written from another deployment
// (or tenant) is refused rather than applied to this one.
import { UsageError } from "../errors.js";
import type { DeploymentT } from "../model/responses.js";

/** Top-level fields of a Deployment that are not part of a request. */
const TOP_LEVEL = [
  "id",
  "tenant_id",
  "created_at",
  "updated_at",
  "status",
  "latest_revision_id",
  "active_revision_id",
  "image_version",
] as const;

/**
 * Sources whose custom_url the service sets (the ones it hosts: spec 2.2 says so of gitrepo,
 * service-facts of every hosted one); an external_container's is the user's.
 */
const SERVICE_SETS_URL = new Set<unknown>(["gitrepo", "internal_source", "internal_container"]);

/** What a file held of them: the dotted paths, and the identifiers to compare. */
export interface ReadOnlyFields {
  paths: string[];
  id?: unknown;
  tenant_id?: unknown;
}

/** Takes the read-only fields out of a file's top-level mapping (in place), and says which they were. */
export function takeReadOnly(data: Record<string, unknown>): ReadOnlyFields {
  const found: ReadOnlyFields = { paths: [] };
  for (const field of TOP_LEVEL) {
    if (!(field in data)) continue;
    if (field === "id" || field === "tenant_id") found[field] = data[field];
    delete data[field];
    found.paths.push(field);
  }
  const revision = data.source_revision_config;
  if (isRecord(revision) && "repo_commit_sha" in revision) {
    delete revision.repo_commit_sha;
    found.paths.push("source_revision_config.repo_commit_sha");
  }
  const config = data.source_config;
  if (SERVICE_SETS_URL.has(data.source) && isRecord(config) && "custom_url" in config) {
    delete config.custom_url;
    found.paths.push("source_config.custom_url");
  }
  return found;
}

/** The note said once when a file had read-only fields. */
export function readOnlyNote(fileName: string, fields: ReadOnlyFields): string {
  return `${fileName}: ignored the fields no request sets (as \`deploy get\` prints them): ${fields.paths.join(", ")}`;
}

/**
 * A file's `id` and `tenant_id`, when it has them, must be the deployment's it is applied
 * to: otherwise it was written from another one. (Times, status and revision IDs change with
 * every revision: they are not compared.)
 */
export function checkIdsMatch(fileName: string, fields: ReadOnlyFields, deployment: DeploymentT): void {
  for (const [field, actual] of [
    ["id", deployment.id],
    ["tenant_id", deployment.tenant_id],
  ] as const) {
    const given = fields[field];
    if (given === undefined || given === null || given === actual) continue;
    throw new UsageError(
      `${fileName}: ${field} is ${JSON.stringify(given)}, but deployment ${deployment.name}'s is ${actual}: the file was written from another deployment`,
    ).withHint(`Remove ${field} from the file to apply it to ${deployment.name} anyway.`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
