// Listeners (`GET /v2/listeners`) and git integrations (the two `/v1/integrations/...`
// listings): seeded per tenant (seed.ts), read-only, authenticated like everything else.
import type { Core } from "./core.js";
import { parseListenerPage } from "./query.js";
import { ok } from "./responses.js";
import type { Router } from "./router.js";
import { altGitIntegrationsFor, gitIntegrationsFor, listenersFor } from "./seed.js";

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
