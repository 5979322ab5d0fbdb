// `<ID|NAME>` arguments: a UUID is used as it is; anything else is looked up as an exact
// name across all pages (CLI.md). No match: exit 4. More than one: exit 2, with the IDs.
import { allDeployments, getDeployment } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { NotFoundError, UsageError } from "../errors.js";
import { isUuid } from "../model/enums.js";
import type { DeploymentT } from "../model/responses.js";

/** The deployment's ID, fetching only what is needed to know it. */
export async function resolveDeploymentId(ctx: Ctx, ref: string): Promise<string> {
  refuseEmpty(ref);
  if (isUuid(ref)) return ref;
  return (await findByName(ctx, ref)).id;
}

/** The whole deployment, by ID or by name. */
export async function resolveDeployment(ctx: Ctx, ref: string): Promise<DeploymentT> {
  refuseEmpty(ref);
  if (isUuid(ref)) return getDeployment(await ctx.api(), ref);
  // The list already returns whole deployments: no second request.
  return findByName(ctx, ref);
}

/** `deploy get ""` (an unset shell variable, say) names nothing: a usage error, not "not found". */
function refuseEmpty(ref: string): void {
  if (ref.trim() === "")
    throw new UsageError("the deployment argument is empty: give a deployment ID or its exact name");
}

async function findByName(ctx: Ctx, name: string): Promise<DeploymentT> {
  const matches = await deploymentsNamed(ctx, name);
  if (matches.length === 0) {
    throw new NotFoundError(`no deployment named '${name}'`).withHint("List them with: cpctl deploy list");
  }
  if (matches.length > 1) {
    throw new UsageError(
      `${matches.length} deployments are named '${name}'; give one of their IDs instead: ${matches.map((d) => d.id).join(", ")}`,
    );
  }
  return matches[0]!;
}

/** Deployments with exactly this name (the server filter, re-checked: exact match only). */
export async function deploymentsNamed(ctx: Ctx, name: string): Promise<DeploymentT[]> {
  const matches: DeploymentT[] = [];
  for await (const page of allDeployments(await ctx.api(), { name })) {
    matches.push(...page.filter((d) => d.name === name));
  }
  return matches;
}
