// A release after its wait (CLI.md "Releases"): the revision verified (verify.ts), and, with
// --rollback-on-failure, the way back when it is unverified or failed after it had replaced
// the active one. The rollback goes only to the revision that was active before the change,
// never any other, and only when the new one replaced it: a failed build replaces nothing, and
// then there is nothing to roll back (said). The rollback's revision is waited for and verified
// the same way, and both are reported.
import { redeployRevision } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { InterruptedError } from "../errors.js";
import type { DeploymentT } from "../model/responses.js";
import type { WaitVerdict } from "../wait/poll.js";
import { readAgain } from "./read-again.js";
import { sendChange } from "./send-change.js";
import { suggestCommand } from "./suggest.js";
import { type ReleaseFlags, type Verification, verifies, verifyRelease } from "./verify.js";
import { type WaitEvents, type WaitFlags, waitForRevision } from "./wait.js";

/** `rollback` in the JSON: the revision the rollback started, its status, and how it ended. */
export interface RollbackReport {
  revision_id: string;
  status: string | null;
  /** deployed, failed, timed_out or interrupted; verified or unverified when verified. */
  result: string;
}

export interface ReleaseOutcome {
  /** The deployment as it is at the end (after a rollback: as the rollback left it). */
  deployment: DeploymentT;
  verification: Verification | null;
  rollback: RollbackReport | null;
}

interface Released {
  /** The deployment as read after the wait. */
  deployment: DeploymentT;
  verdict: WaitVerdict;
  /** The revision that was active before the change; null when none was (a new deployment). */
  activeBefore: string | null;
}

export async function checkRelease(
  ctx: Ctx,
  released: Released,
  flags: ReleaseFlags & WaitFlags,
  events?: WaitEvents,
): Promise<ReleaseOutcome> {
  const { deployment, verdict } = released;
  const verification =
    verdict.result === "deployed" && verifies(flags)
      ? await verifyRelease(ctx, deployment, verdict.revision_id, flags)
      : null;
  const wentWrong = verification?.result === "unverified" || verdict.result === "failed";
  if (!flags.rollbackOnFailure || !wentWrong) return { deployment, verification, rollback: null };

  const revisionId = verdict.revision_id;
  const before = released.activeBefore;
  if (before === null || before === revisionId) {
    ctx.log.warn(
      `nothing to roll back to: no revision of ${deployment.name} was active before revision ${revisionId}`,
    );
    return { deployment, verification, rollback: null };
  }
  if (deployment.active_revision_id !== revisionId) {
    ctx.log.info(
      `nothing to roll back: revision ${revisionId} never replaced revision ${deployment.active_revision_id ?? before}, which still serves`,
    );
    return { deployment, verification, rollback: null };
  }
  return rollBack(ctx, deployment, revisionId, before, flags, events, verification);
}

async function rollBack(
  ctx: Ctx,
  deployment: DeploymentT,
  failedId: string,
  to: string,
  flags: ReleaseFlags & WaitFlags,
  events: WaitEvents | undefined,
  verification: Verification | null,
): Promise<ReleaseOutcome> {
  ctx.log.warn(
    `revision ${failedId} ${verification ? "failed its verification" : "failed"}: rolling back ${deployment.name} to revision ${to}, the one active before this change`,
  );
  const updated = await sendChange(ctx, { what: "rollback", deploymentId: deployment.id }, async () =>
    redeployRevision(await ctx.api(), deployment.id, to),
  );
  const rollbackId = updated.latest_revision_id!;
  ctx.log.info(`rollback revision ${rollbackId} of ${deployment.name} started from revision ${to}`);
  const look = async () =>
    `See where it stands with: ${await suggestCommand(ctx, ["deploy", "status", deployment.id])}`;
  const verdict = await waitForRevision(
    ctx,
    { deploymentId: deployment.id, revisionId: rollbackId },
    flags,
    events,
  );
  if (verdict.result === "interrupted") {
    throw new InterruptedError(
      `interrupted while waiting for the rollback: revision ${rollbackId} (from revision ${to}) was started and goes on; revision ${failedId} serves until it is DEPLOYED`,
    ).withHint(await look());
  }
  const after = await readAgain(ctx, updated);
  const rollback: RollbackReport = {
    revision_id: rollbackId,
    status: verdict.status,
    result: verdict.result,
  };
  if (verdict.result === "deployed" && verifies(flags)) {
    try {
      rollback.result = (await verifyRelease(ctx, after, rollbackId, flags)).result;
    } catch (error) {
      if (error instanceof InterruptedError) error.withHint(`(the rollback to revision ${to} is DEPLOYED)`);
      throw error;
    }
  }
  if (rollback.result !== "deployed" && rollback.result !== "verified") {
    ctx.log.warn(
      `the rollback did not end well: revision ${rollbackId} is ${rollback.status} (${rollback.result})`,
    );
  }
  return { deployment: after, verification, rollback };
}
