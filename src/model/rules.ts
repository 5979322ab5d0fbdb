// The cross-field rules of spec sections 2.2, 2.3, 2.4 and 7, each written once. The CLI runs
// them before sending and the emulator on receipt, so both refuse the same bodies with the
// same field paths and messages.
import { BUILDABLE_SOURCES, CONTAINER_SOURCES, isUuid, type Source } from "./enums.js";
import type { FieldIssue } from "./issue-path.js";
import { roundCpu, withResourceDefaults } from "./resource-spec.js";
import type { DeploymentT } from "./responses.js";
import type {
  CreateRequest,
  PatchRequest,
  ResourceSpecRequestT,
  SecretReferenceT,
  SecretT,
  SourceConfigRequestT,
  SourceRevisionConfigRequestT,
} from "./schemas.js";

type Loc = (string | number)[];

const ONLY_GITREPO: readonly Source[] = ["gitrepo"];
const ONLY_EXTERNAL_CONTAINER: readonly Source[] = ["external_container"];

/** Which sources may carry each source_config field (spec 2.2, 2.4). */
export const SOURCE_CONFIG_FIELD_SOURCES: Record<keyof SourceConfigRequestT, readonly Source[]> = {
  integration_id: ONLY_GITREPO,
  repo_url: ONLY_GITREPO,
  deployment_type: ONLY_GITREPO,
  build_on_push: ONLY_GITREPO,
  // Settable only for external_container; for gitrepo the service sets it (read-only).
  custom_url: ONLY_EXTERNAL_CONTAINER,
  resource_spec: ONLY_EXTERNAL_CONTAINER,
  listener_id: ONLY_EXTERNAL_CONTAINER,
  listener_config: ONLY_EXTERNAL_CONTAINER,
  // "Applies only to JavaScript deployments": only sources the service builds have a build.
  install_command: BUILDABLE_SOURCES,
  build_command: BUILDABLE_SOURCES,
};

/** Which sources may carry each source_revision_config field (spec 2.3). */
export const REVISION_FIELD_SOURCES: Record<keyof SourceRevisionConfigRequestT, readonly Source[]> = {
  repo_ref: ONLY_GITREPO,
  agent_config_path: BUILDABLE_SOURCES,
  image_uri: CONTAINER_SOURCES,
  source_tarball_path: ["internal_source"],
};

export const SECRET_REFERENCES_SOURCES: readonly Source[] = ONLY_EXTERNAL_CONTAINER;

/** source_config fields fixed at creation (spec 2.2): PATCH may not change them. */
export const NON_CHANGEABLE_FIELDS = [
  ["source_config", "integration_id"],
  ["source_config", "repo_url"],
  ["source_config", "deployment_type"],
  ["source_config", "listener_id"],
  ["source_config", "listener_config", "k8s_namespace"],
] as const;

/** PATCH fields whose non-null value creates a new revision (spec 2.3, 2.4, 2.5, section 3). */
export const REVISION_TRIGGERS = [
  ["source_revision_config", "repo_ref"],
  ["source_revision_config", "agent_config_path"],
  ["source_revision_config", "image_uri"],
  ["source_revision_config", "source_tarball_path"],
  ["source_config", "resource_spec"],
  ["secrets"],
] as const;

/** Required on create beyond the spec's own `agent_config_path` rule: a deployment needs something to run. */
export const REQUIRED_ON_CREATE: Partial<Record<Source, [string, string, string][]>> = {
  gitrepo: [
    ["source_config", "integration_id", "the git integration's ID, from the integration listing"],
    ["source_config", "repo_url", "the git repository URL"],
  ],
  external_container: [["source_revision_config", "image_uri", "the container image URI"]],
};

export function isTagRef(ref: string | null | undefined): boolean {
  return typeof ref === "string" && ref.startsWith("refs/tags/");
}

/** Field paths of a patch body that will make the service create a new revision. */
export function revisionTriggers(patch: PatchRequest): string[] {
  return REVISION_TRIGGERS.filter((path) => valueAt(patch, path) != null).map((path) => path.join("."));
}

export function patchTriggersRevision(patch: PatchRequest): boolean {
  return revisionTriggers(patch).length > 0;
}

/** Rules for a create body that has already passed the schema. */
export function checkCreateRules(body: CreateRequest): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const { source } = body;
  checkFieldsAllowed(issues, body.source_config, SOURCE_CONFIG_FIELD_SOURCES, source, ["source_config"]);
  checkFieldsAllowed(issues, body.source_revision_config, REVISION_FIELD_SOURCES, source, [
    "source_revision_config",
  ]);
  checkSecretReferencesAllowed(issues, body.secret_references, source);

  const isBuildable = BUILDABLE_SOURCES.includes(source);
  if (isBuildable && body.source_revision_config.agent_config_path == null) {
    issues.push(
      issue(
        ["source_revision_config", "agent_config_path"],
        `is required for ${source} deployments: the path of the agent configuration file (agent.json) in the source`,
        "missing",
      ),
    );
  }
  for (const [parent, field, what] of REQUIRED_ON_CREATE[source] ?? []) {
    const container = body[parent as "source_config" | "source_revision_config"] as Record<string, unknown>;
    if (container[field] == null) {
      issues.push(issue([parent, field], `is required for ${source} deployments: ${what}`, "missing"));
    }
  }

  checkTagAndBuildOnPush(issues, body.source_config.build_on_push, body.source_revision_config.repo_ref);
  checkListenerConfig(issues, body.source_config);
  if (body.source_config.resource_spec) checkResourceSpec(issues, body.source_config.resource_spec);
  checkSecrets(issues, body.secrets, body.secret_references);
  return issues;
}

/** Rules for a patch body (already past the schema) against the deployment it changes. */
export function checkPatchRules(patch: PatchRequest, current: DeploymentT): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const source = current.source;
  const revisionSource = patch.revision_source ?? source;
  const config = patch.source_config ?? {};
  const revisionConfig = patch.source_revision_config ?? {};

  for (const path of NON_CHANGEABLE_FIELDS) {
    const wanted = valueAt(patch, path);
    const existing = valueAt(current, path);
    if (wanted != null && !sameFixedValue(wanted, existing)) {
      issues.push(
        issue(
          path,
          `cannot be changed after creation (it is ${existing == null ? "unset" : JSON.stringify(existing)}); create a new deployment to use another value`,
          "immutable",
        ),
      );
    }
  }
  if (
    source === "gitrepo" &&
    config.custom_url != null &&
    config.custom_url !== current.source_config.custom_url
  ) {
    issues.push(
      issue(
        ["source_config", "custom_url"],
        "is set by the service for gitrepo deployments and is read-only",
        "read_only",
      ),
    );
  }

  const notImmutable = (field: string) =>
    !NON_CHANGEABLE_FIELDS.some((p) => p.length === 2 && p[1] === field);
  const changeable = Object.fromEntries(
    Object.entries(config).filter(
      ([field]) => notImmutable(field) && !(source === "gitrepo" && field === "custom_url"),
    ),
  );
  checkFieldsAllowed(issues, changeable, SOURCE_CONFIG_FIELD_SOURCES, source, ["source_config"]);
  checkFieldsAllowed(issues, revisionConfig, REVISION_FIELD_SOURCES, revisionSource, [
    "source_revision_config",
  ]);
  checkSecretReferencesAllowed(issues, patch.secret_references, source);

  // build_on_push and a tag ref may come one from the patch and one from the deployment.
  const buildOnPush = config.build_on_push ?? current.source_config.build_on_push;
  const repoRef = revisionConfig.repo_ref ?? current.source_revision_config.repo_ref;
  if (config.build_on_push != null || revisionConfig.repo_ref != null) {
    checkTagAndBuildOnPush(
      issues,
      buildOnPush,
      repoRef,
      config.build_on_push == null ? "source_revision_config" : "source_config",
    );
  }
  if (config.listener_config != null) {
    checkListenerConfig(issues, {
      listener_id: config.listener_id ?? current.source_config.listener_id,
      listener_config: config.listener_config,
    });
  }
  if (config.resource_spec) checkResourceSpec(issues, config.resource_spec);
  if (patch.secrets != null || patch.secret_references != null) {
    checkSecrets(
      issues,
      patch.secrets ?? current.secrets,
      // null, like absence, leaves the existing references in place.
      patch.secret_references ?? current.secret_references,
    );
  }
  return issues;
}

function checkFieldsAllowed(
  issues: FieldIssue[],
  values: Record<string, unknown> | null | undefined,
  allowed: Record<string, readonly Source[]>,
  source: Source,
  loc: Loc,
): void {
  for (const [field, value] of Object.entries(values ?? {})) {
    const sources = allowed[field];
    if (value == null || !sources || sources.includes(source)) continue;
    const message =
      field === "custom_url" && source === "gitrepo"
        ? "is set by the service for gitrepo deployments and is read-only; remove it"
        : field === "agent_config_path"
          ? `must be null for ${source} deployments: only built sources (${BUILDABLE_SOURCES.join(", ")}) have an agent configuration file`
          : `applies only to ${sources.join(" or ")} deployments, not ${source}; remove it`;
    issues.push(issue([...loc, field], message, "source_mismatch"));
  }
}

function checkSecretReferencesAllowed(
  issues: FieldIssue[],
  refs: SecretReferenceT[] | null | undefined,
  source: Source,
) {
  if (refs != null && refs.length > 0 && !SECRET_REFERENCES_SOURCES.includes(source)) {
    issues.push(
      issue(
        ["secret_references"],
        `applies only to external_container deployments, not ${source}; remove it`,
        "source_mismatch",
      ),
    );
  }
}

function checkTagAndBuildOnPush(
  issues: FieldIssue[],
  buildOnPush: boolean | null | undefined,
  repoRef: string | null | undefined,
  blame: "source_config" | "source_revision_config" = "source_config",
): void {
  if (buildOnPush === true && isTagRef(repoRef)) {
    const loc =
      blame === "source_config" ? ["source_config", "build_on_push"] : ["source_revision_config", "repo_ref"];
    issues.push(
      issue(
        loc,
        `build_on_push cannot be true when repo_ref is a tag (${repoRef}): a tag never moves; set build_on_push to false or use a branch name`,
        "value_error",
      ),
    );
  }
}

function checkListenerConfig(
  issues: FieldIssue[],
  config: Pick<SourceConfigRequestT, "listener_id" | "listener_config">,
): void {
  if (config.listener_config?.k8s_namespace != null && config.listener_id == null) {
    issues.push(
      issue(
        ["source_config", "listener_config", "k8s_namespace"],
        "needs a listener: give source_config.listener_id (from `cpctl listeners list`)",
        "value_error",
      ),
    );
  }
}

/**
 * Requests with limits: a limit below its request can never be scheduled. The flag says
 * whether the service rounds the pair to one decimal (spec 2.4: cpu, queue_cpu, redis_cpu and
 * their limits), so that they are compared as they will be stored.
 */
const LIMIT_PAIRS: [keyof ResourceSpecRequestT, keyof ResourceSpecRequestT, boolean][] = [
  ["cpu", "cpu_limit", true],
  ["memory_mb", "memory_limit_mb", false],
  ["queue_cpu", "queue_cpu_limit", true],
  ["queue_memory_mb", "queue_memory_limit_mb", false],
  ["redis_cpu", "redis_cpu_limit", true],
  ["redis_memory_mb", "redis_memory_limit_mb", false],
  ["db_cpu", "db_cpu_limit", false],
  ["db_memory_mb", "db_memory_limit_mb", false],
];
const SCALE_PAIRS: [keyof ResourceSpecRequestT, keyof ResourceSpecRequestT][] = [
  ["min_scale", "max_scale"],
  ["queue_min_scale", "queue_max_scale"],
  ["orchestrator_min_scale", "orchestrator_max_scale"],
];

function checkResourceSpec(issues: FieldIssue[], given: ResourceSpecRequestT): void {
  const loc: Loc = ["source_config", "resource_spec"];
  // Pairs are checked as the service will store them: a default may meet a given value
  // (cpu 4 defaults queue_cpu to 4, which a given queue_cpu_limit of 2 cannot hold).
  const spec = withResourceDefaults(given);
  // A pair where both values are defaults repeats a problem already reported on the pair
  // they came from (queue_min_scale/queue_max_scale copy min_scale/max_scale).
  const wasGiven = (field: keyof ResourceSpecRequestT) => given[field] != null;
  for (const [request, limit, rounded] of LIMIT_PAIRS) {
    if (!wasGiven(request) && !wasGiven(limit)) continue;
    const low = spec[request] as number | null | undefined;
    const high = spec[limit] as number | null | undefined;
    if (low == null || high == null) continue;
    if ((rounded ? roundCpu(high) : high) < (rounded ? roundCpu(low) : low)) {
      issues.push(
        issue(
          [...loc, limit],
          `must be at least ${request} (${low}); a limit below its request cannot be scheduled`,
          "value_error",
        ),
      );
    }
  }
  for (const [min, max] of SCALE_PAIRS) {
    if (!wasGiven(min) && !wasGiven(max)) continue;
    const low = spec[min] as number | null | undefined;
    const high = spec[max] as number | null | undefined;
    if (low != null && high != null && high < low) {
      issues.push(issue([...loc, max], `must be at least ${min} (${low})`, "value_error"));
    }
  }

  const volumeNames = new Set<string>();
  (spec.volumes ?? []).forEach((volume, index) => {
    if (volumeNames.has(volume.name)) {
      issues.push(
        issue(
          [...loc, "volumes", index, "name"],
          `duplicates volume name '${volume.name}'; names must be unique within the pod`,
          "value_error",
        ),
      );
    }
    volumeNames.add(volume.name);
  });
  const checkMounts = (mounts: { name: string }[] | null | undefined, at: Loc) => {
    (mounts ?? []).forEach((mount, index) => {
      if (!volumeNames.has(mount.name)) {
        issues.push(
          issue(
            [...at, index, "name"],
            `names no volume: '${mount.name}' must match a name under resource_spec.volumes`,
            "value_error",
          ),
        );
      }
    });
  };
  checkMounts(spec.volume_mounts, [...loc, "volume_mounts"]);

  const containerNames = new Set<string>();
  for (const group of ["init_containers", "sidecars"] as const) {
    (spec[group] ?? []).forEach((container, index) => {
      const at: Loc = [...loc, group, index];
      if (containerNames.has(container.name)) {
        issues.push(
          issue(
            [...at, "name"],
            `duplicates container name '${container.name}'; names must be unique`,
            "value_error",
          ),
        );
      }
      containerNames.add(container.name);
      checkMounts(container.volumeMounts, [...at, "volumeMounts"]);
      (container.env ?? []).forEach((envVar, envIndex) => {
        if (envVar.valueFrom != null && envVar.value != null && envVar.value !== "") {
          issues.push(
            issue(
              [...at, "env", envIndex, "valueFrom"],
              "cannot be used when value is non-empty; give one of value or valueFrom",
              "value_error",
            ),
          );
        }
      });
    });
  }
}

function checkSecrets(
  issues: FieldIssue[],
  secrets: SecretT[],
  refs: SecretReferenceT[] | null | undefined,
): void {
  const seen = new Set<string>();
  secrets.forEach((secret, index) => {
    if (seen.has(secret.name)) {
      issues.push(
        issue(
          ["secrets", index, "name"],
          `duplicates secret '${secret.name}'; each name may appear once`,
          "value_error",
        ),
      );
    }
    seen.add(secret.name);
  });
  const refNames = new Set<string>();
  (refs ?? []).forEach((ref, index) => {
    if (refNames.has(ref.name)) {
      issues.push(
        issue(
          ["secret_references", index, "name"],
          `duplicates secret reference '${ref.name}'; each name may appear once`,
          "value_error",
        ),
      );
    } else if (seen.has(ref.name)) {
      issues.push(
        issue(
          ["secret_references", index, "name"],
          `'${ref.name}' is already set by secrets; one environment variable cannot come from both`,
          "value_error",
        ),
      );
    }
    refNames.add(ref.name);
  });
}

/** IDs compare without regard to case; other fixed values exactly. */
function sameFixedValue(a: unknown, b: unknown): boolean {
  if (typeof a === "string" && typeof b === "string" && isUuid(a) && isUuid(b))
    return a.toLowerCase() === b.toLowerCase();
  return a === b;
}

function issue(loc: readonly (string | number)[], msg: string, type: string): FieldIssue {
  return { loc: ["body", ...loc], msg, type };
}

function valueAt(object: unknown, path: readonly string[]): unknown {
  let value: unknown = object;
  for (const key of path) {
    if (value == null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
