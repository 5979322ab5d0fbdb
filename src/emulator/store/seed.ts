// What every tenant finds already in place: two k8s listeners (which it may then change or
// delete: listeners.ts keeps what it did), a few git integrations and the repositories each
// can reach.
// They are derived from the tenant ID (no storage), so they exist for any tenant from its
// first request, come out the same on every start, and differ between tenants, which lets a
// test check that one tenant cannot use another's listener or integration.
import type { GitIntegrationT, GitRepositoryT, ListenerT } from "../../model/responses.js";
import { stableInt, stableUuid } from "./ids.js";

/** Seeded resources predate anything a user creates. */
const SEEDED_AT = "2024-01-01T00:00:00.000Z";

const LISTENER_NAMESPACES: string[][] = [
  ["default", "agents"],
  ["staging", "production"],
];

export function listenersFor(tenantId: string): ListenerT[] {
  return LISTENER_NAMESPACES.map((namespaces, index) => ({
    id: stableUuid("listener", tenantId, String(index)),
    compute_type: "k8s",
    compute_id: `emulated-cluster-${index + 1}-${tenantId.slice(0, 8)}`,
    compute_config: { k8s_namespaces: [...namespaces] },
    created_at: SEEDED_AT,
    updated_at: SEEDED_AT,
  }));
}

/** `GET /v1/integrations/gitrepo/install`. */
export function gitIntegrationsFor(tenantId: string): GitIntegrationT[] {
  return ["emulated-org", "emulated-user"].map((name) => integration("gitrepo", tenantId, name));
}

/** `GET /v1/integrations/alt/gitrepo/install`: other IDs than the main listing. */
export function altGitIntegrationsFor(tenantId: string): GitIntegrationT[] {
  return ["emulated-alt-org"].map((name) => integration("alt-gitrepo", tenantId, name));
}

function integration(kind: string, tenantId: string, name: string): GitIntegrationT {
  return {
    id: stableUuid("integration", kind, tenantId, name),
    installation_id: stableInt("installation", kind, tenantId, name),
    name,
  };
}

/** Both listings: any of them may be used as `integration_id`. */
export function isTenantIntegration(tenantId: string, integrationId: string): boolean {
  const id = integrationId.toLowerCase();
  return [...gitIntegrationsFor(tenantId), ...altGitIntegrationsFor(tenantId)].some((i) => i.id === id);
}

/** The repositories each integration reaches: the same names for every one, under its own owner. */
const REPOSITORIES: [name: string, defaultBranch: string][] = [
  ["agent", "main"],
  ["support-bot", "main"],
  ["research-assistant", "trunk"],
];

/**
 * `GET /v1/integrations/gitrepo/{id}/repos` (`alt`: the alternate listing's route): the
 * repositories of one of the tenant's integrations of that listing; undefined when the ID is
 * not one of them.
 */
export function repositoriesFor(
  tenantId: string,
  integrationId: string,
  alt: boolean,
): GitRepositoryT[] | undefined {
  const id = integrationId.toLowerCase();
  const integration = (alt ? altGitIntegrationsFor(tenantId) : gitIntegrationsFor(tenantId)).find(
    (i) => i.id === id,
  );
  if (!integration) return undefined;
  return REPOSITORIES.map(([name, defaultBranch]) => ({
    host_integration_id: integration.id,
    id: stableInt("repository", integration.id, name),
    name,
    owner: integration.name,
    url: `https://github.com/${integration.name}/${name}`,
    default_branch: defaultBranch,
  }));
}
