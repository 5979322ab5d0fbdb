// Which tenants each configured API key (or bearer token) may act for: `--api-key KEY` acts
// for its own tenant, `--api-key KEY=TENANT[,TENANT...]` for the tenants listed. Without this
// binding any accepted key could name any tenant in the tenant header and read or change that
// tenant's deployments and secrets.
//
// A bare key's own tenant is a UUID derived from the key (tenantIdForCredential): stable
// across restarts and machines, so a user can note it once (`cpctl emulator` prints it).
import { isUuid } from "../../model/enums.js";
import { stableUuid } from "../store/ids.js";

export interface KeyGrant {
  key: string;
  /** Lower-case tenant IDs, at least one. */
  tenants: string[];
  /** True for a bare key: its one tenant is derived from the key itself. */
  derived: boolean;
}

const tenantCache = new Map<string, string>();

/**
 * The tenant a key or token stands for on its own: a hash, so the same key always lands in
 * the same tenant (also across restarts) without any registration.
 */
export function tenantIdForCredential(credential: string): string {
  // A hash per request is a measurable cost at thousands of requests a second; clients reuse
  // a handful of keys, so remember them (bounded, so random keys cannot grow it forever).
  let tenant = tenantCache.get(credential);
  if (tenant === undefined) {
    if (tenantCache.size >= 1000) tenantCache.clear();
    tenant = stableUuid("tenant", credential);
    tenantCache.set(credential, tenant);
  }
  return tenant;
}

/**
 * `KEY` or `KEY=TENANT[,TENANT...]`. Keys may themselves contain `=` (base64 padding): only a
 * last `=` followed by a list of UUIDs makes a grant, anything else is a bare key.
 * Returns an error message for a list that is almost one (a UUID list with a bad entry).
 */
export function parseKeyGrant(spec: string): KeyGrant | string {
  const at = spec.lastIndexOf("=");
  const tail = at < 0 ? "" : spec.slice(at + 1);
  const items = tail.split(",").map((item) => item.trim());
  const looksLikeList = at > 0 && items.some((item) => isUuid(item));
  if (!looksLikeList) return { key: spec, tenants: [tenantIdForCredential(spec)], derived: true };
  const bad = items.find((item) => !isUuid(item));
  if (bad !== undefined) {
    return `the tenants after "=" must be tenant IDs (UUIDs) separated by commas, not ${JSON.stringify(bad)}`;
  }
  return { key: spec.slice(0, at), tenants: [...new Set(items.map((t) => t.toLowerCase()))], derived: false };
}

/** The configured keys, merged by key (a key given twice may act for the tenants of both). */
export class KeyGrants {
  private readonly byKey = new Map<string, KeyGrant>();

  constructor(specs: readonly string[]) {
    for (const spec of specs) {
      const grant = parseKeyGrant(spec);
      if (typeof grant === "string") throw new Error(`--api-key ${grant}`);
      const known = this.byKey.get(grant.key);
      if (!known) this.byKey.set(grant.key, grant);
      else
        this.byKey.set(grant.key, {
          key: grant.key,
          tenants: [...new Set([...known.tenants, ...grant.tenants])],
          derived: known.derived && grant.derived,
        });
    }
  }

  /** The tenants this key may act for; undefined for a key that is not configured. */
  tenantsOf(credential: string): readonly string[] | undefined {
    return this.byKey.get(credential)?.tenants;
  }

  all(): KeyGrant[] {
    return [...this.byKey.values()];
  }
}

/**
 * One line per key for the start-up message, so that users learn the tenant of a bare key.
 * The key itself is shown by its first characters only: stderr ends up in CI logs.
 */
export function describeKeyGrants(grants: KeyGrants): string[] {
  return grants.all().map((grant) => {
    const shown = `${grant.key.slice(0, Math.min(4, Math.floor(grant.key.length / 2)))}…`;
    if (grant.tenants.length === 1) return `API key ${shown} acts for tenant ${grant.tenants[0]}`;
    return `API key ${shown} acts for tenants ${grant.tenants.join(", ")} (pick one with the tenant header)`;
  });
}
