// What the route handlers share: the store, the clock and the limits. Plus the two lookups
// every deployment route starts with, so that each answers 422 / 404 the same way.
import { isUuid } from "../../model/enums.js";
import { deploymentNotFound, invalidField, revisionNotFound } from "../responses.js";
import type { Clock } from "../store/clock.js";
import type { StoredDeployment, StoredRevision } from "../store/state.js";
import type { Store } from "../store/store.js";
import type { Faults } from "./faults.js";
import type { RouteContext } from "./router.js";
import type { AgentAddress } from "./views.js";

export interface Core {
  store: Store;
  clock: Clock;
  faults: Faults;
  stats: RequestStats;
  maxUploadBytes: number;
  /** Cap on all uploaded tarballs together; null: none (with --state they are files). */
  uploadQuotaBytes: number | null;
  /** Where a deployment's stand-in agent server answers: its custom_url (agents/server.ts). */
  agentUrl: AgentAddress;
}

/** Request counts per route key ("POST /v2/deployments"); unknown routes as "<METHOD> (unmatched)". */
export class RequestStats {
  private counts = new Map<string, number>();

  count(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  snapshot(): { requests: Record<string, number>; total: number } {
    let total = 0;
    const requests: Record<string, number> = {};
    for (const [key, value] of [...this.counts].sort(([a], [b]) => (a < b ? -1 : 1))) {
      requests[key] = value;
      total += value;
    }
    return { requests, total };
  }

  clear(): void {
    this.counts.clear();
  }
}

/** A path ID that is not a UUID is a 422 at `loc: ["path", <name>]`, as the service answers. */
export function uuidParam(context: RouteContext, name: string): string {
  const value = context.params[name] ?? "";
  if (!isUuid(value)) {
    throw invalidField(
      ["path", name],
      `must be a UUID, not ${JSON.stringify(value.slice(0, 60))}`,
      "uuid_parsing",
    );
  }
  return value.toLowerCase();
}

/** The caller's deployment named by the path; another tenant's is a 404 like a missing one. */
export function tenantDeployment(core: Core, context: RouteContext): StoredDeployment {
  const tenantId = context.tenant();
  const id = uuidParam(context, "deployment_id");
  const deployment = core.store.find(tenantId, id);
  if (!deployment) throw deploymentNotFound(id);
  return deployment;
}

/** The revision named by the path, which must be one of `deployment`'s; else a 404. */
export function deploymentRevision(deployment: StoredDeployment, context: RouteContext): StoredRevision {
  const revisionId = uuidParam(context, "revision_id");
  const revision = deployment.revisions.find((r) => r.id === revisionId);
  if (!revision) throw revisionNotFound(revisionId);
  return revision;
}
