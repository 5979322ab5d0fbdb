// GET /v2/deployments: which of the tenant's deployments a page holds. Newest first, by
// (created_at, creation order); `offset` skips that many matches. A filter that names the
// deployments (`name`, `deployment_ids`) takes them from the store's indexes instead of
// walking the tenant's list: a look-up by name costs the same however many the tenant has.
import type { StoredDeployment } from "../store/state.js";
import type { Store } from "../store/store.js";
import { isNewer } from "../store/store-indexes.js";
import type { DeploymentFilters } from "./query.js";
import { deploymentStatusAt, EMULATED_IMAGE_VERSION } from "./views.js";

export function listingPage(store: Store, tenantId: string, filters: DeploymentFilters, now: number) {
  return pageOf(candidates(store, tenantId, filters), filters, now);
}

/** The matches in `newestFirst` that the page holds. */
export function pageOf(
  newestFirst: Iterable<StoredDeployment>,
  filters: DeploymentFilters,
  now: number,
): StoredDeployment[] {
  const page: StoredDeployment[] = [];
  let skipped = 0;
  for (const deployment of newestFirst) {
    if (page.length >= filters.limit) break;
    if (!matchesFilters(deployment, filters, now)) continue;
    if (skipped < filters.offset) skipped++;
    else page.push(deployment);
  }
  return page;
}

/** Newest first: every deployment that may match, and no other of the tenant's. */
function candidates(store: Store, tenantId: string, filters: DeploymentFilters): Iterable<StoredDeployment> {
  if (filters.name !== null) {
    const named = store.findByName(tenantId, filters.name);
    return named ? [named] : [];
  }
  if (filters.deploymentIds !== null) {
    const found = new Set<StoredDeployment>();
    for (const id of filters.deploymentIds) {
      const deployment = store.find(tenantId, id);
      if (deployment) found.add(deployment);
    }
    return [...found].sort((a, b) => (isNewer(a, b) ? -1 : 1));
  }
  return newestFirst(store.tenantDeployments(tenantId));
}

/** The tenant's list (kept oldest first) read backwards. */
function* newestFirst(list: readonly StoredDeployment[]): Generator<StoredDeployment> {
  for (let i = list.length - 1; i >= 0; i--) yield list[i]!;
}

export function matchesFilters(
  deployment: StoredDeployment,
  filters: DeploymentFilters,
  now: number,
): boolean {
  if (filters.name !== null && deployment.name !== filters.name) return false;
  if (
    filters.nameContains !== null &&
    !deployment.name.toLowerCase().includes(filters.nameContains.toLowerCase())
  ) {
    return false;
  }
  if (filters.deploymentIds !== null && !filters.deploymentIds.has(deployment.id)) return false;
  if (filters.deploymentType !== null && deployment.source_config.deployment_type !== filters.deploymentType)
    return false;
  // Remote-reconciled deployments are the self-hosted ones: external_container.
  if (
    filters.remoteReconciled !== null &&
    (deployment.source === "external_container") !== filters.remoteReconciled
  ) {
    return false;
  }
  // Emulated deployments carry no tags, so any tag filter matches nothing.
  if (filters.tagValueIds !== null) return false;
  if (filters.status !== null || filters.imageVersion !== null) {
    const { status, active } = deploymentStatusAt(deployment, now);
    if (filters.status !== null && status !== filters.status) return false;
    const imageVersion = active ? EMULATED_IMAGE_VERSION : null;
    if (filters.imageVersion !== null && imageVersion !== filters.imageVersion) return false;
  }
  return true;
}
