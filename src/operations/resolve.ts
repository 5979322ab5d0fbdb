// `<ID|NAME>` arguments, and the IDs of flags: a UUID is used as it is; anything else is
// looked up as an exact name across all pages (CLI.md). No match: exit 4. More than one:
// exit 2, with the IDs.
//
// An ID's first 8 characters or more (what a narrow table shows, `0f0f0f03…`) stand for it
// wherever an ID is taken: a deployment, a revision (--revision, --to), an integration or a
// listener (--integration-id, --listener-id: id-flags.ts). The API has no prefix filter, so
// a prefix costs one listing of all of them (a request per 100: `deploy list --all`'s cost),
// and only when no whole ID is given; a name wins over a prefix (it is looked for in the
// same listing). Several matches: exit 2, listing them.
import { allDeployments, allRevisions, getDeployment, listDeployments } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { NotFoundError, UsageError } from "../errors.js";
import { BULK_DELETE_MAX, isIdPrefix, isUuid, MIN_ID_PREFIX } from "../model/enums.js";
import type { DeploymentT } from "../model/responses.js";
import { secretValuesOf } from "../secrets.js";
import { single } from "./one-match.js";

/** The deployment's ID, fetching only what is needed to know it. */
export async function resolveDeploymentId(ctx: Ctx, ref: string): Promise<string> {
  refuseEmpty(ref);
  if (isUuid(ref)) return ref;
  return known(ctx, await findByNameOrPrefix(ctx, ref)).id;
}

/** The whole deployment, by ID, name or ID prefix. */
export async function resolveDeployment(ctx: Ctx, ref: string): Promise<DeploymentT> {
  refuseEmpty(ref);
  if (isUuid(ref)) return known(ctx, await getDeployment(await ctx.api(), ref));
  // The list already returns whole deployments: no second request.
  return known(ctx, await findByNameOrPrefix(ctx, ref));
}

/**
 * Several deployments, each by ID, name or ID prefix, in the order given (one named twice
 * comes once). Every reference is looked up before any is used: the unknown ones are named
 * together in one NotFoundError (exit 4). Whole IDs are read with the list's deployment_ids
 * filter, 100 a request, rather than one GET each.
 */
export async function resolveDeployments(ctx: Ctx, refs: readonly string[]): Promise<DeploymentT[]> {
  for (const ref of refs) refuseEmpty(ref);
  const byId = new Map<string, DeploymentT>();
  const ids = [...new Set(refs.filter(isUuid).map((ref) => ref.toLowerCase()))];
  for (let at = 0; at < ids.length; at += BULK_DELETE_MAX) {
    const chunk = ids.slice(at, at + BULK_DELETE_MAX);
    const page = await listDeployments(
      await ctx.api(),
      { deployment_ids: chunk.join(",") },
      { limit: BULK_DELETE_MAX },
    );
    for (const deployment of page.resources) byId.set(deployment.id.toLowerCase(), deployment);
  }
  const found = new Map<string, DeploymentT>();
  const unknown: string[] = [];
  for (const ref of refs) {
    let deployment: DeploymentT | undefined;
    if (isUuid(ref)) deployment = byId.get(ref.toLowerCase());
    else {
      try {
        deployment = await findByNameOrPrefix(ctx, ref);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
    }
    if (deployment) found.set(deployment.id, known(ctx, deployment));
    else unknown.push(ref);
  }
  if (unknown.length > 0) {
    const quoted = unknown.map((ref) => `'${ref}'`).join(", ");
    const error = new NotFoundError(
      unknown.length === 1
        ? `no deployment has the ID, name or ID prefix ${quoted}`
        : `no deployment has these IDs, names or ID prefixes: ${quoted}`,
    ).withHint("List them with: cpctl deploy list");
    error.details = { not_found: unknown };
    throw error;
  }
  return [...found.values()];
}

/** A deployment this run has read: its secret values are masked in every log line and message. */
function known(ctx: Ctx, deployment: DeploymentT): DeploymentT {
  for (const value of secretValuesOf(deployment)) ctx.rememberSecret(value);
  return deployment;
}

/** `deploy get ""` (an unset shell variable, say) names nothing: a usage error, not "not found". */
function refuseEmpty(ref: string): void {
  if (ref.trim() === "")
    throw new UsageError("the deployment argument is empty: give a deployment ID or its exact name");
}

async function findByNameOrPrefix(ctx: Ctx, ref: string): Promise<DeploymentT> {
  const prefix = isIdPrefix(ref);
  // A name that looks like an ID prefix is found in the same listing a prefix needs.
  const named = prefix ? [] : await deploymentsNamed(ctx, ref);
  const byPrefix: DeploymentT[] = [];
  if (prefix) {
    const wanted = ref.toLowerCase();
    for await (const page of allDeployments(await ctx.api(), {})) {
      for (const deployment of page) {
        if (deployment.name === ref) named.push(deployment);
        else if (deployment.id.toLowerCase().startsWith(wanted)) byPrefix.push(deployment);
      }
    }
  }
  if (named.length > 1) {
    throw new UsageError(
      `${named.length} deployments are named '${ref}'; give one of their IDs instead: ${named.map((d) => d.id).join(", ")}`,
    );
  }
  if (named.length === 1) return named[0]!;
  return single(
    "deployment",
    ref,
    byPrefix,
    (d) => `${d.id} (${d.name})`,
    () =>
      new NotFoundError(
        prefix
          ? `no deployment named '${ref}' or with an ID that starts with it`
          : `no deployment named '${ref}'`,
      ).withHint(
        /^[0-9a-f-]+$/i.test(ref) && ref.length < MIN_ID_PREFIX
          ? `An ID prefix needs at least ${MIN_ID_PREFIX} characters. List them with: cpctl deploy list`
          : "List them with: cpctl deploy list",
      ),
  );
}

/** Deployments with exactly this name (the server filter, re-checked: exact match only). */
export async function deploymentsNamed(ctx: Ctx, name: string): Promise<DeploymentT[]> {
  const matches: DeploymentT[] = [];
  for await (const page of allDeployments(await ctx.api(), { name })) {
    matches.push(...page.filter((d) => d.name === name));
  }
  return matches;
}

/** A revision of the deployment, by ID or ID prefix (the parser let nothing else through). */
export async function resolveRevisionId(ctx: Ctx, deploymentId: string, ref: string): Promise<string> {
  if (isUuid(ref)) return ref;
  const wanted = ref.toLowerCase();
  const matches: string[] = [];
  for await (const page of allRevisions(await ctx.api(), deploymentId))
    for (const revision of page) if (revision.id.toLowerCase().startsWith(wanted)) matches.push(revision.id);
  return single(
    "revision",
    ref,
    matches,
    (id) => id,
    () =>
      new NotFoundError(
        `no revision of deployment ${deploymentId} has an ID that starts with '${ref}'`,
      ).withHint(`List them with: cpctl deploy revisions ${deploymentId}`),
  );
}
