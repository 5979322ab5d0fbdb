// Who may use the emulator-wide controls (clock, faults, stats, reset): they change what
// every tenant sees, so no tenant's key is enough for them. Without --api-key the emulator
// trusts whoever reaches it (cross-site.ts keeps web pages out) and they need nothing; with
// a control token (--control-token) they need that token; with keys but no token they are
// refused, since handing any tenant's key the power to wipe every tenant would undo the
// binding of keys to tenants. The controls that touch a tenant's deployments are not here:
// they authenticate as the API does and stay within the caller's tenant.
import { timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { HttpError } from "../responses.js";

export const CONTROL_TOKEN_HEADER = "X-Control-Token";

export interface ControlAuthConfig {
  /** The token the emulator-wide controls require; null: see `keyed`. */
  token: string | null;
  /** True when API keys are configured (`--api-key`). */
  keyed: boolean;
}

/** Throws the 401/403 for a request that may not use an emulator-wide control. */
export function checkOperator(headers: IncomingHttpHeaders, config: ControlAuthConfig): void {
  if (config.token === null) {
    if (!config.keyed) return;
    throw new HttpError(
      403,
      `With --api-key, the emulator-wide controls (clock, faults, stats, reset) need a control token: start the emulator with --control-token TOKEN and send it in the ${CONTROL_TOKEN_HEADER} header.`,
    );
  }
  const raw = headers[CONTROL_TOKEN_HEADER.toLowerCase()];
  const given = Buffer.from((Array.isArray(raw) ? raw[0] : raw)?.trim() ?? "");
  const expected = Buffer.from(config.token);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new HttpError(
      401,
      `This control needs the emulator's control token: send it in the ${CONTROL_TOKEN_HEADER} header.`,
    );
  }
}
