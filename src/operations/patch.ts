// A PATCH as every command sends it (patch, apply, upload --patch): plan it against the
// deployment as just read, show the preview, confirm, send, say whether a revision started,
// then print (and wait).
//
// The API has no conditional update, so another writer can change the deployment between
// cpctl's read and its write, and the merged body would undo that change. cpctl keeps the
// window as short as one GET: the read comes right before the write, and when the user took
// time to answer a confirmation, the deployment is read again and the change stops if it
// moved in the meantime.
import { getDeployment, patchDeployment } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { OperationError } from "../errors.js";
import type { Change } from "../model/changes.js";
import { sameValue } from "../model/merge.js";
import type { DeploymentT } from "../model/responses.js";
import { revisionTriggers } from "../model/rules.js";
import type { PatchRequest } from "../model/schemas.js";
import { type FinishOptions, finishChange } from "./after-change.js";
import { guardMutation } from "./confirm.js";
import { showPreview } from "./preview.js";
import { sendChange } from "./uncertain.js";

export interface PlannedPatch {
  body: PatchRequest;
  /** What the body does to the deployment, for the preview. */
  changes: Change[];
}

interface PatchOptions extends FinishOptions {
  dryRun?: boolean;
}

export async function patchWithPreview(
  ctx: Ctx,
  current: DeploymentT,
  plan: PlannedPatch,
  options: PatchOptions,
): Promise<void> {
  const printer = await ctx.printer();
  const triggers = revisionTriggers(plan.body);
  if (Object.keys(plan.body).length === 0) {
    ctx.log.info(
      `nothing to change: deployment ${current.name} already has what was asked; nothing was sent`,
    );
    if (options.dryRun) return printer.value({});
    return finishChange(ctx, current, options, "unchanged");
  }
  await showPreview(ctx, {
    action: "patch",
    name: current.name,
    deploymentId: current.id,
    changes: plan.changes,
    triggers,
  });
  if (options.dryRun) {
    await printer.value(plan.body);
    ctx.log.info("dry run: nothing was sent");
    return;
  }
  const api = await ctx.api();
  if (await guardMutation(ctx, `patch deployment ${current.name}`)) {
    const fresh = await getDeployment(api, current.id);
    if (!sameValue(changeable(fresh), changeable(current))) {
      throw new OperationError(
        `deployment ${current.name} was changed by someone else while you were answering: nothing was sent`,
        "conflict",
      ).withHint("Run the command again to see the changes against its new state.");
    }
  }
  const updated = await sendChange(ctx, { what: "patch", deploymentId: current.id }, () =>
    patchDeployment(api, current.id, plan.body),
  );
  const started = updated.latest_revision_id !== current.latest_revision_id;
  ctx.log.info(
    started
      ? `patched ${updated.name}; new revision ${updated.latest_revision_id} started`
      : `patched ${updated.name}; no new revision (none of the changed fields needs one)`,
  );
  await finishChange(ctx, updated, options, started ? "started" : "unchanged");
}

/** What a PATCH can change: a difference here is a change another writer made. */
function changeable(deployment: DeploymentT) {
  const { source_config, source_revision_config, secrets, secret_references } = deployment;
  return { source_config, source_revision_config, secrets, secret_references };
}
