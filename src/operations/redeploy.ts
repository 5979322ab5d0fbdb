// Rollback and redeploy: a new revision from an existing revision's source_revision_config
// (POST .../revisions/{rid}/redeploy). Rollback picks an older good revision; redeploy retries
// the latest (or restarts a good one). Both go the way of every change: preview, confirmation,
// an honest word when the outcome is unknown, then print (and wait).
import { allRevisions, getDeployment, getRevision, redeployRevision } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { ApiError, NotFoundError, OperationError } from "../errors.js";
import { redeployChanges } from "../model/changes.js";
import { isTerminalRevisionStatus, REVISION_SUCCESS } from "../model/enums.js";
import { sameValue } from "../model/merge.js";
import type { DeploymentT, RevisionT } from "../model/responses.js";
import { deploymentView, revisionView } from "../output/views.js";
import { type FinishFlags, finishChange } from "./after-change.js";
import { guardMutation } from "./confirm.js";
import { showPreview } from "./preview.js";
import { resolveDeployment, resolveRevisionId } from "./resolve.js";
import { sendChange } from "./send-change.js";
import { suggestCommand } from "./suggest.js";

export interface RedeployOptions extends FinishFlags {
  dryRun?: boolean;
}

/** `deploy rollback`'s options: what its flags parse to (the command checks that they match). */
export type RollbackInput = RedeployOptions & { to?: string };

/**
 * `deploy rollback`: to `--to`, or to the newest good revision before the active one. When the
 * latest revision failed and never replaced the active one, the active one is already what
 * came before the failure: rolling back further would undo it, so nothing is changed (the
 * deployment is shown, and `--to` is how to go further back).
 */
export async function runRollback(ctx: Ctx, ref: string, options: RollbackInput): Promise<void> {
  const deployment = await resolveDeployment(ctx, ref);
  if (options.to) {
    const target = await revisionOf(ctx, deployment, options.to);
    return redeployWithPreview(ctx, deployment, target, { ...options, action: "Roll back" });
  }
  const failed = await latestFailedBehindActive(ctx, deployment);
  if (failed) {
    ctx.log.info(
      `nothing to roll back: the latest revision ${failed.id} ended ${failed.status} and never replaced revision ${deployment.active_revision_id}, which still serves; nothing was changed (--to REVISION rolls back further)`,
    );
    return (await ctx.printer()).item(deployment, deploymentView);
  }
  const target = await rollbackTarget(ctx, deployment);
  return redeployWithPreview(ctx, deployment, target, { ...options, action: "Roll back" });
}

/** The deployment's latest revision, when it failed while an older one is active; else null. */
async function latestFailedBehindActive(ctx: Ctx, deployment: DeploymentT): Promise<RevisionT | null> {
  const { latest_revision_id: latest, active_revision_id: active } = deployment;
  if (!latest || !active || latest === active) return null;
  const revision = await getRevision(await ctx.api(), deployment.id, latest);
  return isTerminalRevisionStatus(revision.status) && revision.status !== REVISION_SUCCESS ? revision : null;
}

/**
 * The newest DEPLOYED revision older than the active one: the last version that worked
 * before the one running now. Failed, skipped and interrupted revisions are passed over.
 */
export async function rollbackTarget(ctx: Ctx, deployment: DeploymentT): Promise<RevisionT> {
  const api = await ctx.api();
  const history = await suggestCommand(ctx, ["deploy", "revisions", deployment.id]);
  if (!deployment.active_revision_id) {
    throw new NotFoundError(
      `deployment ${deployment.name} has no active revision: nothing is deployed, so there is nothing to roll back from`,
    ).withHint(`See its revisions with: ${history}`);
  }
  // The service lists revisions newest first; that order, not created_at, says which is older,
  // since two revisions can carry the same timestamp.
  const newestFirst: RevisionT[] = [];
  for await (const page of allRevisions(api, deployment.id)) newestFirst.push(...page);
  const activeAt = newestFirst.findIndex((r) => r.id === deployment.active_revision_id);
  const active =
    newestFirst[activeAt] ?? (await getRevision(api, deployment.id, deployment.active_revision_id));
  const olderThanActive =
    activeAt >= 0
      ? newestFirst.slice(activeAt + 1)
      : newestFirst.filter((r) => r.created_at < active.created_at);
  // One that runs what the active one runs (a redeploy of it) would change nothing: passed over.
  const older = olderThanActive.filter(
    (r) =>
      r.status === REVISION_SUCCESS && !sameValue(r.source_revision_config, active.source_revision_config),
  );
  if (older.length === 0) {
    const error = new NotFoundError(
      `deployment ${deployment.name} has no DEPLOYED revision older than the active one (${active.id}) that runs something else: nothing to roll back to`,
    ).withHint(`See its revisions with: ${history}`);
    if (deployment.latest_revision_id && deployment.latest_revision_id !== active.id) {
      error.withHint(
        `The latest revision never replaced the active one, which still serves. To make the deployment's configuration the active revision's again: ${await suggestCommand(ctx, ["deploy", "rollback", deployment.id, "--to", active.id])}`,
      );
    }
    throw error;
  }
  return older[0]!;
}

/** One of the deployment's revisions by ID; exit 4 when it is not one of them. */
/** One of the deployment's revisions, by ID or ID prefix. */
export async function revisionOf(ctx: Ctx, deployment: DeploymentT, revisionRef: string): Promise<RevisionT> {
  const revisionId = await resolveRevisionId(ctx, deployment.id, revisionRef);
  try {
    return await getRevision(await ctx.api(), deployment.id, revisionId);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      throw new NotFoundError(
        `revision ${revisionId} is not one of deployment ${deployment.name}'s revisions`,
      ).withHint(`See them with: ${await suggestCommand(ctx, ["deploy", "revisions", deployment.id])}`);
    }
    throw error;
  }
}

export async function redeployWithPreview(
  ctx: Ctx,
  deployment: DeploymentT,
  target: RevisionT,
  options: RedeployOptions & { action: string },
): Promise<void> {
  const when = target.created_at.replace("T", " ").replace(/\.\d+Z$/, "Z");
  const changes = redeployChanges(deployment, target);
  await showPreview(ctx, {
    action: "redeploy",
    name: deployment.name,
    deploymentId: deployment.id,
    changes,
    triggers: [],
    headline: `${options.action} deployment ${deployment.name}: a new revision from revision ${target.id} (${target.status}, created ${when})`,
    current: deployment,
  });
  if (options.dryRun) {
    await (await ctx.printer()).item(target, revisionView);
    ctx.log.info("dry run: nothing was sent");
    return;
  }
  const api = await ctx.api();
  if (
    await guardMutation(
      ctx,
      `${options.action.toLowerCase()} deployment ${deployment.name} to revision ${target.id}`,
    )
  ) {
    const fresh = await getDeployment(api, deployment.id);
    if (fresh.latest_revision_id !== deployment.latest_revision_id) {
      throw new OperationError(
        `deployment ${deployment.name} got a new revision while you were answering: nothing was sent`,
        "conflict",
      ).withHint("Run the command again to see what it would do now.");
    }
  }
  const updated = await sendChange(ctx, { what: "redeploy", deploymentId: deployment.id }, () =>
    redeployRevision(api, deployment.id, target.id),
  );
  ctx.log.info(
    `new revision ${updated.latest_revision_id} of ${updated.name} started from revision ${target.id}`,
  );
  await finishChange(
    ctx,
    { deployment: updated, kind: "started", changes, activeBefore: deployment.active_revision_id },
    options,
  );
}
