// Authentication (spec 5 and service-facts): any one of an API key (`X-Api-Key`), a tenant
// ID header (name configurable, `X-Tenant-Id` by default) or a bearer token. The answer is
// the tenant the request acts for; tenants never see each other's deployments.
//
// Two modes:
// - keys configured (`--api-key`): only those keys or tokens, each acting for the tenants it
//   was granted (key-grants.ts). The tenant header picks one of them; a tenant outside the
//   grant is a 403, and so is a missing header when the key has several tenants (the hosted
//   service's "requires workspace specification").
// - no keys (the default, for local use): any non-empty key or token, acting for its own
//   derived tenant, or for the tenant the header names. Nothing was configured to say who
//   may act for whom, so every key may name any tenant, as an organisation-scoped key does;
//   what is kept is that every answer stays within the one tenant the request acts for.
//   Keys starting with `org_` stand for organisation-scoped keys and need the header.
import type { IncomingHttpHeaders } from "node:http";
import { DEFAULT_TENANT_HEADER, isUuid } from "../../model/enums.js";
import { HttpError } from "../responses.js";
import { type KeyGrants, tenantIdForCredential } from "./key-grants.js";

export { tenantIdForCredential } from "./key-grants.js";

export { DEFAULT_TENANT_HEADER };

/** Keys with this prefix belong to an organisation, not a workspace: they need a tenant header. */
const ORG_KEY_PREFIX = "org_";

/** The words the hosted service's 403 carries (its public client looks for them). */
export const WORKSPACE_REQUIRED = "requires workspace specification";

export interface AuthConfig {
  /** The only keys/tokens accepted and their tenants; null: any non-empty one. */
  grants: KeyGrants | null;
  /** As the user spelled it, for messages. */
  tenantHeader: string;
}

/** Returns the tenant ID (lower case), or throws the 400/401/403 the service would answer. */
export function authenticate(headers: IncomingHttpHeaders, config: AuthConfig): string {
  const apiKey = headerValue(headers["x-api-key"]);
  const tenantHeader = headerValue(headers[config.tenantHeader.toLowerCase()]);
  const authorization = headerValue(headers.authorization);

  // Another Authorization scheme (Basic, ...) is no credential here; it is only worth a
  // word when nothing else was sent.
  const bearerMatch = authorization === null ? null : /^Bearer\s+(\S.*)$/i.exec(authorization);
  const bearer = bearerMatch ? bearerMatch[1]!.trim() : null;

  if (apiKey === null && bearer === null && tenantHeader === null) {
    throw unauthenticated(
      config,
      authorization === null
        ? "no credentials were sent"
        : "the Authorization header must use the Bearer scheme (Authorization: Bearer <token>)",
    );
  }
  if (tenantHeader !== null && !isUuid(tenantHeader)) {
    throw new HttpError(
      400,
      `The ${config.tenantHeader} header must be a tenant ID (a UUID), not ${JSON.stringify(tenantHeader.slice(0, 60))}.`,
    );
  }
  const named = tenantHeader?.toLowerCase() ?? null;

  // The key decides who you are; with both sent, X-Api-Key is the one checked.
  const credential = apiKey ?? bearer;
  if (config.grants !== null) {
    if (credential === null) {
      throw unauthenticated(
        config,
        `a ${config.tenantHeader} header alone is not enough here: send an API key or token too`,
      );
    }
    const tenants = config.grants.tenantsOf(credential);
    if (!tenants) throw unauthenticated(config, "the API key or token is not valid");
    return grantedTenant(tenants, named, config);
  }

  if (credential?.startsWith(ORG_KEY_PREFIX) && named === null) {
    throw new HttpError(
      403,
      `This organisation-scoped API key ${WORKSPACE_REQUIRED}: send the workspace (tenant) ID in the ${config.tenantHeader} header.`,
    );
  }
  return named ?? tenantIdForCredential(credential!);
}

/** The tenant a configured key acts for: the one named, if granted; else its only one. */
function grantedTenant(tenants: readonly string[], named: string | null, config: AuthConfig): string {
  if (named !== null) {
    if (tenants.includes(named)) return named;
    throw new HttpError(403, `This API key or token may not act for tenant ${named}.`);
  }
  if (tenants.length === 1) return tenants[0]!;
  throw new HttpError(
    403,
    `This API key or token acts for several tenants, so it ${WORKSPACE_REQUIRED}: send the workspace (tenant) ID in the ${config.tenantHeader} header.`,
  );
}

/** An absent or blank header is no credential at all. */
function headerValue(value: string | string[] | undefined): string | null {
  const text = Array.isArray(value) ? value[0] : value;
  const trimmed = text?.trim();
  return trimmed ? trimmed : null;
}

function unauthenticated(config: AuthConfig, reason: string): HttpError {
  return new HttpError(
    401,
    `Not authenticated: ${reason}. Send one of: X-Api-Key: <API key>, ${config.tenantHeader}: <tenant ID>, Authorization: Bearer <token>.`,
    { "WWW-Authenticate": "Bearer" },
  );
}
