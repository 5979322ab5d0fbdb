// `POST /v2/deployments/{id}/push-token` (service-facts, "Shipping an image"): a short-lived
// token to push an internal_container deployment's image, and where to push it. No body. The
// answer's registry_url is a host with a path prefix and no scheme, as the hosted service's:
// the emulator's registry, then `deployments/<id>`; clients push REGISTRY_URL/NAME:TAG.
import { type Core, tenantDeployment } from "../core.js";
import { HttpError, ok } from "../responses.js";
import type { Router } from "../router.js";
import { REPOSITORY_ROOT } from "./access.js";
import { issuePushToken, PUSH_TOKEN_LIFETIME_MS } from "./tokens.js";

/** `registryHost(origin)`: HOST:PORT of the registry as seen from where the client stands. */
export function addPushTokenRoute(
  router: Router,
  core: Core,
  registryHost: (origin: string) => string,
): void {
  router.add("POST", "/v2/deployments/{deployment_id}/push-token", (context) => {
    const deployment = tenantDeployment(core, context);
    if (deployment.source !== "internal_container") {
      // The hosted service's words (its public clients look for them).
      throw new HttpError(
        400,
        `Push tokens are only available for 'internal_container' source deployments; deployment ${deployment.id} has source '${deployment.source}'.`,
      );
    }
    const token = issuePushToken(core.store.signingKey, {
      tenant_id: deployment.tenant_id,
      deployment_id: deployment.id,
      expires_at: context.now + PUSH_TOKEN_LIFETIME_MS,
    });
    return ok({ token, registry_url: `${registryHost(context.origin)}/${REPOSITORY_ROOT}/${deployment.id}` });
  });
}
