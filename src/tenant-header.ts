// The tenant header's name (CPCTL_TENANT_HEADER, a profile's tenantHeader): one rule for the
// environment, the config files, `config set` and the HTTP client. It must be a header name,
// and not one that cpctl or HTTP itself sets: as `Authorization` or `X-Api-Key` the tenant ID
// would replace the credential, as `Host`, `Content-Length` or `Transfer-Encoding` it would
// change where the request goes or how it is framed. No imports: the client uses it too.

/** Headers the tenant ID may not be sent in (lower case). */
const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  "accept",
  "accept-encoding",
  "authorization",
  "connection",
  "content-encoding",
  "content-length",
  "content-type",
  "cookie",
  "expect",
  "forwarded",
  "host",
  "keep-alive",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "user-agent",
  "x-api-key",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
]);

/** What is wrong with `name` as the tenant header, or null. */
export function tenantHeaderProblem(name: string): string | null {
  if (!/^[A-Za-z0-9-]+$/.test(name)) return `'${name}' is not an HTTP header name (letters, digits, '-')`;
  if (RESERVED_HEADERS.has(name.toLowerCase()))
    return `'${name}' is a header cpctl or HTTP itself sets, not one for the tenant ID; use another name, e.g. X-Tenant-Id`;
  return null;
}
