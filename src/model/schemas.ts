// zod schemas of the request bodies in spec/control-plane-api.md and spec/service-facts.md,
// and of everything in them. Shapes and per-field bounds live here; rules that relate several
// fields (which source allows which field, what PATCH may change, ...) live in rules.ts, each
// written once. The response bodies are in responses.ts, which only the tests load: cpctl
// validates what it sends, not what it receives.
//
// zod/mini rather than classic zod: the same engine, a tenth of the start-up cost, which
// matters because `deploy create --dry-run` validates on every run.
import * as z from "zod/mini";
import {
  DEPLOYMENT_NAME_MAX,
  DEPLOYMENT_TYPES,
  IMAGE_PULL_POLICIES,
  REVISION_SOURCES,
  SIDECAR_RESTART_POLICIES,
  SOURCES,
} from "./enums.js";
import {
  boolean,
  count,
  cpuLimit,
  cpuRequest,
  cpuUnbounded,
  dnsLabel,
  envVarName,
  freeForm,
  int,
  megabytes,
  nonEmpty,
  nullish,
  optional,
  string,
  stringMap,
  uuid,
} from "./leaves.js";

// --- Kubernetes-shaped sub-objects (spec 2.4) ---

const LocalObjectReference = z.strictObject({ name: nonEmpty });

const Volume = z.strictObject({
  name: dnsLabel,
  configMap: optional(freeForm),
  secret: optional(freeForm),
  emptyDir: optional(freeForm),
  persistentVolumeClaim: optional(freeForm),
  nfs: optional(freeForm),
  projected: optional(freeForm),
  downwardAPI: optional(freeForm),
  csi: optional(freeForm),
});

const VolumeMount = z.strictObject({
  name: nonEmpty,
  mountPath: nonEmpty,
  subPath: optional(string),
  mountPropagation: optional(string),
  readOnly: optional(boolean),
  subPathExpr: optional(string),
});

const EnvVar = z.strictObject({
  name: envVarName,
  value: nullish(string),
  valueFrom: nullish(freeForm),
});

const ResourceRequirements = z.strictObject({
  limits: nullish(stringMap),
  requests: nullish(stringMap),
});

const Container = z.strictObject({
  name: dnsLabel,
  image: nonEmpty,
  imagePullPolicy: optional(z.enum(IMAGE_PULL_POLICIES)),
  command: optional(z.array(string)),
  args: optional(z.array(string)),
  workingDir: optional(string),
  env: optional(z.array(EnvVar)),
  envFrom: optional(z.array(freeForm)),
  resources: optional(ResourceRequirements),
  volumeMounts: optional(z.array(VolumeMount)),
  securityContext: optional(freeForm),
  restartPolicy: optional(z.enum(SIDECAR_RESTART_POLICIES)),
});

// --- ResourceSpec (spec 2.4) ---

/** The fields of ResourceSpec; also its output form in responses.ts. */
export const resourceSpecShape = {
  min_scale: nullish(count),
  max_scale: nullish(count),
  cpu: nullish(cpuRequest),
  cpu_limit: nullish(cpuLimit),
  memory_mb: nullish(megabytes),
  memory_limit_mb: nullish(megabytes),
  queue_min_scale: nullish(count),
  queue_max_scale: nullish(count),
  queue_cpu: nullish(cpuRequest),
  queue_cpu_limit: nullish(cpuLimit),
  queue_memory_mb: nullish(megabytes),
  queue_memory_limit_mb: nullish(megabytes),
  orchestrator_cpu: nullish(cpuUnbounded),
  orchestrator_cpu_limit: nullish(cpuUnbounded),
  orchestrator_memory_mb: nullish(megabytes),
  orchestrator_memory_limit_mb: nullish(megabytes),
  orchestrator_min_scale: nullish(count),
  orchestrator_max_scale: nullish(count),
  executor_cpu: nullish(cpuUnbounded),
  executor_cpu_limit: nullish(cpuUnbounded),
  executor_memory_mb: nullish(megabytes),
  executor_memory_limit_mb: nullish(megabytes),
  redis_cpu: nullish(cpuRequest),
  redis_cpu_limit: nullish(cpuLimit),
  redis_memory_mb: nullish(megabytes),
  redis_memory_limit_mb: nullish(megabytes),
  labels: nullish(stringMap),
  annotations: nullish(stringMap),
  service_account_name: nullish(nonEmpty),
  image_pull_secrets: nullish(z.array(LocalObjectReference)),
  volumes: nullish(z.array(Volume)),
  volume_mounts: nullish(z.array(VolumeMount)),
  init_containers: nullish(z.array(Container)),
  sidecars: nullish(z.array(Container)),
  db_cpu: nullish(cpuUnbounded),
  db_cpu_limit: nullish(cpuUnbounded),
  db_memory_mb: nullish(megabytes),
  db_memory_limit_mb: nullish(megabytes),
  db_storage_gi: nullish(int.check(z.gte(1, { error: "must be at least 1 (GiB)" }))),
  db_max_connections: nullish(int.check(z.gte(1, { error: "must be at least 1" }))),
};

/** Request form: unknown fields are refused so that a typo in a file is caught. */
export const ResourceSpecRequest = z.strictObject(resourceSpecShape);

/** Field names of ResourceSpec, for completions, `--set` typing and messages. */
export const RESOURCE_SPEC_FIELDS = Object.keys(resourceSpecShape) as (keyof typeof resourceSpecShape)[];

// --- Source configuration (spec 2.2, 2.3) ---

const ListenerConfig = z.strictObject({
  k8s_namespace: nullish(dnsLabel),
});

/** The fields of SourceConfig; also its output form in responses.ts. */
export const sourceConfigShape = {
  integration_id: nullish(uuid),
  repo_url: nullish(nonEmpty),
  deployment_type: nullish(z.enum(DEPLOYMENT_TYPES)),
  build_on_push: nullish(boolean),
  custom_url: nullish(nonEmpty),
  resource_spec: nullish(ResourceSpecRequest),
  listener_id: nullish(uuid),
  listener_config: nullish(ListenerConfig),
  install_command: nullish(nonEmpty),
  build_command: nullish(nonEmpty),
};

export const SourceConfigRequest = z.strictObject(sourceConfigShape);

export const SourceRevisionConfigRequest = z.strictObject({
  repo_ref: nullish(nonEmpty),
  agent_config_path: nullish(nonEmpty),
  image_uri: nullish(nonEmpty),
  source_tarball_path: nullish(nonEmpty),
});

// --- Secrets (spec 2.5, 2.6) ---

export const Secret = z.strictObject({ name: envVarName, value: string });

export const SecretReference = z.strictObject({
  name: envVarName,
  secret_name: nonEmpty,
  secret_key: nonEmpty,
});

// --- Requests (spec 4.1, 4.3) ---

/**
 * Deployment names: the spec does not show the rules. cpctl asks for 1 to 128 printable
 * characters without surrounding spaces, and not a UUID, because `<ID|NAME>` arguments treat a
 * UUID as an ID and such a deployment could never be addressed by name.
 */
export const DeploymentName = string.check(
  z.minLength(1, { error: "must not be empty" }),
  z.maxLength(DEPLOYMENT_NAME_MAX, { error: `must be at most ${DEPLOYMENT_NAME_MAX} characters` }),
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

// --- Inferred types ---

export type ResourceSpecRequestT = z.infer<typeof ResourceSpecRequest>;
export type SourceConfigRequestT = z.infer<typeof SourceConfigRequest>;
export type SourceRevisionConfigRequestT = z.infer<typeof SourceRevisionConfigRequest>;
export type SecretT = z.infer<typeof Secret>;
export type SecretReferenceT = z.infer<typeof SecretReference>;
export type CreateRequest = z.infer<typeof DeploymentCreateRequest>;
export type PatchRequest = z.infer<typeof DeploymentPatchRequest>;
