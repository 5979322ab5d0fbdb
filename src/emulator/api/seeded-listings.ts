// Listeners (`GET /v2/listeners`) and git integrations (the two `/v1/integrations/...`
// listings): seeded per tenant (store/seed.ts), read-only, authenticated like everything else.
import { ok } from "../responses.js";
import { altGitIntegrationsFor, gitIntegrationsFor, listenersFor } from "../store/seed.js";
import type { Core } from "./handler-parts.js";
import { parseListenerPage } from "./query.js";
import type { Router } from "./router.js";

export function addListingRoutes(router: Router, _core: Core): void {
  router.add("GET", "/v2/listeners", (context) => {
    const tenantId = context.tenant();
    const { limit, offset } = parseListenerPage(context.query);
    const resources = listenersFor(tenantId).slice(offset, offset + limit);
    return ok({ resources, offset: offset + resources.length });
  });

  router.add("GET", "/v1/integrations/gitrepo/install", (context) =>
    ok(gitIntegrationsFor(context.tenant())),
  );

  router.add("GET", "/v1/integrations/alt/gitrepo/install", (context) =>
    ok(altGitIntegrationsFor(context.tenant())),
  );
}
