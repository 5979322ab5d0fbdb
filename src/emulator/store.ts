// The emulator's state and every change to it. No HTTP here: handlers validate, then call
// one method; each method changes the state and saves it (when there is a state file)
// before returning, so the answer a handler then sends is always backed by what was saved.
import { type RevisionStatus, revisionStages, type Source } from "../model/enums.js";
import { withResourceDefaults } from "../model/resource-spec.js";
import { REVISION_FIELD_SOURCES, SOURCE_CONFIG_FIELD_SOURCES } from "../model/rules.js";
import type { CreateRequest, PatchRequest, ResourceSpecRequestT } from "../model/schemas.js";
import { UPLOAD_URL_LIFETIME_MS } from "./defaults.js";
import { newCommitSha, newId } from "./ids.js";
import { supersede } from "./lifecycle.js";
import {
  type EmulatorState,
  emptyState,
  type FailRule,
  type RevisionConfig,
  type StoredDeployment,
  type StoredRevision,
  type StoredUpload,
  type TracingProject,
} from "./state.js";
import { touch } from "./versions.js";

/** Where uploaded tarballs go: memory, or files beside the state file. */
export interface TarballStorage {
  write(id: string, data: Buffer): void;
  read(id: string): Buffer | undefined;
  remove(id: string): void;
}

export class MemoryTarballs implements TarballStorage {
  private readonly files = new Map<string, Buffer>();
  write(id: string, data: Buffer): void {
    this.files.set(id, data);
  }
  read(id: string): Buffer | undefined {
    return this.files.get(id);
  }
  remove(id: string): void {
    this.files.delete(id);
  }
}

export interface StoreOptions {
  /** Stage length given to new revisions. */
  stageMs: number;
  /** Saves the whole state; called after every change, before the change is answered. */
  save: (state: EmulatorState) => void;
  tarballs: TarballStorage;
}

const SOURCE_CONFIG_FIELDS = Object.keys(SOURCE_CONFIG_FIELD_SOURCES);
const REVISION_CONFIG_FIELDS = Object.keys(REVISION_FIELD_SOURCES);

export class Store {
  private state: EmulatorState;
  private readonly byId = new Map<string, StoredDeployment>();
  /** Per tenant, oldest first by (created_at, seq): lists read it backwards for "newest first". */
  private readonly byTenant = new Map<string, StoredDeployment[]>();
  private readonly uploadsByPath = new Map<string, StoredUpload>();
  private readonly uploadsById = new Map<string, StoredUpload>();
  /** Bytes of all uploaded tarballs, for the in-memory quota. */
  private uploadedBytes = 0;

  constructor(
    state: EmulatorState | null,
    private readonly options: StoreOptions,
  ) {
    this.state = state ?? emptyState();
    this.reindex();
  }

  get signingKey(): string {
    return this.state.signing_key;
  }

  get clockOffsetMs(): number {
    return this.state.clock_offset_ms;
  }

  // --- reads ---

  /** A deployment of this tenant; another tenant's is as good as absent. */
  find(tenantId: string, id: string): StoredDeployment | undefined {
    const deployment = this.byId.get(id.toLowerCase());
    return deployment && deployment.tenant_id === tenantId ? deployment : undefined;
  }

  /** Any tenant's (the controls act without authentication). */
  findAnyTenant(id: string): StoredDeployment | undefined {
    return this.byId.get(id.toLowerCase());
  }

  tenantDeployments(tenantId: string): readonly StoredDeployment[] {
    return this.byTenant.get(tenantId) ?? [];
  }

  nameTaken(tenantId: string, name: string): boolean {
    return this.tenantDeployments(tenantId).some((d) => d.name === name);
  }

  upload(objectPath: string): StoredUpload | undefined {
    return this.uploadsByPath.get(objectPath);
  }

  uploadById(id: string): StoredUpload | undefined {
    return this.uploadsById.get(id);
  }

  /** Still issued: not removed with its deployment (or by a reset) since it was looked up. */
  isCurrentUpload(upload: StoredUpload): boolean {
    return this.uploadsById.get(upload.id) === upload;
  }

  /** Still stored: not deleted (or reset away) since it was looked up. */
  isCurrent(deployment: StoredDeployment): boolean {
    return this.byId.get(deployment.id) === deployment;
  }

  storedUploadBytes(): number {
    return this.uploadedBytes;
  }

  tarball(objectPath: string): Buffer | undefined {
    const upload = this.uploadsByPath.get(objectPath);
    return upload?.uploaded_at != null ? this.options.tarballs.read(upload.id) : undefined;
  }

  tracingProjects(tenantId?: string): TracingProject[] {
    return this.state.tracing_projects.filter((p) => tenantId === undefined || p.tenant_id === tenantId);
  }

  failRules(): readonly FailRule[] {
    return this.state.fail_next;
  }

  // --- changes ---

  createDeployment(tenantId: string, request: CreateRequest, now: number): StoredDeployment {
    const id = newId();
    const sourceConfig: Record<string, unknown> = {};
    for (const field of SOURCE_CONFIG_FIELDS) sourceConfig[field] = storedValue(field, request.source_config);
    // For gitrepo the service sets custom_url itself (spec 2.2): derive one from name and ID.
    if (request.source === "gitrepo") sourceConfig.custom_url = customUrlFor(request.name, id);

    const revisionConfig = emptyRevisionConfig();
    for (const field of REVISION_CONFIG_FIELDS) {
      (revisionConfig as Record<string, unknown>)[field] =
        request.source_revision_config[field as keyof CreateRequest["source_revision_config"]] ?? null;
    }
    // The commit the service resolved repo_ref to (read-only, gitrepo only).
    if (request.source === "gitrepo") revisionConfig.repo_commit_sha = newCommitSha();
    const deployment: StoredDeployment = {
      id,
      tenant_id: tenantId,
      seq: ++this.state.seq,
      name: request.name,
      source: request.source,
      source_config: sourceConfig,
      source_revision_config: revisionConfig,
      secrets: request.secrets,
      secret_references: request.secret_references ?? null,
      created_at: now,
      updated_at: now,
      revisions: [],
    };
    this.addRevision(deployment, request.source, revisionConfig, now);

    // Creating a deployment also creates a tracing project of the same name (spec 1).
    if (!this.state.tracing_projects.some((p) => p.tenant_id === tenantId && p.name === request.name)) {
      this.state.tracing_projects.push({
        id: newId(),
        tenant_id: tenantId,
        name: request.name,
        deployment_id: id,
        created_at: now,
      });
    }
    this.state.deployments.push(deployment);
    this.index(deployment);
    this.save();
    return deployment;
  }

  /**
   * Applies a validated patch. `triggers` says whether it creates a revision (the caller asks
   * the model's revisionTriggers). Null means "leave unchanged" for every field, not "clear
   * it": the spec says non-null values are what count (2.3, 2.4, 4.3), and a client sending a
   * full object with nulls for what it does not mean to touch must not wipe those fields.
   */
  patchDeployment(deployment: StoredDeployment, patch: PatchRequest, triggers: boolean, now: number): void {
    const config: Record<string, unknown> = { ...deployment.source_config };
    for (const [field, value] of Object.entries(patch.source_config ?? {})) {
      if (value == null) continue;
      // A gitrepo custom_url is the service's (the model refuses a different one; an equal one changes nothing).
      if (field === "custom_url" && deployment.source === "gitrepo") continue;
      config[field] = storedValue(field, { [field]: value });
    }
    deployment.source_config = config;
    if (patch.secrets != null) deployment.secrets = patch.secrets;
    if (patch.secret_references != null) deployment.secret_references = patch.secret_references;

    if (triggers) {
      const revisionConfig: RevisionConfig = { ...deployment.source_revision_config };
      for (const [field, value] of Object.entries(patch.source_revision_config ?? {})) {
        if (value != null) (revisionConfig as Record<string, unknown>)[field] = value;
      }
      const source = patch.revision_source ?? deployment.source;
      revisionConfig.repo_commit_sha = source === "gitrepo" ? newCommitSha() : null;
      this.addRevision(deployment, source, revisionConfig, now);
      deployment.source_revision_config = revisionConfig;
    }
    deployment.updated_at = now;
    touch(deployment);
    this.save();
  }

  /** A push to the tracked branch: a new gitrepo revision at `sha`. The caller checked the conditions. */
  push(deployment: StoredDeployment, sha: string, now: number): StoredRevision {
    const revisionConfig: RevisionConfig = { ...deployment.source_revision_config, repo_commit_sha: sha };
    const revision = this.addRevision(deployment, "gitrepo", revisionConfig, now);
    deployment.source_revision_config = revisionConfig;
    deployment.updated_at = now;
    touch(deployment);
    this.save();
    return revision;
  }

  /**
   * A new revision built from an earlier revision's configuration and source (a rollback when
   * it is an older one, a retry when it is the latest). Its commit is the one that revision
   * built, so a rollback of a gitrepo deployment deploys the same code again. The deployment's
   * source_revision_config follows the new revision, as after a patch.
   */
  redeploy(deployment: StoredDeployment, from: StoredRevision, now: number): StoredRevision {
    const revisionConfig: RevisionConfig = { ...from.source_revision_config };
    const revision = this.addRevision(deployment, from.source, revisionConfig, now);
    deployment.source_revision_config = revisionConfig;
    deployment.updated_at = now;
    touch(deployment);
    this.save();
    return revision;
  }

  /**
   * Deletes a deployment with its uploads and fail rules. `deleteTracingProject`: also the
   * tenant's tracing project of the deployment's name, the one created with it (a project
   * outlives its deployment otherwise, and a later deployment of the same name uses it again).
   */
  deleteDeployment(deployment: StoredDeployment, options: { deleteTracingProject?: boolean } = {}): void {
    this.state.deployments = this.state.deployments.filter((d) => d !== deployment);
    if (options.deleteTracingProject) {
      this.state.tracing_projects = this.state.tracing_projects.filter(
        (p) => !(p.tenant_id === deployment.tenant_id && p.name === deployment.name),
      );
    }
    this.byId.delete(deployment.id);
    const siblings = this.byTenant.get(deployment.tenant_id) ?? [];
    this.byTenant.set(
      deployment.tenant_id,
      siblings.filter((d) => d !== deployment),
    );
    const gone = this.state.uploads.filter((u) => u.deployment_id === deployment.id);
    this.state.uploads = this.state.uploads.filter((u) => u.deployment_id !== deployment.id);
    this.state.fail_next = this.state.fail_next.filter((r) => r.deployment_id !== deployment.id);
    for (const upload of gone) this.forgetUpload(upload);
    this.save();
    // Files after the state: a crash in between leaves an orphan file, never a dangling path.
    for (const upload of gone) this.options.tarballs.remove(upload.id);
  }

  /** A new object path and URL for `deployment`, valid until `expiresAt`. */
  issueUpload(deployment: StoredDeployment, now: number, expiresAt: number): StoredUpload {
    // URLs that expired unused are worth nothing: drop them, so the state does not grow
    // with every upload-url call.
    const lapsed = this.state.uploads.filter((u) => u.uploaded_at === null && uploadExpiresAt(u) <= now);
    if (lapsed.length > 0) {
      this.state.uploads = this.state.uploads.filter((u) => !lapsed.includes(u));
      for (const upload of lapsed) this.forgetUpload(upload);
    }
    const id = newId();
    const upload: StoredUpload = {
      id,
      object_path: `uploads/${deployment.tenant_id}/${deployment.id}/${id}.tar.gz`,
      tenant_id: deployment.tenant_id,
      deployment_id: deployment.id,
      issued_at: now,
      expires_at: expiresAt,
      uploaded_at: null,
      size: null,
      sha256: null,
    };
    this.state.uploads.push(upload);
    this.uploadsById.set(id, upload);
    this.uploadsByPath.set(upload.object_path, upload);
    this.save();
    return upload;
  }

  /** Stores the tarball of an issued upload that has none yet (objects are write-once). */
  completeUpload(upload: StoredUpload, data: Buffer, sha256: string, now: number): void {
    if (upload.uploaded_at !== null) throw new Error(`upload ${upload.id} was already completed`);
    // The tarball first: once the state says "uploaded", the file must already be there.
    this.options.tarballs.write(upload.id, data);
    upload.uploaded_at = now;
    upload.size = data.length;
    upload.sha256 = sha256;
    this.uploadedBytes += data.length;
    this.save();
  }

  addFailRule(rule: FailRule): void {
    this.state.fail_next.push(rule);
    this.save();
  }

  failRevision(revision: StoredRevision, stage: RevisionStatus, message: string | null): void {
    revision.fail_at = stage;
    revision.fail_message = message;
    this.save();
  }

  setClockOffset(offsetMs: number): void {
    this.state.clock_offset_ms = offsetMs;
    this.save();
  }

  /** Back to an empty emulator. The clock is left alone: emulated time never runs backwards. */
  reset(): void {
    const uploads = this.state.uploads;
    this.state = { ...emptyState(), clock_offset_ms: this.state.clock_offset_ms };
    this.reindex();
    this.save();
    for (const upload of uploads) this.options.tarballs.remove(upload.id);
  }

  // --- internals ---

  /** Creates a revision; older in-progress ones of the deployment stop (see supersede). */
  private addRevision(
    deployment: StoredDeployment,
    source: Source,
    config: RevisionConfig,
    now: number,
  ): StoredRevision {
    for (const older of deployment.revisions) supersede(older, now);
    const stages = revisionStages(source);
    const rule = this.takeFailRule(deployment, stages);
    const revision: StoredRevision = {
      id: newId(),
      seq: ++this.state.seq,
      source,
      source_revision_config: { ...config },
      created_at: now,
      stage_ms: this.options.stageMs,
      stages,
      fail_at: rule?.stage ?? null,
      ended: null,
    };
    if (rule?.message) revision.fail_message = rule.message;
    if (stages.includes("BUILDING")) {
      revision.build_commands = {
        install_command: (deployment.source_config.install_command as string | null) ?? null,
        build_command: (deployment.source_config.build_command as string | null) ?? null,
      };
    }
    // The digest of what the revision builds from: objects are write-once, so it stays true.
    const tarball = config.source_tarball_path
      ? this.uploadsByPath.get(config.source_tarball_path)
      : undefined;
    if (tarball?.sha256) revision.source_tarball_sha256 = tarball.sha256;
    deployment.revisions.push(revision);
    return revision;
  }

  /**
   * The first pending fail rule for this deployment (or for any) whose stage the new revision
   * will pass through. A rule for BUILDING waits for a built source's revision rather than
   * being used up, without effect, by a container revision that never builds.
   */
  private takeFailRule(deployment: StoredDeployment, stages: RevisionStatus[]): FailRule | null {
    const index = this.state.fail_next.findIndex(
      (rule) =>
        (rule.deployment_id === null || rule.deployment_id === deployment.id) &&
        (rule.tenant_id == null || rule.tenant_id === deployment.tenant_id) &&
        stages.includes(rule.stage),
    );
    if (index < 0) return null;
    const [rule] = this.state.fail_next.splice(index, 1);
    return rule!;
  }

  private save(): void {
    this.options.save(this.state);
  }

  private forgetUpload(upload: StoredUpload): void {
    this.uploadsById.delete(upload.id);
    this.uploadsByPath.delete(upload.object_path);
    this.uploadedBytes -= upload.size ?? 0;
  }

  private reindex(): void {
    this.byId.clear();
    this.byTenant.clear();
    this.uploadsById.clear();
    this.uploadsByPath.clear();
    this.uploadedBytes = 0;
    for (const deployment of this.state.deployments) this.index(deployment);
    for (const upload of this.state.uploads) {
      this.uploadsById.set(upload.id, upload);
      this.uploadsByPath.set(upload.object_path, upload);
      this.uploadedBytes += upload.size ?? 0;
    }
  }

  private index(deployment: StoredDeployment): void {
    this.byId.set(deployment.id, deployment);
    let list = this.byTenant.get(deployment.tenant_id);
    if (!list) {
      list = [];
      this.byTenant.set(deployment.tenant_id, list);
    }
    // Usually the newest, so it goes at the end; walk back only if the clock disagrees.
    let at = list.length;
    while (at > 0 && isNewer(list[at - 1]!, deployment)) at--;
    list.splice(at, 0, deployment);
  }
}

/** When an upload URL stops being accepted (files from before expiry was stored: issued + lifetime). */
export function uploadExpiresAt(upload: StoredUpload): number {
  return upload.expires_at ?? upload.issued_at + UPLOAD_URL_LIFETIME_MS;
}

function isNewer(a: StoredDeployment, b: StoredDeployment): boolean {
  return a.created_at !== b.created_at ? a.created_at > b.created_at : a.seq > b.seq;
}

function emptyRevisionConfig(): RevisionConfig {
  return {
    repo_ref: null,
    agent_config_path: null,
    image_uri: null,
    source_tarball_path: null,
    repo_commit_sha: null,
  };
}

/** A source_config value as stored: resource_spec with the service's defaults and rounding. */
function storedValue(field: string, config: Record<string, unknown>): unknown {
  const value = config[field] ?? null;
  if (field === "resource_spec" && value !== null) return withResourceDefaults(value as ResourceSpecRequestT);
  return value;
}

/** The URL the service gives a gitrepo deployment: readable (name) and unique (ID). */
export function customUrlFor(name: string, id: string): string {
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40)
      .replace(/-+$/, "") || "deployment";
  return `https://${slug}-${id.slice(0, 8)}.emulator.invalid`;
}
