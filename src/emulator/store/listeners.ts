// A tenant's listeners: the two seeded ones (seed.ts, derived from the tenant ID) as the tenant
// left them, then those it created, oldest first. A seeded listener is stored only once the
// tenant changes it (a record with its ID) or deletes it (a record marked `removed`), so that
// every tenant finds them from its first request and the state holds only what was changed.
import { listenersFor } from "./seed.js";
import type { StoredListener } from "./state.js";

export class ListenerRecords {
  private readonly byId = new Map<string, StoredListener>();
  private readonly byTenant = new Map<string, Map<string, StoredListener>>();

  /** Every record, in the order they were first stored. */
  all(): IterableIterator<StoredListener> {
    return this.byId.values();
  }

  /** Stores `record`, in place of the one with its ID if any. */
  set(record: StoredListener): void {
    this.byId.set(record.id, record);
    let own = this.byTenant.get(record.tenant_id);
    if (!own) {
      own = new Map();
      this.byTenant.set(record.tenant_id, own);
    }
    own.set(record.id, record);
  }

  remove(id: string): void {
    const record = this.byId.get(id);
    if (!record) return;
    this.byId.delete(id);
    const own = this.byTenant.get(record.tenant_id)!;
    own.delete(id);
    if (own.size === 0) this.byTenant.delete(record.tenant_id);
  }

  clear(): void {
    this.byId.clear();
    this.byTenant.clear();
  }

  /** The tenant's listeners as listed: the seeded ones first (as changed, the deleted left out), then the created. */
  ofTenant(tenantId: string): StoredListener[] {
    const own = this.byTenant.get(tenantId);
    const seeded = seededListeners(tenantId);
    const seededIds = new Set(seeded.map((listener) => listener.id));
    const listed = seeded.map((listener) => own?.get(listener.id) ?? listener);
    const created = [...(own?.values() ?? [])].filter((record) => !seededIds.has(record.id));
    created.sort((a, b) => a.created_at - b.created_at || a.seq - b.seq);
    return [...listed, ...created].filter((record) => !record.removed);
  }

  /** The tenant's listener with this ID (any case); another tenant's is as good as absent. */
  find(tenantId: string, id: string): StoredListener | undefined {
    const wanted = id.toLowerCase();
    return this.ofTenant(tenantId).find((listener) => listener.id === wanted);
  }

  /** Whether `id` is one of the tenant's seeded listeners (deleting it leaves a record). */
  isSeeded(tenantId: string, id: string): boolean {
    return seededListeners(tenantId).some((listener) => listener.id === id);
  }
}

/** The seeded listeners of a tenant as records (seq 0: before anything the tenant creates). */
function seededListeners(tenantId: string): StoredListener[] {
  return listenersFor(tenantId).map((listener) => ({
    id: listener.id,
    tenant_id: tenantId,
    seq: 0,
    compute_type: listener.compute_type,
    compute_id: listener.compute_id,
    k8s_namespaces: [...listener.compute_config.k8s_namespaces],
    version: null,
    created_at: Date.parse(listener.created_at),
    updated_at: Date.parse(listener.updated_at),
  }));
}
