// Push tokens: what `POST /v2/deployments/{id}/push-token` hands out and the registry takes
// as a password (user `oauth2accesstoken`) or a bearer token. Self-contained and signed, like
// the upload URLs: `cpr1.<claims>.<HMAC>`, the claims (tenant, deployment, expiry) in
// base64url JSON, the HMAC keyed with the state's signing key. So nothing is stored per token,
// a token issued before a restart still works after it, and a reset (new key) voids them all.
// They expire on the emulator's clock, so tests move time instead of waiting.
import { timingSafeEqual } from "node:crypto";
import { sign } from "../ids.js";

/** How long a push token is accepted: an hour, as an OAuth2 access token of a cloud registry. */
export const PUSH_TOKEN_LIFETIME_MS = 60 * 60 * 1000;

const PREFIX = "cpr1";

export interface PushTokenClaims {
  tenant_id: string;
  deployment_id: string;
  /** Emulator-clock milliseconds. */
  expires_at: number;
}

export function issuePushToken(key: string, claims: PushTokenClaims): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
  return `${PREFIX}.${payload}.${sign(key, `${PREFIX}.${payload}`)}`;
}

/** The claims of a token this emulator signed; null for anything else (expiry is the caller's to check). */
export function readPushToken(key: string, token: string): PushTokenClaims | null {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== PREFIX) return null;
  const expected = Buffer.from(sign(key, `${PREFIX}.${parts[1]}`));
  const given = Buffer.from(parts[2]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as PushTokenClaims;
    if (
      typeof claims.tenant_id !== "string" ||
      typeof claims.deployment_id !== "string" ||
      typeof claims.expires_at !== "number"
    )
      return null;
    return claims;
  } catch {
    return null;
  }
}
