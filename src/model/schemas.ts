// zod schemas of every resource in spec/control-plane-api.md and spec/service-facts.md.
// Shapes and per-field bounds live here; rules that relate several fields (which source
// allows which field, what PATCH may change, ...) live in rules.ts, each written once.
//
// zod/mini rather than classic zod: the same engine, a tenth of the start-up cost, which
// matters because `deploy create --dry-run` validates on every run.
import * as z from "zod/mini";
import {
  DEPLOYMENT_STATUSES,
  DEPLOYMENT_TYPES,
  IMAGE_PULL_POLICIES,
  LISTENER_COMPUTE_TYPES,
  REVISION_SOURCES,
  REVISION_STATUSES,
  SIDECAR_RESTART_POLICIES,
  SOURCES,
} from "./enums.js";

/** Every request field is nullable, and absent means the same as null. */
const nullish = <T extends z.core.SomeType>(schema: T) => z.optional(z.nullable(schema));

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const C_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

const dnsLabel = () =>
  z.string().check(
    z.regex(DNS_LABEL, {
      error:
        "must be a DNS label: lowercase letters, digits and '-', at most 63, starting and ending alphanumeric",
    }),
  );
const envVarName = () =>
  z.string().check(
    z.regex(C_IDENTIFIER, {
      error: "must be an environment variable name: letters, digits and '_', not starting with a digit",
    }),
  );
const nonEmpty = () => z.string().check(z.minLength(1, { error: "must not be empty" }));
const count = () => z.int().check(z.gte(0, { error: "must be 0 or more" }));
const megabytes = () => z.int().check(z.gte(1, { error: "must be at least 1 (MB)" }));
const freeForm = () => z.record(z.string(), z.unknown());
const stringMap = () => z.record(z.string(), z.string());
const uuid = () => z.guid({ error: "must be a UUID (8-4-4-4-12 hexadecimal digits)" });

/** CPU requests: 0.1 to 8 cores (spec 2.4 and 8); rounding to one decimal is in resource-spec.ts. */
const cpuRequest = () =>
  z
    .number()
    .check(
      z.gte(0.1, { error: "must be between 0.1 and 8 cores" }),
      z.lte(8, { error: "must be between 0.1 and 8 cores" }),
    );
/** CPU limits: 0.1 to 16 cores. */
const cpuLimit = () =>
  z
    .number()
    .check(
      z.gte(0.1, { error: "must be between 0.1 and 16 cores" }),
      z.lte(16, { error: "must be between 0.1 and 16 cores" }),
    );
/** CPU fields without spec bounds (database, and the "do not use" ones). */
const cpuUnbounded = () => z.number().check(z.gt(0, { error: "must be more than 0 cores" }));

// --- Kubernetes-shaped sub-objects (spec 2.4) ---

export const LocalObjectReference = z.strictObject({ name: nonEmpty() });

export const Volume = z.strictObject({
  name: dnsLabel(),
  configMap: z.optional(freeForm()),
  secret: z.optional(freeForm()),
  emptyDir: z.optional(freeForm()),
  persistentVolumeClaim: z.optional(freeForm()),
  nfs: z.optional(freeForm()),
  projected: z.optional(freeForm()),
  downwardAPI: z.optional(freeForm()),
  csi: z.optional(freeForm()),
});

export const VolumeMount = z.strictObject({
  name: nonEmpty(),
  mountPath: nonEmpty(),
  subPath: z.optional(z.string()),
  mountPropagation: z.optional(z.string()),
  readOnly: z.optional(z.boolean()),
  subPathExpr: z.optional(z.string()),
});

export const EnvVar = z.strictObject({
  name: envVarName(),
  value: z.optional(z.nullable(z.string())),
  valueFrom: z.optional(z.nullable(freeForm())),
});

export const ResourceRequirements = z.strictObject({
  limits: z.optional(z.nullable(stringMap())),
  requests: z.optional(z.nullable(stringMap())),
});

export const Container = z.strictObject({
  name: dnsLabel(),
  image: nonEmpty(),
  imagePullPolicy: z.optional(z.enum(IMAGE_PULL_POLICIES)),
  command: z.optional(z.array(z.string())),
  args: z.optional(z.array(z.string())),
  workingDir: z.optional(z.string()),
  env: z.optional(z.array(EnvVar)),
  envFrom: z.optional(z.array(freeForm())),
  resources: z.optional(ResourceRequirements),
  volumeMounts: z.optional(z.array(VolumeMount)),
  securityContext: z.optional(freeForm()),
  restartPolicy: z.optional(z.enum(SIDECAR_RESTART_POLICIES)),
});

// --- ResourceSpec (spec 2.4) ---

const resourceSpecShape = {
  min_scale: nullish(count()),
  max_scale: nullish(count()),
  cpu: nullish(cpuRequest()),
  cpu_limit: nullish(cpuLimit()),
  memory_mb: nullish(megabytes()),
  memory_limit_mb: nullish(megabytes()),
  queue_min_scale: nullish(count()),
  queue_max_scale: nullish(count()),
  queue_cpu: nullish(cpuRequest()),
  queue_cpu_limit: nullish(cpuLimit()),
  queue_memory_mb: nullish(megabytes()),
  queue_memory_limit_mb: nullish(megabytes()),
  orchestrator_cpu: nullish(cpuUnbounded()),
  orchestrator_cpu_limit: nullish(cpuUnbounded()),
  orchestrator_memory_mb: nullish(megabytes()),
  orchestrator_memory_limit_mb: nullish(megabytes()),
  orchestrator_min_scale: nullish(count()),
  orchestrator_max_scale: nullish(count()),
  executor_cpu: nullish(cpuUnbounded()),
  executor_cpu_limit: nullish(cpuUnbounded()),
  executor_memory_mb: nullish(megabytes()),
  executor_memory_limit_mb: nullish(megabytes()),
  redis_cpu: nullish(cpuRequest()),
  redis_cpu_limit: nullish(cpuLimit()),
  redis_memory_mb: nullish(megabytes()),
  redis_memory_limit_mb: nullish(megabytes()),
  labels: nullish(stringMap()),
  annotations: nullish(stringMap()),
  service_account_name: nullish(nonEmpty()),
  image_pull_secrets: nullish(z.array(LocalObjectReference)),
  volumes: nullish(z.array(Volume)),
  volume_mounts: nullish(z.array(VolumeMount)),
  init_containers: nullish(z.array(Container)),
  sidecars: nullish(z.array(Container)),
  db_cpu: nullish(cpuUnbounded()),
  db_cpu_limit: nullish(cpuUnbounded()),
  db_memory_mb: nullish(megabytes()),
  db_memory_limit_mb: nullish(megabytes()),
  db_storage_gi: nullish(z.int().check(z.gte(1, { error: "must be at least 1 (GiB)" }))),
  db_max_connections: nullish(z.int().check(z.gte(1, { error: "must be at least 1" }))),
};

/** Request form: unknown fields are refused so that a typo in a file is caught. */
export const ResourceSpecRequest = z.strictObject(resourceSpecShape);
/** Output form: same fields; the service fills the limit defaults. Unknown fields pass through. */
export const ResourceSpec = z.looseObject(resourceSpecShape);

/** Field names of ResourceSpec, for completions, `--set` typing and messages. */
export const RESOURCE_SPEC_FIELDS = Object.keys(resourceSpecShape) as (keyof typeof resourceSpecShape)[];

// --- Source configuration (spec 2.2, 2.3) ---

export const ListenerConfig = z.strictObject({
  k8s_namespace: nullish(dnsLabel()),
});

const sourceConfigShape = {
  integration_id: nullish(uuid()),
  repo_url: nullish(nonEmpty()),
  deployment_type: nullish(z.enum(DEPLOYMENT_TYPES)),
  build_on_push: nullish(z.boolean()),
  custom_url: nullish(nonEmpty()),
  resource_spec: nullish(ResourceSpecRequest),
  listener_id: nullish(uuid()),
  listener_config: nullish(ListenerConfig),
  install_command: nullish(nonEmpty()),
  build_command: nullish(nonEmpty()),
};

export const SourceConfigRequest = z.strictObject(sourceConfigShape);
export const SourceConfig = z.looseObject({ ...sourceConfigShape, resource_spec: nullish(ResourceSpec) });

export const SourceRevisionConfigRequest = z.strictObject({
  repo_ref: nullish(nonEmpty()),
  agent_config_path: nullish(nonEmpty()),
  image_uri: nullish(nonEmpty()),
  source_tarball_path: nullish(nonEmpty()),
});

export const SourceRevisionConfig = z.looseObject({
  repo_ref: nullish(z.string()),
  agent_config_path: nullish(z.string()),
  image_uri: nullish(z.string()),
  source_tarball_path: nullish(z.string()),
  repo_commit_sha: nullish(z.string()),
});

// --- Secrets (spec 2.5, 2.6) ---

export const Secret = z.strictObject({ name: envVarName(), value: z.string() });

export const SecretReference = z.strictObject({
  name: envVarName(),
  secret_name: nonEmpty(),
  secret_key: nonEmpty(),
});

// --- Requests (spec 4.1, 4.3) ---

/**
 * Deployment names: the spec does not show the rules. cpctl asks for 1 to 128 printable
 * characters without surrounding spaces, and not a UUID, because `<ID|NAME>` arguments treat a
 * UUID as an ID and such a deployment could never be addressed by name.
 */
export const DeploymentName = z.string().check(
  z.minLength(1, { error: "must not be empty" }),
  z.maxLength(128, { error: "must be at most 128 characters" }),
  z.regex(/^\S(.*\S)?$/, { error: "must not start or end with white space" }),
  z.regex(/^[^\p{Cc}]*$/u, { error: "must not contain control characters" }),
  z.refine((value) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value), {
    error: "must not be a UUID (a UUID argument is always read as a deployment ID)",
  }),
);

export const DeploymentCreateRequest = z.strictObject({
  name: DeploymentName,
  source: z.enum(SOURCES),
  source_config: SourceConfigRequest,
  source_revision_config: SourceRevisionConfigRequest,
  secrets: z.array(Secret),
  secret_references: nullish(z.array(SecretReference)),
});

export const DeploymentPatchRequest = z.strictObject({
  revision_source: nullish(z.enum(REVISION_SOURCES)),
  source_config: nullish(SourceConfigRequest),
  source_revision_config: nullish(SourceRevisionConfigRequest),
  secrets: nullish(z.array(Secret)),
  secret_references: nullish(z.array(SecretReference)),
});

// --- Responses ---

export const Deployment = z.looseObject({
  name: z.string(),
  source: z.enum(SOURCES),
  source_config: SourceConfig,
  source_revision_config: SourceRevisionConfig,
  secrets: z.array(z.looseObject({ name: z.string(), value: z.string() })),
  secret_references: nullish(
    z.array(z.looseObject({ name: z.string(), secret_name: z.string(), secret_key: z.string() })),
  ),
  id: z.string(),
  tenant_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  status: z.enum(DEPLOYMENT_STATUSES),
  latest_revision_id: z.nullable(z.string()),
  active_revision_id: z.nullable(z.string()),
  image_version: nullish(z.string()),
});

export const DeploymentList = z.looseObject({ resources: z.array(Deployment), offset: z.int() });

export const Revision = z.looseObject({
  id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  status: z.enum(REVISION_STATUSES),
  source: z.enum(SOURCES),
  source_revision_config: SourceRevisionConfig,
});

export const RevisionList = z.looseObject({ resources: z.array(Revision), offset: z.int() });

export const GitIntegration = z.looseObject({ id: z.string(), installation_id: z.int(), name: z.string() });
export const GitIntegrationList = z.array(GitIntegration);

export const Listener = z.looseObject({
  id: z.string(),
  compute_type: z.enum(LISTENER_COMPUTE_TYPES),
  compute_id: z.string(),
  compute_config: z.looseObject({ k8s_namespaces: z.array(z.string()) }),
  created_at: z.string(),
  updated_at: z.string(),
});
export const ListenerList = z.looseObject({ resources: z.array(Listener), offset: z.int() });

export const UploadUrlResponse = z.looseObject({ upload_url: z.string(), object_path: z.string() });

// --- Error bodies (spec 7) ---

export const ErrorDetailBody = z.looseObject({ detail: z.string() });
export const ValidationErrorBody = z.looseObject({
  detail: z.array(
    z.looseObject({ loc: z.array(z.union([z.string(), z.int()])), msg: z.string(), type: z.string() }),
  ),
});

// --- Inferred types ---

export type ResourceSpecRequestT = z.infer<typeof ResourceSpecRequest>;
export type ResourceSpecT = z.infer<typeof ResourceSpec>;
export type SourceConfigRequestT = z.infer<typeof SourceConfigRequest>;
export type SourceRevisionConfigRequestT = z.infer<typeof SourceRevisionConfigRequest>;
export type SecretT = z.infer<typeof Secret>;
export type SecretReferenceT = z.infer<typeof SecretReference>;
export type CreateRequest = z.infer<typeof DeploymentCreateRequest>;
export type PatchRequest = z.infer<typeof DeploymentPatchRequest>;
export type DeploymentT = z.infer<typeof Deployment>;
export type RevisionT = z.infer<typeof Revision>;
export type GitIntegrationT = z.infer<typeof GitIntegration>;
export type ListenerT = z.infer<typeof Listener>;
export type UploadUrlResponseT = z.infer<typeof UploadUrlResponse>;
