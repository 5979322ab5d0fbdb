// zod schemas of the response bodies (spec 4, 5, 7): what the control plane answers. cpctl
// does not validate answers at run time (it reads what it needs and passes the rest through);
// the tests check the emulator's answers against these, and the types below are what the
// commands read. Unknown fields pass through (looseObject): the service may add fields.
import * as z from "zod/mini";
import {
  DEPLOYMENT_STATUSES,
  LISTENER_COMPUTE_TYPES,
  LOG_LEVELS,
  REVISION_STATUSES,
  SOURCES,
} from "./enums.js";
import { int, nullable, nullish, string } from "./leaves.js";
import { resourceSpecShape, sourceConfigShape } from "./schemas.js";

/** Output form of ResourceSpec: the service fills the limit defaults. */
const ResourceSpec = z.looseObject(resourceSpecShape);
const SourceConfig = z.looseObject({ ...sourceConfigShape, resource_spec: nullish(ResourceSpec) });
const SourceRevisionConfig = z.looseObject({
  repo_ref: nullish(string),
  agent_config_path: nullish(string),
  image_uri: nullish(string),
  source_tarball_path: nullish(string),
  repo_commit_sha: nullish(string),
});

// --- Resources and lists ---

export const Deployment = z.looseObject({
  name: string,
  source: z.enum(SOURCES),
  source_config: SourceConfig,
  source_revision_config: SourceRevisionConfig,
  secrets: z.array(z.looseObject({ name: string, value: string })),
  secret_references: nullish(
    z.array(z.looseObject({ name: string, secret_name: string, secret_key: string })),
  ),
  id: string,
  tenant_id: string,
  created_at: string,
  updated_at: string,
  status: z.enum(DEPLOYMENT_STATUSES),
  latest_revision_id: nullable(string),
  active_revision_id: nullable(string),
  image_version: nullish(string),
});

export const DeploymentList = z.looseObject({ resources: z.array(Deployment), offset: int });

export const Revision = z.looseObject({
  id: string,
  created_at: string,
  updated_at: string,
  status: z.enum(REVISION_STATUSES),
  source: z.enum(SOURCES),
  source_revision_config: SourceRevisionConfig,
});

export const RevisionList = z.looseObject({ resources: z.array(Revision), offset: int });

export const GitIntegration = z.looseObject({ id: string, installation_id: int, name: string });
export const GitIntegrationList = z.array(GitIntegration);

/** A repository a git integration can reach (`GET /v1/integrations/gitrepo/{id}/repos`). */
export const GitRepository = z.looseObject({
  host_integration_id: string,
  id: int,
  name: string,
  owner: string,
  url: string,
  default_branch: string,
});

export const Listener = z.looseObject({
  id: string,
  compute_type: z.enum(LISTENER_COMPUTE_TYPES),
  compute_id: string,
  compute_config: z.looseObject({ k8s_namespaces: z.array(string) }),
  created_at: string,
  updated_at: string,
});
export const ListenerList = z.looseObject({ resources: z.array(Listener), offset: int });

export const UploadUrlResponse = z.looseObject({ upload_url: string, object_path: string });

/** service-facts "Shipping an image": registry_url is HOST[:PORT]/PATH, no scheme. */
export const PushTokenResponse = z.looseObject({ token: string, registry_url: string });

// --- Logs (service-facts "Logs": build_logs, deploy_logs) ---

/** `timestamp`: epoch milliseconds or an ISO 8601 string, as the service facts allow (the emulator sends ISO). */
const LogEntrySchema = z.looseObject({
  id: string,
  timestamp: z.union([string, int]),
  level: z.enum(LOG_LEVELS),
  message: string,
});
export const LogPage = z.looseObject({ logs: z.array(LogEntrySchema), next_offset: nullable(string) });

/**
 * A log entry as cpctl reads it: looser than the schema (a level it does not know is shown as
 * it came, not refused).
 */
export interface LogEntry {
  id: string;
  /** Epoch milliseconds, or an ISO 8601 string. */
  timestamp: number | string;
  level: string;
  message: string;
}

// --- Error bodies (spec 7) ---

export const ErrorDetailBody = z.looseObject({ detail: string });
export const ValidationErrorBody = z.looseObject({
  detail: z.array(z.looseObject({ loc: z.array(z.union([string, int])), msg: string, type: string })),
});

// --- Inferred types ---

export type DeploymentT = z.infer<typeof Deployment>;
export type RevisionT = z.infer<typeof Revision>;
export type GitIntegrationT = z.infer<typeof GitIntegration>;
export type GitRepositoryT = z.infer<typeof GitRepository>;
export type ListenerT = z.infer<typeof Listener>;
export type UploadUrlResponseT = z.infer<typeof UploadUrlResponse>;
export type PushTokenResponseT = z.infer<typeof PushTokenResponse>;
