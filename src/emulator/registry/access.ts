// Who may use the registry: the holder of an unexpired push token, on the repositories of its
// tenant's deployments. The way in is the one docker, podman, skopeo and containerd know
// (distribution's "token authentication"):
//
//   1. a request without credentials is answered 401 with
//      `WWW-Authenticate: Bearer realm="http://HOST:PORT/token",service="HOST:PORT"[,scope=...]`;
//   2. the client asks the realm for a token with HTTP Basic credentials (user
//      `oauth2accesstoken`, the push token as password): GET with an Authorization header, or
//      POST with an OAuth2 password grant form;
//   3. it sends what it got as `Authorization: Bearer ...` from then on.
//
// The bearer token handed out is the push token itself (it is signed and carries its expiry),
// and Basic credentials are taken on every endpoint too (for curl). A repository belongs to a
// deployment: `deployments/<deployment id>/...`, the prefix push-token's registry_url gives.
import type { IncomingHttpHeaders } from "node:http";
import { isUuid } from "../../model/enums.js";
import type { Core } from "../core.js";
import { RegistryError } from "./errors.js";
import { TOKEN_PATH } from "./paths.js";
import { type PushTokenClaims, readPushToken } from "./tokens.js";

/** The user name that goes with a push token, as with a cloud registry's access token. */
export const REGISTRY_USER = "oauth2accesstoken";

/** Repositories live under `deployments/<deployment id>/`. */
export const REPOSITORY_ROOT = "deployments";

export function repositoryPrefix(deploymentId: string): string {
  return `${REPOSITORY_ROOT}/${deploymentId}/`;
}

/** The deployment ID a repository name belongs to, or null when it is not under a deployment. */
export function repositoryDeployment(name: string): string | null {
  const [root, id, ...rest] = name.split("/");
  return root === REPOSITORY_ROOT && id !== undefined && isUuid(id) && rest.length > 0 ? id : null;
}

/** Where a client is sent for a token, and as what service (`origin`: http://HOST:PORT as addressed). */
export interface Challenge {
  origin: string;
  /** `repository:NAME:pull,push` when the request was about one. */
  scope: string | null;
}

export function challengeHeader(challenge: Challenge): string {
  const service = new URL(challenge.origin).host;
  const scope = challenge.scope ? `,scope="${challenge.scope}"` : "";
  return `Bearer realm="${challenge.origin}${TOKEN_PATH}",service="${service}"${scope}`;
}

/** The push token a request carries (Bearer, or Basic with oauth2accesstoken); a 401 when none is good. */
export function authenticate(
  core: Core,
  headers: IncomingHttpHeaders,
  now: number,
  challenge: Challenge,
): PushTokenClaims {
  const refuse = (message: string) =>
    new RegistryError(401, "UNAUTHORIZED", message, null, { "WWW-Authenticate": challengeHeader(challenge) });
  const authorization = headers.authorization?.trim() ?? "";
  let token: string | null = null;
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization);
  if (bearer) token = bearer[1]!;
  const basic = /^Basic\s+(\S+)$/i.exec(authorization);
  if (basic) {
    const credentials = basicCredentials(basic[1]!);
    if (credentials === null || credentials.user !== REGISTRY_USER) {
      throw refuse(`authentication required: log in with user ${REGISTRY_USER} and a push token as password`);
    }
    token = credentials.password;
  }
  if (token === null) {
    throw refuse(
      `authentication required: log in with user ${REGISTRY_USER} and a push token (POST /v2/deployments/{id}/push-token) as password`,
    );
  }
  return checkToken(core, token, now, refuse);
}

/** The token endpoint (step 2 above): Basic credentials or an OAuth2 password grant in, a bearer token out. */
export function issueBearer(
  core: Core,
  headers: IncomingHttpHeaders,
  form: URLSearchParams | null,
  now: number,
  origin: string,
): { token: string; access_token: string; expires_in: number; issued_at: string } {
  const refuse = (message: string) =>
    new RegistryError(401, "UNAUTHORIZED", message, null, {
      "WWW-Authenticate": `Basic realm="${origin}${TOKEN_PATH}"`,
    });
  let user: string | null = null;
  let password: string | null = null;
  const basic = /^Basic\s+(\S+)$/i.exec(headers.authorization?.trim() ?? "");
  if (basic) {
    const credentials = basicCredentials(basic[1]!);
    user = credentials?.user ?? null;
    password = credentials?.password ?? null;
  } else if (form?.get("grant_type") === "password") {
    user = form.get("username");
    password = form.get("password");
  }
  if (user === null || password === null) {
    throw refuse(`authentication required: user ${REGISTRY_USER} and a push token as password`);
  }
  if (user !== REGISTRY_USER) throw refuse(`incorrect username: use ${REGISTRY_USER} with a push token`);
  const claims = checkToken(core, password, now, refuse);
  return {
    token: password,
    access_token: password,
    expires_in: Math.max(1, Math.floor((claims.expires_at - now) / 1000)),
    issued_at: new Date(now).toISOString(),
  };
}

/** A 403 unless `repository` is under one of the token's tenant's deployments. */
export function authorize(core: Core, claims: PushTokenClaims, repository: string): void {
  const deploymentId = repositoryDeployment(repository);
  if (deploymentId === null || !core.store.find(claims.tenant_id, deploymentId)) {
    throw new RegistryError(
      403,
      "DENIED",
      `requested access to the resource is denied: ${repository} is not a repository of your deployments; push to the registry_url that POST /v2/deployments/{id}/push-token returned (${REPOSITORY_ROOT}/<deployment id>/NAME)`,
      { name: repository },
    );
  }
}

function checkToken(
  core: Core,
  token: string,
  now: number,
  refuse: (message: string) => RegistryError,
): PushTokenClaims {
  const claims = readPushToken(core.store.signingKey, token);
  if (!claims) {
    throw refuse("the credentials are not a push token of this emulator (or it was reset since)");
  }
  if (now >= claims.expires_at) {
    throw refuse(
      `the push token expired at ${new Date(claims.expires_at).toISOString()}: ask for a new one with POST /v2/deployments/${claims.deployment_id}/push-token`,
    );
  }
  if (!core.store.find(claims.tenant_id, claims.deployment_id)) {
    throw refuse(`the push token's deployment ${claims.deployment_id} no longer exists`);
  }
  return claims;
}

function basicCredentials(encoded: string): { user: string; password: string } | null {
  const text = Buffer.from(encoded, "base64").toString("utf8");
  const colon = text.indexOf(":");
  return colon < 0 ? null : { user: text.slice(0, colon), password: text.slice(colon + 1) };
}
