// The store's records, each kind with the indexes its look-ups need, so that no request
// scans the state: a create, a get by ID, a look-up by name and a tenant's listing cost the
// same at 10,000 deployments as at none.
import type { StoredDeployment, StoredUpload, TracingProject } from "./state.js";

/**
 * Deployments by ID, by tenant in listing order, and by tenant and name (names are unique
 * per tenant: the create route refuses a taken one).
 */
export class DeploymentIndex {
  private readonly byId = new Map<string, StoredDeployment>();
  /** Oldest first by (created_at, seq): the listing reads it backwards for "newest first". */
  private readonly byTenant = new Map<string, StoredDeployment[]>();
  private readonly byTenantName = new Map<string, Map<string, StoredDeployment>>();

  get(id: string): StoredDeployment | undefined {
    return this.byId.get(id);
  }

  named(tenantId: string, name: string): StoredDeployment | undefined {
    return this.byTenantName.get(tenantId)?.get(name);
  }

  ofTenant(tenantId: string): readonly StoredDeployment[] {
    return this.byTenant.get(tenantId) ?? [];
  }

  /** Every deployment, in the order they were added. */
  all(): IterableIterator<StoredDeployment> {
    return this.byId.values();
  }

  add(deployment: StoredDeployment): void {
    this.byId.set(deployment.id, deployment);
    const list = this.byTenant.get(deployment.tenant_id) ?? [];
    this.byTenant.set(deployment.tenant_id, list);
    // Usually the newest, so it goes at the end; the search is for a clock that disagrees.
    const last = list.at(-1);
    if (!last || isNewer(deployment, last)) list.push(deployment);
    else list.splice(listPosition(list, deployment), 0, deployment);
    mapIn(this.byTenantName, deployment.tenant_id).set(deployment.name, deployment);
  }

  remove(deployment: StoredDeployment): void {
    if (this.byId.get(deployment.id) !== deployment) return;
    this.byId.delete(deployment.id);
    const list = this.byTenant.get(deployment.tenant_id)!;
    const at = listPosition(list, deployment);
    // (created_at, seq) never change and seq is unique, so the search finds it.
    list.splice(list[at] === deployment ? at : list.indexOf(deployment), 1);
    const names = this.byTenantName.get(deployment.tenant_id)!;
    if (names.get(deployment.name) === deployment) names.delete(deployment.name);
    if (list.length === 0) {
      this.byTenant.delete(deployment.tenant_id);
      this.byTenantName.delete(deployment.tenant_id);
    }
  }

  clear(): void {
    this.byId.clear();
    this.byTenant.clear();
    this.byTenantName.clear();
  }
}

/** Whether `a` lists as newer than `b`: later created_at, then later creation (seq). */
export function isNewer(a: StoredDeployment, b: StoredDeployment): boolean {
  return a.created_at !== b.created_at ? a.created_at > b.created_at : a.seq > b.seq;
}

/** Where `deployment` is, or belongs, in a list ordered oldest first (binary search). */
function listPosition(list: readonly StoredDeployment[], deployment: StoredDeployment): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (isNewer(deployment, list[mid]!)) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * Tracing projects by ID (in creation order), by tenant, and by tenant and name: the emulator
 * makes one per tenant and name (with the first deployment of that name).
 */
export class TracingProjectIndex {
  private readonly byId = new Map<string, TracingProject>();
  private readonly byTenant = new Map<string, Map<string, TracingProject>>();
  private readonly byTenantName = new Map<string, Map<string, TracingProject>>();

  named(tenantId: string, name: string): TracingProject | undefined {
    return this.byTenantName.get(tenantId)?.get(name);
  }

  /** A tenant's, or everyone's, in creation order. */
  all(tenantId?: string): IterableIterator<TracingProject> {
    if (tenantId === undefined) return this.byId.values();
    return (this.byTenant.get(tenantId) ?? new Map<string, TracingProject>()).values();
  }

  add(project: TracingProject): void {
    this.byId.set(project.id, project);
    mapIn(this.byTenant, project.tenant_id).set(project.id, project);
    const names = mapIn(this.byTenantName, project.tenant_id);
    // A second of the same name (only a hand-edited file has one) keeps the first as the named.
    if (!names.has(project.name)) names.set(project.name, project);
  }

  remove(project: TracingProject): void {
    if (this.byId.get(project.id) !== project) return;
    this.byId.delete(project.id);
    const ofTenant = this.byTenant.get(project.tenant_id)!;
    ofTenant.delete(project.id);
    const names = this.byTenantName.get(project.tenant_id)!;
    if (names.get(project.name) === project) names.delete(project.name);
    if (ofTenant.size === 0) {
      this.byTenant.delete(project.tenant_id);
      this.byTenantName.delete(project.tenant_id);
    }
  }

  clear(): void {
    this.byId.clear();
    this.byTenant.clear();
    this.byTenantName.clear();
  }
}

/**
 * Uploads by ID, by object path and by deployment, the bytes they hold, and those still
 * waiting for their tarball in the order they were issued.
 */
export class UploadIndex {
  private readonly byId = new Map<string, StoredUpload>();
  private readonly byPath = new Map<string, StoredUpload>();
  private readonly byDeployment = new Map<string, Map<string, StoredUpload>>();
  /** Issued and not uploaded yet, oldest first. */
  private readonly waiting = new Map<string, StoredUpload>();
  private bytes = 0;

  get(id: string): StoredUpload | undefined {
    return this.byId.get(id);
  }

  atPath(objectPath: string): StoredUpload | undefined {
    return this.byPath.get(objectPath);
  }

  ofDeployment(deploymentId: string): StoredUpload[] {
    return [...(this.byDeployment.get(deploymentId)?.values() ?? [])];
  }

  /** Bytes of all uploaded tarballs. */
  get storedBytes(): number {
    return this.bytes;
  }

  /** Every upload, in the order they were issued. */
  all(): IterableIterator<StoredUpload> {
    return this.byId.values();
  }

  /**
   * Those still waiting for their tarball whose URL has expired by `now`. URLs are valid for
   * a fixed time from issue, so they expire in the order they were issued: this reads the
   * oldest only until the first still valid one. (Should the clock ever run backwards, some
   * expired URL waits for a later call; a URL is checked for expiry when used, regardless.)
   */
  lapsed(now: number): StoredUpload[] {
    const lapsed: StoredUpload[] = [];
    for (const upload of this.waiting.values()) {
      if (upload.expires_at > now) break;
      lapsed.push(upload);
    }
    return lapsed;
  }

  add(upload: StoredUpload): void {
    this.byId.set(upload.id, upload);
    this.byPath.set(upload.object_path, upload);
    mapIn(this.byDeployment, upload.deployment_id).set(upload.id, upload);
    if (upload.uploaded_at === null) this.waiting.set(upload.id, upload);
    this.bytes += upload.size ?? 0;
  }

  /** The tarball of `upload` was stored (its fields already say so). */
  completed(upload: StoredUpload): void {
    this.waiting.delete(upload.id);
    this.bytes += upload.size ?? 0;
  }

  remove(upload: StoredUpload): void {
    if (this.byId.get(upload.id) !== upload) return;
    this.byId.delete(upload.id);
    this.byPath.delete(upload.object_path);
    const ofDeployment = this.byDeployment.get(upload.deployment_id)!;
    ofDeployment.delete(upload.id);
    if (ofDeployment.size === 0) this.byDeployment.delete(upload.deployment_id);
    this.waiting.delete(upload.id);
    this.bytes -= upload.size ?? 0;
  }

  clear(): void {
    this.byId.clear();
    this.byPath.clear();
    this.byDeployment.clear();
    this.waiting.clear();
    this.bytes = 0;
  }
}

function mapIn<V>(maps: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let map = maps.get(key);
  if (!map) {
    map = new Map();
    maps.set(key, map);
  }
  return map;
}
