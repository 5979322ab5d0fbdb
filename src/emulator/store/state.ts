// The emulator's whole world, as one JSON-serialisable value. It is what the state file
// holds, so it stores facts, never derived values: a revision keeps when it was created and
// its stage plan, not a status, and its status is computed from the clock on every read.
// That is what lets revision timing survive a restart.
//
// With --state, FILE holds it, written whole at every change (persistence.ts).
import type { FailRule } from "../../model/emulator-controls.js";
import type { RevisionStatus, Source } from "../../model/enums.js";
import type { SecretReferenceT, SecretT } from "../../model/schemas.js";
import { newSigningKey } from "./ids.js";

export const STATE_FORMAT = "cpctl-emulator-state";
export const STATE_VERSION = 1;

/** The five fields of SourceRevisionConfig, always all present (null when unset). */
// A type alias, not an interface: it must fit the model's loose (index-signature) response types.
export type RevisionConfig = {
  repo_ref: string | null;
  agent_config_path: string | null;
  image_uri: string | null;
  source_tarball_path: string | null;
  repo_commit_sha: string | null;
};

export interface StoredRevision {
  id: string;
  /** Creation order across the whole emulator: the stable tiebreak for "newest first". */
  seq: number;
  source: Source;
  source_revision_config: RevisionConfig;
  created_at: number;
  /** Stage length when the revision was created, so a restart with another --stage-ms keeps its pace. */
  stage_ms: number;
  /** In-progress statuses it walks through, in order (from the model's revisionStages). */
  stages: RevisionStatus[];
  /** It fails at the end of this stage (a fail-next rule or a fail control). */
  fail_at: RevisionStatus | null;
  /** The error that fails it: the last line of its log. Absent or null: the stage's default (logs/log-lines.ts). */
  fail_message?: string | null;
  /** Set when a newer revision superseded it: its status froze at that moment. */
  ended: { status: RevisionStatus; at: number } | null;
  /** SHA-256 of the tarball its source_tarball_path named when it was created (absent: none). */
  source_tarball_sha256?: string;
  /** The `tracked_packages` of the create or PATCH that started it (absent: none given). */
  tracked_packages?: string[];
  /**
   * The deployment's install and build commands when it was created (built sources only), so
   * that its build log stays what it was after a patch changes them.
   */
  build_commands?: BuildCommands;
  /** Its agent server answers `/ok` with 500 (the health control; agents/). Absent: healthy. */
  unhealthy?: boolean;
}

export interface BuildCommands {
  install_command: string | null;
  build_command: string | null;
}

export interface StoredDeployment {
  id: string;
  tenant_id: string;
  seq: number;
  name: string;
  source: Source;
  /** All ten SourceConfig fields (null when unset); resource_spec stored with defaults applied. */
  source_config: Record<string, unknown>;
  /** The latest revision's configuration: patch values merged over the previous ones. */
  source_revision_config: RevisionConfig;
  secrets: SecretT[];
  secret_references: SecretReferenceT[] | null;
  created_at: number;
  updated_at: number;
  /** Oldest first. */
  revisions: StoredRevision[];
  /** The next revision to start answers `/ok` with 500 (the health control). Absent: no. */
  next_unhealthy?: boolean;
}

/** An object path handed out by upload-url; usable as source_tarball_path once uploaded. */
export interface StoredUpload {
  id: string;
  object_path: string;
  tenant_id: string;
  deployment_id: string;
  issued_at: number;
  /** The URL is refused from then on. */
  expires_at: number;
  uploaded_at: number | null;
  size: number | null;
  sha256: string | null;
}

export interface TracingProject {
  id: string;
  tenant_id: string;
  name: string;
  deployment_id: string;
  created_at: number;
}

/**
 * A listener the tenant created, or a seeded one (seed.ts) it changed or deleted: seeded
 * listeners are derived, not stored, until a tenant changes one.
 */
export interface StoredListener {
  id: string;
  tenant_id: string;
  /** Creation order (the listing's, after the seeded ones). */
  seq: number;
  compute_type: "k8s";
  compute_id: string;
  k8s_namespaces: string[];
  version: string | null;
  created_at: number;
  updated_at: number;
  /** A seeded listener the tenant deleted: no longer listed. */
  removed?: true;
}

export interface EmulatorState {
  format: typeof STATE_FORMAT;
  version: typeof STATE_VERSION;
  /** Key of the HMAC that signs upload URLs; kept so URLs issued before a restart still work. */
  signing_key: string;
  /** Last sequence number handed out. */
  seq: number;
  /** Offset of the default clock (real time + offset), so skipped time stays skipped. */
  clock_offset_ms: number;
  deployments: StoredDeployment[];
  uploads: StoredUpload[];
  tracing_projects: TracingProject[];
  fail_next: FailRule[];
  /** Absent in files written before listeners could be changed: none then. */
  listeners?: StoredListener[];
}

export function emptyState(): EmulatorState {
  return {
    format: STATE_FORMAT,
    version: STATE_VERSION,
    signing_key: newSigningKey(),
    seq: 0,
    clock_offset_ms: 0,
    deployments: [],
    uploads: [],
    tracing_projects: [],
    fail_next: [],
    listeners: [],
  };
}

/**
 * Checks that a parsed file is a state this version can use. A shape check, not a full
 * schema: the file is only ever written by the emulator; this catches a wrong file or a
 * hand edit gone wrong, and names what is wrong, instead of failing later on a request.
 */
export function checkStateShape(value: unknown): string | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "it is not a JSON object";
  const state = value as Record<string, unknown>;
  if (state.format !== STATE_FORMAT) return `its "format" is not "${STATE_FORMAT}"`;
  if (state.version !== STATE_VERSION)
    return `its "version" is ${JSON.stringify(state.version)}, this emulator reads ${STATE_VERSION}`;
  if (typeof state.signing_key !== "string" || state.signing_key === "") return `"signing_key" is missing`;
  for (const field of ["seq", "clock_offset_ms"]) {
    if (typeof state[field] !== "number" || !Number.isFinite(state[field]))
      return `"${field}" is not a number`;
  }
  for (const field of ["deployments", "uploads", "tracing_projects", "fail_next"]) {
    if (!Array.isArray(state[field])) return `"${field}" is not an array`;
  }
  if (state.listeners !== undefined && !Array.isArray(state.listeners)) return `"listeners" is not an array`;
  for (const [index, item] of (state.deployments as unknown[]).entries()) {
    const d = item as Partial<StoredDeployment> | null;
    if (
      !d ||
      typeof d.id !== "string" ||
      typeof d.tenant_id !== "string" ||
      typeof d.name !== "string" ||
      typeof d.created_at !== "number" ||
      !Array.isArray(d.revisions) ||
      d.revisions.some((r) => !r || typeof r.created_at !== "number" || !Array.isArray(r.stages))
    ) {
      return `deployments[${index}] is not a stored deployment`;
    }
  }
  return null;
}
