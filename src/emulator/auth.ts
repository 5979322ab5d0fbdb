// Authentication (spec 5 and service-facts): any one of an API key (`X-Api-Key`), a tenant
// ID header (name configurable, `X-Tenant-Id` by default) or a bearer token. The answer is
// the tenant the request acts for; tenants never see each other's deployments.
import type { IncomingHttpHeaders } from "node:http";
import { isUuid } from "../model/enums.js";
import { stableUuid } from "./ids.js";
import { HttpError } from "./responses.js";

export const DEFAULT_TENANT_HEADER = "X-Tenant-Id";

/** Keys with this prefix belong to an organisation, not a workspace: they need a tenant header. */
const ORG_KEY_PREFIX = "org_";

export interface AuthConfig {
  /** The only keys/tokens accepted; null: any non-empty one. */
  apiKeys: ReadonlySet<string> | null;
  /** As the user spelled it, for messages. */
  tenantHeader: string;
}

const tenantCache = new Map<string, string>();

/**
 * The tenant a key or token stands for when no tenant header is sent: a hash, so the same
 * key always lands in the same tenant (also across restarts) without any registration.
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

  // The key decides who you are; with both sent, X-Api-Key is the one checked.
  const credential = apiKey ?? bearer;
  if (config.apiKeys !== null) {
    if (credential === null) {
      throw unauthenticated(
        config,
        `a ${config.tenantHeader} header alone is not enough here: send an API key or token too`,
      );
    }
    if (!config.apiKeys.has(credential)) throw unauthenticated(config, "the API key or token is not valid");
  }

  if (credential?.startsWith(ORG_KEY_PREFIX) && tenantHeader === null) {
    throw new HttpError(
      403,
      `This organisation-scoped API key requires the ${config.tenantHeader} header: send the workspace (tenant) ID in it.`,
    );
  }
  return tenantHeader !== null ? tenantHeader.toLowerCase() : tenantIdForCredential(credential!);
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
