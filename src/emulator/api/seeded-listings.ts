// Git integrations (the two `/v1/integrations/...` listings) and the repositories each reaches:
// seeded per tenant (store/seed.ts), read-only, authenticated like everything else. (The
// seeded listeners can be changed: listeners.ts.)
import { HttpError, ok } from "../responses.js";
import { altGitIntegrationsFor, gitIntegrationsFor, repositoriesFor } from "../store/seed.js";
import { type Core, uuidParam } from "./handler-parts.js";
import type { Router } from "./router.js";

export function addListingRoutes(router: Router, _core: Core): void {
  router.add("GET", "/v1/integrations/gitrepo/install", (context) =>
    ok(gitIntegrationsFor(context.tenant())),
  );

  router.add("GET", "/v1/integrations/alt/gitrepo/install", (context) =>
    ok(altGitIntegrationsFor(context.tenant())),
  );

  for (const alt of [false, true]) {
    router.add("GET", `/v1/integrations${alt ? "/alt" : ""}/gitrepo/{integration_id}/repos`, (context) => {
      const tenantId = context.tenant();
      const id = uuidParam(context, "integration_id");
      const repositories = repositoriesFor(tenantId, id, alt);
      if (!repositories) throw new HttpError(404, `Integration ID ${id} not found.`);
      return ok(repositories);
    });
  }
}
