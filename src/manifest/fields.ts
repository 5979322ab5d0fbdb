// The named field flags of CLI.md and the request-body path each one sets. One table serves
// the option definitions of create and patch, the body builder and the completions.
import { DEPLOYMENT_TYPES, REVISION_SOURCES, SOURCES } from "../model/enums.js";

type FlagKind = "string" | "uuid" | "boolean" | "integer" | "number" | "enum";

interface FieldFlag {
  /** Long flag name without dashes, e.g. "repo-url". */
  flag: string;
  /** Where the value goes in the request body. */
  path: readonly string[];
  kind: FlagKind;
  values?: readonly string[];
  description: string;
  /** Which commands offer it. */
  on: readonly ("create" | "patch")[];
}

const BOTH = ["create", "patch"] as const;
const SC = "source_config";
const SRC = "source_revision_config";
const RS = [SC, "resource_spec"] as const;

const TABLE = [
  {
    flag: "name",
    path: ["name"],
    kind: "string",
    description: "deployment name (fixed at creation)",
    on: ["create"],
  },
  {
    flag: "source",
    path: ["source"],
    kind: "enum",
    values: SOURCES,
    description: "where the deployment is built from",
    on: ["create"],
  },
  {
    flag: "revision-source",
    path: ["revision_source"],
    kind: "enum",
    values: REVISION_SOURCES,
    description: "source of this revision only",
    on: ["patch"],
  },
  {
    flag: "integration-id",
    path: [SC, "integration_id"],
    kind: "uuid",
    description: "git integration (gitrepo; from `cpctl integrations list`)",
    on: BOTH,
  },
  {
    flag: "repo-url",
    path: [SC, "repo_url"],
    kind: "string",
    description: "git repository URL (gitrepo)",
    on: BOTH,
  },
  {
    flag: "deployment-type",
    path: [SC, "deployment_type"],
    kind: "enum",
    values: DEPLOYMENT_TYPES,
    description: "gitrepo deployment type",
    on: BOTH,
  },
  {
    flag: "build-on-push",
    path: [SC, "build_on_push"],
    kind: "boolean",
    description: "build a new revision on every push to the branch (gitrepo)",
    on: BOTH,
  },
  {
    flag: "custom-url",
    path: [SC, "custom_url"],
    kind: "string",
    description: "custom URL (external_container)",
    on: BOTH,
  },
  {
    flag: "listener-id",
    path: [SC, "listener_id"],
    kind: "uuid",
    description: "listener (external_container; from `cpctl listeners list`)",
    on: BOTH,
  },
  {
    flag: "k8s-namespace",
    path: [SC, "listener_config", "k8s_namespace"],
    kind: "string",
    description: "namespace on a k8s listener",
    on: BOTH,
  },
  {
    flag: "install-command",
    path: [SC, "install_command"],
    kind: "string",
    description: "custom install command (JavaScript, built sources)",
    on: BOTH,
  },
  {
    flag: "build-command",
    path: [SC, "build_command"],
    kind: "string",
    description: "custom build command (JavaScript, built sources)",
    on: BOTH,
  },
  {
    flag: "repo-ref",
    path: [SRC, "repo_ref"],
    kind: "string",
    description: "branch name, or refs/tags/TAG (gitrepo)",
    on: BOTH,
  },
  {
    flag: "agent-config-path",
    path: [SRC, "agent_config_path"],
    kind: "string",
    description: "path of agent.json in the source (gitrepo, internal_source)",
    on: BOTH,
  },
  {
    flag: "image-uri",
    path: [SRC, "image_uri"],
    kind: "string",
    description: "container image URI (container sources)",
    on: BOTH,
  },
  {
    flag: "source-tarball-path",
    path: [SRC, "source_tarball_path"],
    kind: "string",
    description: "object path from `cpctl deploy upload` (internal_source)",
    on: BOTH,
  },
  {
    flag: "min-scale",
    path: [...RS, "min_scale"],
    kind: "integer",
    description: "minimum replicas",
    on: BOTH,
  },
  {
    flag: "max-scale",
    path: [...RS, "max_scale"],
    kind: "integer",
    description: "maximum replicas",
    on: BOTH,
  },
  {
    flag: "cpu",
    path: [...RS, "cpu"],
    kind: "number",
    description: "CPU cores per replica, 0.1 to 8",
    on: BOTH,
  },
  {
    flag: "cpu-limit",
    path: [...RS, "cpu_limit"],
    kind: "number",
    description: "CPU limit, 0.1 to 16 (default 2 x cpu)",
    on: BOTH,
  },
  {
    flag: "memory-mb",
    path: [...RS, "memory_mb"],
    kind: "integer",
    description: "memory per replica (MB)",
    on: BOTH,
  },
  {
    flag: "memory-limit-mb",
    path: [...RS, "memory_limit_mb"],
    kind: "integer",
    description: "memory limit (MB; default 2 x memory-mb)",
    on: BOTH,
  },
] as const satisfies readonly FieldFlag[];

export const FIELD_FLAGS: readonly FieldFlag[] = TABLE;

type FieldFlagRow = (typeof TABLE)[number];

/** commander's attribute name for a flag, as a type: "repo-url" -> "repoUrl". */
type AttributeName<S extends string> = S extends `${infer Word}-${infer Rest}`
  ? AttributeName<`${Word}${Capitalize<Rest>}`>
  : S;

type ValueOf<F extends FieldFlagRow> = F extends { kind: "boolean" }
  ? boolean
  : F extends { kind: "integer" | "number" }
    ? number
    : F extends { values: readonly (infer Value)[] }
      ? Value
      : string;

/**
 * What the field flags of `kind` parse to (body-options.ts adds them from this table): one
 * statement of their names and types, read by the body builder (build.ts) by name.
 */
export type FieldFlagValues<Kind extends "create" | "patch"> = {
  [F in FieldFlagRow as Kind extends F["on"][number] ? AttributeName<F["flag"]> : never]?: ValueOf<F>;
};

/** commander's attribute name for a flag: "repo-url" -> "repoUrl". */
export function attributeName(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
