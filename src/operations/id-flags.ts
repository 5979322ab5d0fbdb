// --integration-id and --listener-id given as an ID's first 8 characters or more (resolve.ts
// says why and what it costs): replaced by the whole ID before the body is built. The API
// module is loaded only then, so that `create --dry-run` with whole IDs loads none.
import type { Ctx } from "../context.js";
import { NotFoundError } from "../errors.js";
import { isUuid } from "../model/enums.js";
import { single } from "./one-match.js";

/** Replaces (in `options`) a prefix by the whole ID of the one integration (of either listing) or listener it starts. */
export async function resolveIdFlags(
  ctx: Ctx,
  options: { integrationId?: string; listenerId?: string },
): Promise<void> {
  const { integrationId, listenerId } = options;
  const prefixed = (value: unknown): value is string => typeof value === "string" && !isUuid(value);
  if (!prefixed(integrationId) && !prefixed(listenerId)) return;
  const [{ listIntegrations, listListeners }, api] = await Promise.all([
    import("../api/endpoints.js"),
    ctx.api(),
  ]);
  if (prefixed(integrationId)) {
    const lists = await Promise.all([listIntegrations(api, false), listIntegrations(api, true)]);
    const ids = [...new Set(lists.flat().map((integration) => integration.id))];
    options.integrationId = matchPrefix("integration", integrationId, ids, "cpctl integrations list");
  }
  if (prefixed(listenerId)) {
    const ids = (await listListeners(api)).map((listener) => listener.id);
    options.listenerId = matchPrefix("listener", listenerId, ids, "cpctl listeners list");
  }
}

function matchPrefix(what: string, ref: string, ids: string[], list: string): string {
  const wanted = ref.toLowerCase();
  return single(
    what,
    ref,
    ids.filter((id) => id.toLowerCase().startsWith(wanted)),
    (id) => id,
    () =>
      new NotFoundError(`no ${what} has an ID that starts with '${ref}'`).withHint(`List them with: ${list}`),
  );
}
