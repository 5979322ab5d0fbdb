// The emulator's state and every change to it. No HTTP here: handlers validate, then call
// one method; each method changes the state and commits it (with a state file: the whole
// state written to it, persistence.ts) before returning, so the answer a handler then sends
// is always backed by what was saved.

import type { FailRule } from "../../model/emulator-controls.js";
import { type RevisionStatus, revisionStages, type Source } from "../../model/enums.js";
import type { ListenerCreate, ListenerPatch } from "../../model/listeners.js";
import { withResourceDefaults } from "../../model/resource-spec.js";
import { REVISION_FIELD_SOURCES, SOURCE_CONFIG_FIELD_SOURCES } from "../../model/rules.js";
import type { CreateRequest, PatchRequest, ResourceSpecRequestT } from "../../model/schemas.js";
import { newCommitSha, newId } from "./ids.js";
import { supersede } from "./lifecycle.js";
import { ListenerRecords } from "./listeners.js";
import {
  type EmulatorState,
  emptyState,
  type RevisionConfig,
  STATE_FORMAT,
  STATE_VERSION,
  type StoredDeployment,
  type StoredListener,
  type StoredRevision,
  type StoredUpload,
  type TracingProject,
} from "./state.js";
import { DeploymentIndex, TracingProjectIndex, UploadIndex } from "./store-indexes.js";
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
  /**
   * Makes a change durable; called with the whole state after every change, before it is
   * answered. Throws when it cannot (the change is then not acknowledged). Absent: memory only.
   */
  commit?: (state: EmulatorState) => void;
  tarballs: TarballStorage;
  /** The emulator's image registry, where revisions pull from and deleted deployments leave images. */
  images?: ImageHooks;
}

export interface ImageHooks {
  /** Why a deployment of `tenantId` cannot pull `imageUri` (registry/pull-check.ts); null: it can. */
  pullProblem(tenantId: string, imageUri: string): string | null;
  /** The deployment is gone: so are its images. */
  deploymentDeleted(deploymentId: string): void;
  reset(): void;
}

const SOURCE_CONFIG_FIELDS = Object.keys(SOURCE_CONFIG_FIELD_SOURCES);
const REVISION_CONFIG_FIELDS = Object.keys(REVISION_FIELD_SOURCES);

export class Store {
  private signingKeyValue: string;
  /** Last sequence number handed out (deployments and revisions: the tiebreak of "newest first"). */
  private seq: number;
  private clockOffset: number;
  private failNext: FailRule[];
  private readonly deployments = new DeploymentIndex();
  private readonly uploads = new UploadIndex();
  private readonly projects = new TracingProjectIndex();
  private readonly listenerRecords = new ListenerRecords();

  constructor(
    state: EmulatorState | null,
    private readonly options: StoreOptions,
  ) {
    const initial = state ?? emptyState();
    this.signingKeyValue = initial.signing_key;
    this.seq = initial.seq;
    this.clockOffset = initial.clock_offset_ms;
    this.failNext = initial.fail_next;
    for (const deployment of initial.deployments) this.deployments.add(deployment);
    for (const upload of initial.uploads) this.uploads.add(upload);
    for (const project of initial.tracing_projects) this.projects.add(project);
    for (const listener of initial.listeners ?? []) this.listenerRecords.set(listener);
  }

  get signingKey(): string {
    return this.signingKeyValue;
  }

  get clockOffsetMs(): number {
    return this.clockOffset;
  }

  /** Everything, as the state file holds it. */
  contents(): EmulatorState {
    return {
      format: STATE_FORMAT,
      version: STATE_VERSION,
      signing_key: this.signingKeyValue,
      seq: this.seq,
      clock_offset_ms: this.clockOffset,
      deployments: [...this.deployments.all()],
      uploads: [...this.uploads.all()],
      tracing_projects: [...this.projects.all()],
      fail_next: this.failNext,
      listeners: [...this.listenerRecords.all()],
    };
  }

  // --- reads ---

  /** A deployment of this tenant; another tenant's is as good as absent. */
  find(tenantId: string, id: string): StoredDeployment | undefined {
    const deployment = this.deployments.get(id.toLowerCase());
    return deployment && deployment.tenant_id === tenantId ? deployment : undefined;
  }

  /** Any tenant's (the controls act without authentication). */
  findAnyTenant(id: string): StoredDeployment | undefined {
    return this.deployments.get(id.toLowerCase());
  }

  /** The tenant's deployment of this name (names are unique per tenant). */
  findByName(tenantId: string, name: string): StoredDeployment | undefined {
    return this.deployments.named(tenantId, name);
  }

  /** Oldest first by (created_at, creation order): lists read it backwards for "newest first". */
  tenantDeployments(tenantId: string): readonly StoredDeployment[] {
    return this.deployments.ofTenant(tenantId);
  }

  nameTaken(tenantId: string, name: string): boolean {
    return this.deployments.named(tenantId, name) !== undefined;
  }

  upload(objectPath: string): StoredUpload | undefined {
    return this.uploads.atPath(objectPath);
  }

  uploadById(id: string): StoredUpload | undefined {
    return this.uploads.get(id);
  }

  /** Still issued: not removed with its deployment (or by a reset) since it was looked up. */
  isCurrentUpload(upload: StoredUpload): boolean {
    return this.uploads.get(upload.id) === upload;
  }

  /** Still stored: not deleted (or reset away) since it was looked up. */
  isCurrent(deployment: StoredDeployment): boolean {
    return this.deployments.get(deployment.id) === deployment;
  }

  storedUploadBytes(): number {
    return this.uploads.storedBytes;
  }

  tarball(objectPath: string): Buffer | undefined {
    const upload = this.uploads.atPath(objectPath);
    return upload?.uploaded_at != null ? this.options.tarballs.read(upload.id) : undefined;
  }

  /** A tenant's tracing projects, or everyone's, in creation order. */
  tracingProjects(tenantId?: string): TracingProject[] {
    return [...this.projects.all(tenantId)];
  }

  failRules(): readonly FailRule[] {
    return this.failNext;
  }

  /** The tenant's listeners: the seeded ones as the tenant left them, then those it created. */
  listeners(tenantId: string): StoredListener[] {
    return this.listenerRecords.ofTenant(tenantId);
  }

  /** A listener of this tenant; another tenant's is as good as absent. */
  listener(tenantId: string, id: string): StoredListener | undefined {
    return this.listenerRecords.find(tenantId, id);
  }

  // --- changes ---

  createDeployment(
    tenantId: string,
    request: CreateRequest,
    now: number,
    trackedPackages: readonly string[] | null = null,
  ): StoredDeployment {
    const id = newId();
    const sourceConfig: Record<string, unknown> = {};
    // custom_url is kept as given (an external_container's); the view shows the stand-in agent
    // server's address for every other deployment (api/views.ts).
    for (const field of SOURCE_CONFIG_FIELDS) sourceConfig[field] = storedValue(field, request.source_config);

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
      seq: this.nextSeq(),
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
    this.addRevision(deployment, request.source, revisionConfig, now, trackedPackages);

    // Creating a deployment also creates a tracing project of the same name (spec 1).
    if (!this.projects.named(tenantId, request.name)) {
      const project: TracingProject = {
        id: newId(),
        tenant_id: tenantId,
        name: request.name,
        deployment_id: id,
        created_at: now,
      };
      this.projects.add(project);
    }
    this.deployments.add(deployment);
    this.commit();
    return deployment;
  }

  /**
   * Applies a validated patch. `triggers` says whether it creates a revision (the caller asks
   * the model's revisionTriggers). Null means "leave unchanged" for every field, not "clear
   * it": the spec says non-null values are what count (2.3, 2.4, 4.3), and a client sending a
   * full object with nulls for what it does not mean to touch must not wipe those fields.
   */
  patchDeployment(
    deployment: StoredDeployment,
    patch: PatchRequest,
    triggers: boolean,
    now: number,
    trackedPackages: readonly string[] | null = null,
  ): void {
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
      this.addRevision(deployment, source, revisionConfig, now, trackedPackages);
      deployment.source_revision_config = revisionConfig;
    }
    deployment.updated_at = now;
    this.changed(deployment);
    this.commit();
  }

  /** A push to the tracked branch: a new gitrepo revision at `sha`. The caller checked the conditions. */
  push(deployment: StoredDeployment, sha: string, now: number): StoredRevision {
    const revisionConfig: RevisionConfig = { ...deployment.source_revision_config, repo_commit_sha: sha };
    const revision = this.addRevision(deployment, "gitrepo", revisionConfig, now);
    deployment.source_revision_config = revisionConfig;
    deployment.updated_at = now;
    this.changed(deployment);
    this.commit();
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
    this.changed(deployment);
    this.commit();
    return revision;
  }

  /**
   * Deletes a deployment with its uploads and fail rules. `deleteTracingProject`: also the
   * tenant's tracing project of the deployment's name, the one created with it (a project
   * outlives its deployment otherwise, and a later deployment of the same name uses it again).
   */
  deleteDeployment(deployment: StoredDeployment, options: { deleteTracingProject?: boolean } = {}): void {
    this.deleteDeployments([deployment], options);
  }

  /**
   * Deletes deployments as one change (the bulk DELETE): one commit, so that a crash leaves
   * all of them or none, as the answer says.
   */
  deleteDeployments(
    deployments: readonly StoredDeployment[],
    options: { deleteTracingProject?: boolean } = {},
  ): void {
    const gone: StoredUpload[] = [];
    for (const deployment of deployments) gone.push(...this.removeDeployment(deployment, options));
    this.commit();
    // Files after the state: a crash in between leaves an orphan file, never a dangling path.
    for (const upload of gone) this.options.tarballs.remove(upload.id);
    for (const deployment of deployments) this.options.images?.deploymentDeleted(deployment.id);
  }

  /** Takes a deployment and what hangs on it out of the state (not committed); its uploads. */
  private removeDeployment(
    deployment: StoredDeployment,
    options: { deleteTracingProject?: boolean },
  ): StoredUpload[] {
    this.deployments.remove(deployment);
    if (options.deleteTracingProject) {
      const project = this.projects.named(deployment.tenant_id, deployment.name);
      if (project) this.projects.remove(project);
    }
    const gone = this.uploads.ofDeployment(deployment.id);
    for (const upload of gone) this.uploads.remove(upload);
    this.failNext = this.failNext.filter((r) => r.deployment_id !== deployment.id);
    return gone;
  }

  createListener(tenantId: string, request: ListenerCreate, now: number): StoredListener {
    const listener: StoredListener = {
      id: newId(),
      tenant_id: tenantId,
      seq: this.nextSeq(),
      compute_type: request.compute_type,
      compute_id: request.compute_id,
      k8s_namespaces: [...(request.compute_config.k8s_namespaces ?? [])],
      version: request.version ?? null,
      created_at: now,
      updated_at: now,
    };
    this.listenerRecords.set(listener);
    this.commit();
    return listener;
  }

  /** Null leaves a field as it is; a namespace list given is the whole list. */
  patchListener(listener: StoredListener, patch: ListenerPatch, now: number): StoredListener {
    const namespaces = patch.compute_config?.k8s_namespaces;
    const patched: StoredListener = {
      ...listener,
      k8s_namespaces: namespaces == null ? [...listener.k8s_namespaces] : [...namespaces],
      version: patch.version ?? listener.version,
      updated_at: now,
    };
    this.listenerRecords.set(patched);
    this.commit();
    return patched;
  }

  deleteListener(listener: StoredListener, now: number): void {
    if (this.listenerRecords.isSeeded(listener.tenant_id, listener.id)) {
      const removed: StoredListener = { ...listener, updated_at: now, removed: true };
      this.listenerRecords.set(removed);
    } else {
      this.listenerRecords.remove(listener.id);
    }
    this.commit();
  }

  /** A new object path and URL for `deployment`, valid until `expiresAt`. */
  issueUpload(deployment: StoredDeployment, now: number, expiresAt: number): StoredUpload {
    // URLs that expired unused are worth nothing: drop them, so the state does not grow
    // with every upload-url call.
    for (const upload of this.uploads.lapsed(now)) this.uploads.remove(upload);
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
    this.uploads.add(upload);
    this.commit();
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
    this.uploads.completed(upload);
    this.commit();
  }

  addFailRule(rule: FailRule): void {
    this.failNext.push(rule);
    this.commit();
  }

  failRevision(revision: StoredRevision, stage: RevisionStatus, message: string | null): void {
    revision.fail_at = stage;
    revision.fail_message = message;
    this.commit();
  }

  /**
   * Marks the agent server of `revision` (or, without one, of the next revision to start)
   * healthy or not. `healthy` without a revision clears every mark of the deployment.
   */
  setHealth(deployment: StoredDeployment, revision: StoredRevision | null, healthy: boolean): void {
    if (revision) {
      if (healthy) delete revision.unhealthy;
      else revision.unhealthy = true;
    } else if (healthy) {
      delete deployment.next_unhealthy;
      for (const each of deployment.revisions) delete each.unhealthy;
    } else deployment.next_unhealthy = true;
    this.commit();
  }

  setClockOffset(offsetMs: number): void {
    this.clockOffset = offsetMs;
    this.commit();
  }

  /** Back to an empty emulator. The clock is left alone: emulated time never runs backwards. */
  reset(): void {
    const uploads = [...this.uploads.all()];
    const empty = emptyState();
    this.signingKeyValue = empty.signing_key;
    this.seq = empty.seq;
    this.failNext = empty.fail_next;
    this.deployments.clear();
    this.uploads.clear();
    this.projects.clear();
    this.listenerRecords.clear();
    this.commit();
    for (const upload of uploads) this.options.tarballs.remove(upload.id);
    this.options.images?.reset();
  }

  // --- internals ---

  /** Creates a revision; older in-progress ones of the deployment stop (see supersede). */
  private addRevision(
    deployment: StoredDeployment,
    source: Source,
    config: RevisionConfig,
    now: number,
    trackedPackages: readonly string[] | null = null,
  ): StoredRevision {
    for (const older of deployment.revisions) supersede(older, now);
    const stages = revisionStages(source);
    // A source revision with no tarball yet (the one a create of internal_source starts, which
    // the push's upload replaces) builds nothing: a rule waits for the first one that does.
    const builds = source !== "internal_source" || config.source_tarball_path !== null;
    const rule = builds ? this.takeFailRule(deployment, stages) : null;
    const revision: StoredRevision = {
      id: newId(),
      seq: this.nextSeq(),
      source,
      source_revision_config: { ...config },
      created_at: now,
      stage_ms: this.options.stageMs,
      stages,
      fail_at: rule?.stage ?? null,
      ended: null,
    };
    if (rule?.message) revision.fail_message = rule.message;
    if (deployment.next_unhealthy) {
      revision.unhealthy = true;
      delete deployment.next_unhealthy;
    }
    this.failUnpullableImage(deployment, revision);
    if (stages.includes("BUILDING")) {
      revision.build_commands = {
        install_command: (deployment.source_config.install_command as string | null) ?? null,
        build_command: (deployment.source_config.build_command as string | null) ?? null,
      };
    }
    // The digest of what the revision builds from: objects are write-once, so it stays true.
    const tarball = config.source_tarball_path ? this.uploads.atPath(config.source_tarball_path) : undefined;
    if (tarball?.sha256) revision.source_tarball_sha256 = tarball.sha256;
    if (trackedPackages?.length) revision.tracked_packages = [...trackedPackages];
    deployment.revisions.push(revision);
    return revision;
  }

  /**
   * A container revision whose image the emulator's registry should hold but does not fails
   * where the runtime's pull would, at AWAITING_DEPLOY (unless a fail rule stops it earlier).
   */
  private failUnpullableImage(deployment: StoredDeployment, revision: StoredRevision): void {
    const uri = revision.source_revision_config.image_uri;
    const { stages } = revision;
    if (!uri || stages.includes("BUILDING") || !stages.includes("AWAITING_DEPLOY")) return;
    if (revision.fail_at && stages.indexOf(revision.fail_at) <= stages.indexOf("AWAITING_DEPLOY")) return;
    const problem = this.options.images?.pullProblem(deployment.tenant_id, uri);
    if (!problem) return;
    revision.fail_at = "AWAITING_DEPLOY";
    revision.fail_message = problem;
  }

  /**
   * The first pending fail rule for this deployment (or for any) whose stage the new revision
   * will pass through. A rule for BUILDING waits for a built source's revision rather than
   * being used up, without effect, by a container revision that never builds.
   */
  private takeFailRule(deployment: StoredDeployment, stages: RevisionStatus[]): FailRule | null {
    const index = this.failNext.findIndex(
      (rule) =>
        (rule.deployment_id === null || rule.deployment_id === deployment.id) &&
        (rule.tenant_id == null || rule.tenant_id === deployment.tenant_id) &&
        stages.includes(rule.stage),
    );
    if (index < 0) return null;
    const [rule] = this.failNext.splice(index, 1);
    return rule!;
  }

  private nextSeq(): number {
    return ++this.seq;
  }

  /** A stored deployment changed in place: its serialised views are stale. */
  private changed(deployment: StoredDeployment): void {
    touch(deployment);
  }

  private commit(): void {
    this.options.commit?.(this.contents());
  }
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
