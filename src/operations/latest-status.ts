// What became of each deployment's latest revision when it is not the active one: a
// deployment stays READY on its old revision while a newer one fails, and a list that showed
// only READY would hide that. One GET per such deployment (most have none), a few at a time.
import { getRevision } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import type { DeploymentT } from "../model/responses.js";

const AT_ONCE = 4;

/** Deployment ID -> the latest revision's status, for deployments whose latest is not active. */
export async function latestRevisionStatuses(
  ctx: Ctx,
  deployments: readonly DeploymentT[],
): Promise<Map<string, string>> {
  const pending = deployments.filter(
    (d) => d.latest_revision_id && d.latest_revision_id !== d.active_revision_id,
  );
  const statuses = new Map<string, string>();
  if (pending.length === 0) return statuses;
  const api = await ctx.api();
  let next = 0;
  const worker = async () => {
    while (next < pending.length) {
      const deployment = pending[next++]!;
      try {
        statuses.set(
          deployment.id,
          (await getRevision(api, deployment.id, deployment.latest_revision_id!)).status,
        );
      } catch (error) {
        // A revision that cannot be read is not worth failing the list for.
        statuses.set(deployment.id, "unknown");
        ctx.log.debug(`latest revision of ${deployment.name}: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, pending.length) }, worker));
  return statuses;
}
