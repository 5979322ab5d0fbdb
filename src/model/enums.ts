// The spec's enumerations, and CLI.md's output formats, as plain constants. Kept free of zod so
// that hot paths (wait, help, completions) can use them without loading the schema library.

export const SOURCES = ["gitrepo", "external_container", "internal_container", "internal_source"] as const;
export type Source = (typeof SOURCES)[number];

/** PATCH `revision_source` may not name `external_container` (spec 4.3). */
export const REVISION_SOURCES = ["gitrepo", "internal_container", "internal_source"] as const;

/** Sources the service builds from code; they need `agent_config_path` (spec 2.3). */
export const BUILDABLE_SOURCES: readonly Source[] = ["gitrepo", "internal_source"];
export const CONTAINER_SOURCES: readonly Source[] = ["external_container", "internal_container"];

export const DEPLOYMENT_TYPES = ["dev_free", "dev", "prod"] as const;
export type DeploymentType = (typeof DEPLOYMENT_TYPES)[number];

export const DEPLOYMENT_STATUSES = [
  "AWAITING_DATABASE",
  "READY",
  "UNUSED",
  "AWAITING_DELETE",
  "UNKNOWN",
] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

/** Every revision status the hosted service reports (service-facts.md). */
export const REVISION_STATUSES = [
  "CREATING",
  "QUEUED",
  "AWAITING_BUILD",
  "BUILDING",
  "AWAITING_DEPLOY",
  "DEPLOYING",
  "CREATE_FAILED",
  "BUILD_FAILED",
  "DEPLOY_FAILED",
  "DEPLOYED",
  "SKIPPED",
  "INTERRUPTED",
  "UNKNOWN",
] as const;
export type RevisionStatus = (typeof REVISION_STATUSES)[number];

export const REVISION_SUCCESS: RevisionStatus = "DEPLOYED";

/** Terminal and unsuccessful. `SKIPPED` and `INTERRUPTED` are failures, not successes. */
export const REVISION_FAILURES: readonly RevisionStatus[] = [
  "CREATE_FAILED",
  "BUILD_FAILED",
  "DEPLOY_FAILED",
  "SKIPPED",
  "INTERRUPTED",
];

export function isTerminalRevisionStatus(status: string): boolean {
  return status === REVISION_SUCCESS || (REVISION_FAILURES as readonly string[]).includes(status);
}

/**
 * The in-progress statuses a revision walks through, in order. Built sources pass through
 * the build stages; container sources go from QUEUED straight to AWAITING_DEPLOY.
 */
export function revisionStages(source: Source): RevisionStatus[] {
  return BUILDABLE_SOURCES.includes(source)
    ? ["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING"]
    : ["CREATING", "QUEUED", "AWAITING_DEPLOY", "DEPLOYING"];
}

/**
 * Stages a revision can be made to fail in (the emulator's fail controls): every in-progress
 * stage of any source's plan.
 */
export const FAILABLE_STAGES: readonly RevisionStatus[] = [
  ...new Set(SOURCES.flatMap((s) => revisionStages(s))),
];

/** The failure status a revision ends in when it fails during a given stage. */
export function failureStatusFor(stage: RevisionStatus): RevisionStatus {
  if (stage === "CREATING" || stage === "QUEUED") return "CREATE_FAILED";
  if (stage === "AWAITING_BUILD" || stage === "BUILDING") return "BUILD_FAILED";
  return "DEPLOY_FAILED";
}

/** The header that carries the tenant ID unless a profile names another (service-facts "Authentication"). */
export const DEFAULT_TENANT_HEADER = "X-Tenant-Id";

export const LISTENER_COMPUTE_TYPES = ["k8s"] as const;

export const IMAGE_PULL_POLICIES = ["Always", "Never", "IfNotPresent"] as const;
export const SIDECAR_RESTART_POLICIES = ["Always", "OnFailure"] as const;

/** The longest deployment name cpctl accepts (schemas.ts DeploymentName: the spec shows no rule). */
export const DEPLOYMENT_NAME_MAX = 128;

/** List-deployments query parameters (spec 4.2 with the names from service-facts.md). */
export const LIST_LIMIT_MIN = 1;
export const LIST_LIMIT_MAX = 100;
export const LIST_LIMIT_DEFAULT = 20;

/** The most deployment IDs one bulk DELETE /v2/deployments takes (service-facts, the OpenAPI document). */
export const BULK_DELETE_MAX = 100;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** The fewest characters of an ID taken for the whole ID: what a narrow table shows. */
export const MIN_ID_PREFIX = 8;

const UUID_SHAPE = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

/** The beginning of a UUID (any case), at least MIN_ID_PREFIX characters long; not a whole one. */
export function isIdPrefix(text: string): boolean {
  if (text.length < MIN_ID_PREFIX || text.length >= UUID_SHAPE.length) return false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (UUID_SHAPE[i] === "-" ? char !== "-" : !/[0-9a-fA-F]/.test(char)) return false;
  }
  return true;
}

/** Log entry levels (service-facts "Logs"), least severe first: a `level` filter means "at least". */
export const LOG_LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Log endpoints' `limit` (service-facts: default 100; the upper bound is the emulator's). */
export const LOG_LIMIT_MIN = 1;
export const LOG_LIMIT_MAX = 1000;
export const LOG_LIMIT_DEFAULT = 100;

/**
 * The largest gzipped source tarball: the emulator's cap, and cpctl's default --max-size (the
 * service documents none; a real one may refuse less, with 413).
 */
export const DEFAULT_MAX_UPLOAD_BYTES: number = 100 * 1024 * 1024;

/** The output formats of CLI.md ("Output"): -o, CPCTL_OUTPUT and a profile's `output` name one. */
export const OUTPUT_FORMATS = ["table", "json", "yaml", "ndjson", "id"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function isOutputFormat(value: string): value is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value);
}

/** The format when nothing chooses one. */
export const DEFAULT_FORMAT: OutputFormat = "table";

/** The environment variable that chooses a format: below the flags, above the config files (CLI.md). */
export const FORMAT_ENV = "CPCTL_OUTPUT";
