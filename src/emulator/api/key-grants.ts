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

/** A configured key and where it was first given (1-based), for the start-up message. */
interface PlacedGrant extends KeyGrant {
  place: number;
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
  private readonly byKey = new Map<string, PlacedGrant>();

  constructor(specs: readonly string[]) {
    specs.forEach((spec, i) => {
      const grant = parseKeyGrant(spec);
      if (typeof grant === "string") throw new Error(`--api-key ${grant}`);
      const known = this.byKey.get(grant.key);
      if (!known) this.byKey.set(grant.key, { ...grant, place: i + 1 });
      else
        this.byKey.set(grant.key, {
          key: grant.key,
          tenants: [...new Set([...known.tenants, ...grant.tenants])],
          derived: known.derived && grant.derived,
          place: known.place,
        });
    });
  }

  /** The tenants this key may act for; undefined for a key that is not configured. */
  tenantsOf(credential: string): readonly string[] | undefined {
    return this.byKey.get(credential)?.tenants;
  }

  all(): PlacedGrant[] {
    return [...this.byKey.values()];
  }
}

/**
 * One line per key for the start-up message, so that users learn the tenant of a bare key.
 * A key is named by its place in the list it was given in (`source`: "--api-key" or the
 * variable), never by any part of it: stderr ends up in CI logs, and a few characters of a
 * short key are most of it.
 */
export function describeKeyGrants(grants: KeyGrants, source?: string): string[] {
  return grants.all().map((grant) => {
    const shown = `API key #${grant.place}${source ? ` of ${source}` : ""}`;
    if (grant.tenants.length === 1) return `${shown} acts for tenant ${grant.tenants[0]}`;
    return `${shown} acts for tenants ${grant.tenants.join(", ")} (pick one with the tenant header)`;
  });
}
