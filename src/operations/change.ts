// A PATCH as every command sends it (patch, upload --patch, apply, push): the preview, the
// confirmation, a read right before the write, the write, and a read right after it.
//
// The API has no conditional update, so another writer can change the deployment between
// cpctl's read and its write, and the merged body (secrets, secret_references and
// resource_spec are sent whole) would undo that change without a word. cpctl narrows that
// window and reports what it cannot close:
// - it reads the deployment again immediately before the PATCH, once everything else is done
//   (files read, modules loaded, the question answered), and sends nothing when it moved
//   since the change was planned against it (exit 1, the fields named);
// - it reads it again right after, and says loudly (exit 1) when a change that came right
//   after undid part of this one, or when another revision was started between that last
//   read and this write (this one may then have undone part of that one).
// What remains: a change that lands in the one round trip between the last read and the
// PATCH and starts no revision goes unnoticed by this run, and is reported only by the other
// run's own check if that one comes after (docs/deployments.md, "Two changes at once").
import type { ApiClient } from "../api/client.js";
import { getDeployment, listRevisions, patchDeployment } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { InterruptedError, OperationError } from "../errors.js";
import { type Change, changesBetween } from "../model/changes.js";
import type { FieldIssue } from "../model/issue-path.js";
import type { PatchPlan } from "../model/plan.js";
import type { DeploymentT } from "../model/responses.js";
import { describeIssue } from "../model/validate.js";
import { ValidationError } from "../model/validation-error.js";
import { type FinishOptions, finishChange, type Showing } from "./after-change.js";
import { guardMutation } from "./confirm.js";
import { showPreview } from "./preview.js";
import { sendChange } from "./send-change.js";
import { stateCommand } from "./suggest.js";

interface SendOptions {
  dryRun?: boolean;
  /** The command showed (and confirmed) the change itself before work it did first (push's upload). */
  previewShown?: boolean;
  /** The command says what the patch did its own way (push's steps). */
  quiet?: boolean;
}

export type PatchOutcome =
  | { kind: "dry-run" }
  /** The plan changes nothing: nothing was sent. */
  | { kind: "unchanged"; deployment: DeploymentT }
  | {
      kind: "sent";
      /** The deployment as the PATCH answered it. */
      deployment: DeploymentT;
      started: boolean;
      /** Set when another change undid part of this one, or this one may have undone another's. */
      clash: OperationError | null;
    };

/** Previews, confirms and sends `plan`; prints nothing on stdout but a dry run's body. */
export async function sendPatch(
  ctx: Ctx,
  current: DeploymentT,
  plan: PatchPlan,
  options: SendOptions,
): Promise<PatchOutcome> {
  const printer = await ctx.printer();
  if (Object.keys(plan.body).length === 0) {
    ctx.log.info(
      `nothing to change: deployment ${current.name} already has what was asked; nothing was sent`,
    );
    if (!options.dryRun) return { kind: "unchanged", deployment: current };
    await printer.value({});
    return { kind: "dry-run" };
  }
  if (!options.previewShown) {
    await showPreview(ctx, {
      action: "patch",
      name: current.name,
      deploymentId: current.id,
      changes: plan.changes,
      triggers: plan.triggers,
      current,
    });
  }
  if (options.dryRun) {
    await printer.value(plan.body);
    ctx.log.info("dry run: nothing was sent");
    return { kind: "dry-run" };
  }
  const api = await ctx.api();
  await guardMutation(ctx, `patch deployment ${current.name}`);
  const before = await readBeforeWrite(api, current);
  const updated = await sendChange(ctx, { what: "patch", deploymentId: current.id }, () =>
    patchDeployment(api, current.id, plan.body),
  );
  const started = updated.latest_revision_id !== before.latest_revision_id;
  if (!options.quiet)
    ctx.log.info(
      started
        ? `patched ${updated.name}; new revision ${updated.latest_revision_id} started`
        : `patched ${updated.name}; no new revision (none of the changed fields needs one)`,
    );
  const clash = await checkAfterWrite(ctx, api, { before, updated, started, plan });
  return { kind: "sent", deployment: updated, started, clash };
}

/** How a command that says what its patch did its own way (push) follows it. */
export interface PatchShowing extends Showing {
  /** The patch was sent: before the wait. */
  sent(outcome: Extract<PatchOutcome, { kind: "sent" }>): Promise<void>;
}

/** sendPatch, then what every change does once sent: print the deployment, wait, report to CI. */
export async function patchAndFinish(
  ctx: Ctx,
  current: DeploymentT,
  plan: PatchPlan,
  options: FinishOptions & SendOptions,
  showing?: PatchShowing,
): Promise<void> {
  const outcome = await sendPatch(ctx, current, plan, options);
  if (outcome.kind === "dry-run") return;
  // Nothing sent: there was nothing to preview either. A clash: the revision may build
  // something other than what was asked, so no wait: the truth first.
  const sent = outcome.kind === "sent" ? outcome : null;
  if (sent) await showing?.sent(sent);
  const clash = sent?.clash ?? null;
  await finishChange(
    ctx,
    {
      deployment: outcome.deployment,
      kind: sent && (sent.started || clash) ? "started" : "unchanged",
      changes: sent ? plan.changes : [],
      activeBefore: current.active_revision_id,
    },
    clash ? { ...options, wait: false } : options,
    showing,
  );
  if (clash) throw clash;
}

/** A plan that did not validate, for a change made by cpctl itself (no file or flag to name). */
export function invalidPlan(issues: readonly FieldIssue[]): ValidationError {
  return new ValidationError(
    `the patch is not valid:\n${issues.map((issue) => `  ${describeIssue(issue)}`).join("\n")}`,
    [...issues],
  );
}

/** The deployment as it is now; a conflict (nothing sent) when it moved since `current` was read. */
async function readBeforeWrite(api: ApiClient, current: DeploymentT): Promise<DeploymentT> {
  const fresh = await getDeployment(api, current.id);
  const moved = changesBetween(current, fresh);
  if (moved.length === 0) return fresh;
  throw new OperationError(
    `deployment ${current.name} was changed by someone else since cpctl read it (${pathsOf(moved)}): nothing was sent`,
    "conflict",
  ).withHint("Run the command again to see the changes against its new state.");
}

interface Written {
  /** The deployment as read right before the PATCH. */
  before: DeploymentT;
  /** As the PATCH answered it. */
  updated: DeploymentT;
  started: boolean;
  plan: PatchPlan;
}

/**
 * Reads the deployment (and its newest revisions) right after the PATCH: a change that came
 * after it and undid part of it, or a revision started between the last read and the PATCH,
 * is a clash to report. A check that cannot be made is a warning, not a failure.
 */
async function checkAfterWrite(ctx: Ctx, api: ApiClient, written: Written): Promise<OperationError | null> {
  const { before, updated, started, plan } = written;
  let now: DeploymentT;
  let between: string[];
  try {
    [now, between] = await Promise.all([
      getDeployment(api, updated.id),
      revisionsBetween(api, before, updated, started),
    ]);
  } catch (error) {
    if (!(error instanceof InterruptedError)) {
      ctx.log.warn(
        `could not check that no other change overwrote this patch (${(error as Error).message.split("\n")[0]})`,
      );
    }
    return null;
  }
  // Both sides as the server shows them, so that values it hides compare equal.
  const later = changesBetween(updated, now);
  const named = new Set(plan.changes.map((change) => change.path));
  const undone = later.filter((change) => named.has(change.path) || isUnder(change, named));
  const others = later.filter((change) => !undone.includes(change));
  const look = `See its state with: ${await stateCommand(ctx, updated.id)}`;
  if (undone.length > 0) {
    return new OperationError(
      `another change to deployment ${updated.name} came right after this patch and undid part of it: ${pathsOf(undone)}`,
      "conflict",
    )
      .withHint("Run the command again once the other change is done.")
      .withHint(look);
  }
  // Only what a PATCH replaces whole can undo another change; its other fields are its own.
  if (between.length > 0 && sentWhole(plan) !== null) {
    return new OperationError(
      `another change started revision ${between.join(", ")} of deployment ${updated.name} between cpctl's last read and this patch, which sent ${sentWhole(plan)} as cpctl had read them: that change may have been undone`,
      "conflict",
    ).withHint(look);
  }
  if (others.length > 0) {
    ctx.log.warn(
      `another change to deployment ${updated.name} came right after this patch and kept it: ${pathsOf(others)}`,
    );
  }
  return null;
}

/**
 * IDs of revisions started by someone else between `before` and the PATCH: those newer than
 * the revision `before` names and older than this patch's own (or, when the patch started
 * none, any newer than `before`'s).
 */
async function revisionsBetween(
  api: ApiClient,
  before: DeploymentT,
  updated: DeploymentT,
  started: boolean,
): Promise<string[]> {
  if (!started) {
    return updated.latest_revision_id !== before.latest_revision_id && updated.latest_revision_id
      ? [updated.latest_revision_id]
      : [];
  }
  const { resources } = await listRevisions(api, updated.id, { limit: 10 });
  const ids = resources.map((revision) => revision.id);
  const ours = ids.indexOf(updated.latest_revision_id ?? "");
  const previous = before.latest_revision_id ? ids.indexOf(before.latest_revision_id) : ids.length;
  if (ours < 0 || previous < 0) return [];
  return ids.slice(ours + 1, previous);
}

/** What a PATCH body replaces whole, as the message names it; null when it replaces nothing whole. */
function sentWhole(plan: PatchPlan): string | null {
  const whole: string[] = [];
  if (plan.body.secrets) whole.push("every secret");
  if (plan.body.secret_references) whole.push("every secret reference");
  if (plan.body.source_config?.resource_spec) whole.push("the whole resource_spec");
  return whole.length > 0 ? whole.join(", ") : null;
}

/** A change below one the patch named (a label of a named resource_spec map, say). */
function isUnder(change: Change, named: ReadonlySet<string>): boolean {
  for (const path of named) if (change.path.startsWith(`${path}.`)) return true;
  return false;
}

function pathsOf(changes: readonly Change[]): string {
  return changes.map((change) => change.path).join(", ");
}
