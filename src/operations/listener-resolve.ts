// `<listener>` arguments: a listener's ID, its compute ID (one listener's per tenant: the
// service answers 409 to a second), or its ID's first 8 characters or more. A UUID is read as
// an ID first (GET), and looked for as a compute ID only when no listener has that ID; anything
// else costs one listing of the tenant's listeners (they are few), where a compute ID wins
// over an ID prefix. No match: exit 4. Several: exit 2, listing them.
//
// And the deployments that use a listener (their source_config.listener_id): what `listeners
// update` and `delete` must not strand, since a deployment's listener and namespace are fixed
// at its creation.
import { allDeployments, getListener, listListeners } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { ApiError, NotFoundError, UsageError } from "../errors.js";
import { isIdPrefix, isUuid } from "../model/enums.js";
import type { DeploymentT, ListenerT } from "../model/responses.js";
import { single } from "./one-match.js";

export async function resolveListener(ctx: Ctx, ref: string): Promise<ListenerT> {
  if (ref.trim() === "")
    throw new UsageError("the listener argument is empty: give a listener's ID or its compute ID");
  const api = await ctx.api();
  if (isUuid(ref)) {
    try {
      return await getListener(api, ref);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
  }
  const listeners = await listListeners(api);
  const byComputeId = listeners.filter((l) => l.compute_id === ref);
  if (byComputeId.length > 0) {
    return single("listener", ref, byComputeId, (l) => `${l.id} (${l.compute_id})`, notFound(ref));
  }
  const wanted = ref.toLowerCase();
  const byPrefix = isIdPrefix(ref) ? listeners.filter((l) => l.id.toLowerCase().startsWith(wanted)) : [];
  return single("listener", ref, byPrefix, (l) => `${l.id} (${l.compute_id})`, notFound(ref));
}

function notFound(ref: string): () => NotFoundError {
  return () =>
    new NotFoundError(`no listener has the ID, compute ID or ID prefix '${ref}'`).withHint(
      "List them with: cpctl listeners list",
    );
}

/** The tenant's deployments on this listener (every page of the list). */
export async function deploymentsOnListener(ctx: Ctx, listenerId: string): Promise<DeploymentT[]> {
  const wanted = listenerId.toLowerCase();
  const found: DeploymentT[] = [];
  for await (const page of allDeployments(await ctx.api(), {})) {
    for (const deployment of page) {
      const id = deployment.source_config?.listener_id;
      if (typeof id === "string" && id.toLowerCase() === wanted) found.push(deployment);
    }
  }
  return found;
}

/** "api-a (ID), api-b (ID)": the deployments a message names, at most `limit` of them. */
export function namedDeployments(deployments: readonly DeploymentT[], limit = 10): string {
  const named = deployments.slice(0, limit).map((d) => `${d.name} (${d.id})`);
  const more = deployments.length > limit ? ` and ${deployments.length - limit} more` : "";
  return `${named.join(", ")}${more}`;
}
