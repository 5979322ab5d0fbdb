// What every change does once the server has taken it (create, patch, apply, upload --patch,
// rollback, redeploy, push): with --wait, wait for its latest revision and read the
// deployment again, so that what is shown is the deployment after the wait (its
// active_revision_id current, not the one from before the revision finished); then show the
// end on stdout (the deployment, or push's result) and send the outcome to the CI report (step
// outputs, summary, --dotenv-report). Whatever the wait's outcome, the end is shown, so a
// script always gets the deployment's ID. `deploy wait`, which waits for a change made before,
// ends the same way (runWait).
import { getDeployment } from "../api/endpoints.js";
import { onGitHubActions } from "../ci/detect.js";
import { type Outcome, type OutcomeResult, reportOutcome } from "../ci/report.js";
import type { Ctx } from "../context.js";
import {
  CliError,
  type FailureDetail,
  InterruptedError,
  OperationError,
  UnverifiedError,
  WaitFailedError,
} from "../errors.js";
import type { Change } from "../model/changes.js";
import type { DeploymentT } from "../model/responses.js";
import type { View } from "../output/printer.js";
import { deploymentView } from "../output/views.js";
import { secretValuesOf } from "../secrets.js";
import { formatDuration } from "../util/duration.js";
import type { WaitVerdict } from "../wait/poll.js";
import { showsSpinner } from "../wait/progress.js";
import { readAgain } from "./read-again.js";
import { checkRelease, type RollbackReport } from "./release.js";
import { resolveDeployment, resolveDeploymentId, resolveRevisionId } from "./resolve.js";
import { type ReleaseFlags, type Verification, verifies } from "./verify.js";
import { assertDeployed, type WaitEvents, type WaitFlags, waitForRevision } from "./wait.js";

/** The flags of waiting after a change: --wait and its companions. */
export interface WaitingFlags extends WaitFlags {
  wait?: boolean;
  /** --dotenv-report FILE: the CI outputs as a dotenv file. */
  dotenvReport?: string;
}

/** The flags of what follows a change: waiting, and --verify and its companions. */
export interface FinishFlags extends WaitingFlags, ReleaseFlags {}

export interface FinishOptions extends FinishFlags {
  /** deploy push --preview: the pull request's number, a CI output (preview_number). */
  previewNumber?: number;
}

/** A change the server has taken (or one that had nothing to send), as its CI report tells it. */
export interface TakenChange {
  deployment: DeploymentT;
  /** What the change did, for the CI report when there is no wait to tell more. */
  kind: "created" | "started" | "unchanged";
  /** What its preview showed; empty when nothing was previewed. */
  changes: readonly Change[];
  /** The revision the end names when there is no wait (default: the deployment's latest, status unread). */
  revision?: Ending["revision"];
  /** The revision active before the change (the only one --rollback-on-failure goes back to); null: none. */
  activeBefore?: string | null;
}

/** How a change ended, as stdout and the CI report tell it. */
export interface Ending {
  deployment: DeploymentT;
  revision: { id: string; status: string | null } | null;
  result: OutcomeResult;
  verdict?: WaitVerdict;
  /** With --verify (once the revision deployed): how its check ended. */
  verification?: Verification | null;
  /** With --rollback-on-failure: the rollback, when there was one. */
  rollback?: RollbackReport | null;
  /** The revision failed: in which stage, the error, the end of its log (masked). */
  failure?: FailureDetail | null;
}

/** How a command shows the end of its change on stdout, and follows its wait. */
export interface Showing {
  show(ending: Ending): Promise<void>;
  /**
   * Once the end is shown and reported to CI, before an unsuccessful one becomes the exit
   * code (push --comment): must not throw but for Ctrl-C.
   */
  reported?(ending: Ending): Promise<void>;
  /** `deploy push -o ndjson`'s status and log events. */
  events?: WaitEvents;
}

export async function finishChange(
  ctx: Ctx,
  taken: TakenChange,
  options: FinishOptions,
  showing?: Showing,
): Promise<void> {
  const { deployment, kind, changes } = taken;
  // What it carries is masked in every log line and message from here on (the wait's log).
  for (const value of secretValuesOf(deployment)) ctx.rememberSecret(value);
  const revisionId = deployment.latest_revision_id;
  let ending: Ending = {
    deployment,
    revision: taken.revision ?? (revisionId ? { id: revisionId, status: null } : null),
    result: kind,
  };
  let failure: unknown;
  const released = releaseAsked(options);
  if ((options.wait || released) && revisionId) {
    try {
      ending = await waitAndRead(ctx, deployment, revisionId, options, showing?.events);
      if (released) ending = await release(ctx, ending, taken.activeBefore ?? null, options, showing?.events);
    } catch (error) {
      // The end is shown all the same, so that a script gets the deployment's ID.
      failure = error;
      if (error instanceof InterruptedError && ending.verdict) ending = { ...ending, result: "interrupted" };
    }
  } else if (options.wait || released) ctx.log.info("no revision to wait for");
  // Why it failed is part of the result on stdout: known before the result is shown.
  if (ending.verdict && !failure) failure = await unsuccessful(ctx, ending);
  if (failure instanceof WaitFailedError) ending = { ...ending, failure: failure.failure };
  await (showing?.show ?? showDeployment(ctx, released))(ending);
  reportOutcome(
    ctx,
    { ...outcomeOf(ctx, ending, failure, changes), previewNumber: options.previewNumber },
    options,
  );
  await showing?.reported?.(ending);
  if (failure) throw failure;
  // A command that shows its own end (push's result) says it there.
  if (ending.verdict && !showing) ctx.log.info(`revision ${revisionId} is ${ending.verdict.status}`);
}

/** The wait, then the deployment read again (but after Ctrl-C: the user wants out). */
async function waitAndRead(
  ctx: Ctx,
  deployment: DeploymentT,
  revisionId: string,
  flags: WaitFlags,
  events: WaitEvents | undefined,
): Promise<Ending> {
  const verdict = await waitForRevision(ctx, { deploymentId: deployment.id, revisionId }, flags, events);
  return {
    deployment: verdict.result === "interrupted" ? deployment : await readAgain(ctx, deployment),
    revision: { id: revisionId, status: verdict.status },
    result: verdict.result,
    verdict,
  };
}

/** Whether the flags ask for more than the wait: a verification, a rollback. */
function releaseAsked(options: FinishOptions): boolean {
  return verifies(options) || Boolean(options.rollbackOnFailure);
}

/** The verification and the rollback (release.ts), once the revision was waited for. */
async function release(
  ctx: Ctx,
  ending: Ending,
  activeBefore: string | null,
  options: FinishOptions,
  events: WaitEvents | undefined,
): Promise<Ending> {
  const verdict = ending.verdict!;
  const outcome = await checkRelease(
    ctx,
    { deployment: ending.deployment, verdict, activeBefore },
    options,
    events,
  );
  return {
    ...ending,
    deployment: outcome.deployment,
    result: outcome.verification?.result ?? ending.result,
    verification: outcome.verification,
    rollback: outcome.rollback,
  };
}

/** The error that tells an unsuccessful verdict (5, 6, 130); undefined for DEPLOYED. */
async function verdictFailure(ctx: Ctx, verdict: WaitVerdict): Promise<CliError | undefined> {
  try {
    await assertDeployed(ctx, verdict);
    return undefined;
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
}

/** The error that tells an unsuccessful end, to throw once the end is shown and reported. */
async function unsuccessful(ctx: Ctx, ending: Ending): Promise<unknown> {
  const failed = await verdictFailure(ctx, ending.verdict!);
  if (failed) {
    if (ending.rollback) return failed.withHint(rollbackSaid(ending.rollback));
    const serving = ending.deployment.active_revision_id;
    // A failed revision replaced nothing: the one before still serves (no rollback needed).
    if (failed instanceof WaitFailedError && serving && serving !== ending.verdict!.revision_id)
      failed.withHint(
        `Revision ${serving}, the active one, still serves: the failed revision replaced nothing.`,
      );
    return failed;
  }
  const { verification, rollback } = ending;
  if (verification?.result !== "unverified") return undefined;
  const error = new UnverifiedError(
    `revision ${ending.verdict!.revision_id} is DEPLOYED but failed its verification: ${verification.reason}`,
  );
  error.details = { verification, rollback: rollback ?? null };
  return error.withHint(
    rollback
      ? rollbackSaid(rollback)
      : `Nothing was rolled back${ending.deployment.active_revision_id ? `: revision ${ending.deployment.active_revision_id} serves` : ""}.`,
  );
}

function rollbackSaid(rollback: RollbackReport): string {
  return `Rolled back: revision ${rollback.revision_id} is ${rollback.status ?? "of unknown status"} (${rollback.result}).`;
}

/** The deployment; with --verify or --rollback-on-failure, how the release ended beside it. */
/**
 * The deployment; with --verify or --rollback-on-failure, or when the revision waited for
 * failed, how the change ended beside it (`result`, `verification`, `rollback`, `failure`).
 */
function showDeployment(ctx: Ctx, released: boolean): (ending: Ending) => Promise<void> {
  return async ({ deployment, result, verification, rollback, failure }) => {
    const printer = await ctx.printer();
    if (!released && !failure) return printer.item(deployment, deploymentView);
    return printer.item(
      {
        ...deployment,
        result,
        ...(released ? { verification: verification ?? null, rollback: rollback ?? null } : {}),
        failure: failure ?? null,
      },
      deploymentView,
    );
  };
}

function outcomeOf(ctx: Ctx, ending: Ending, failure: unknown, changes?: readonly Change[]): Outcome {
  return {
    command: ctx.command,
    deployment: ending.deployment,
    revisionId: ending.revision?.id ?? null,
    status: ending.revision?.status ?? null,
    result: ending.result,
    elapsedSeconds: ending.verdict?.elapsed_seconds,
    verification: ending.verification ?? undefined,
    rollback: ending.rollback ?? undefined,
    changes,
    logTail: failure instanceof WaitFailedError ? failure.logTail : undefined,
  };
}

export interface WaitInput extends WaitFlags {
  /** The revision to wait for (default: the deployment's latest). */
  revision?: string;
  dotenvReport?: string;
}

/** `deploy wait`: wait for one revision of a deployment, print the verdict, report it to CI. */
export async function runWait(ctx: Ctx, ref: string, input: WaitInput): Promise<void> {
  // The CI report names the deployment: read it then; otherwise an ID and a revision suffice.
  const reporting = Boolean(input.dotenvReport) || onGitHubActions(ctx.env);
  const deployment = input.revision && !reporting ? null : await resolveDeployment(ctx, ref);
  const deploymentId = deployment?.id ?? (await resolveDeploymentId(ctx, ref));
  const given = input.revision ?? deployment?.latest_revision_id;
  if (!given) throw new OperationError(`deployment ${ref} has no revision to wait for`, "no_revision");
  const revisionId = await resolveRevisionId(ctx, deploymentId, given);
  const verdict = await waitForRevision(ctx, { deploymentId, revisionId }, input);
  const printer = await ctx.printer();
  // On a terminal the spinner's last line already said it (revision, status, time): once is enough.
  const saidBySpinner = printer.options.format === "table" && ctx.io.stdout.isTTY && showsSpinner(ctx);
  const failure = await verdictFailure(ctx, verdict);
  // A failed revision's verdict says why (`failure`), as every command that waits does.
  const shown = failure instanceof WaitFailedError ? { ...verdict, failure: failure.failure } : verdict;
  if (!saidBySpinner) await printer.item(shown, verdictView(verdict));
  if (deployment) {
    // The report says what it can: the deployment as it is now, or as read before the wait.
    const now =
      verdict.result === "interrupted"
        ? deployment
        : await getDeployment(await ctx.api(), deployment.id).catch(() => deployment);
    const ending: Ending = {
      deployment: now,
      revision: { id: revisionId, status: verdict.status },
      result: verdict.result,
      verdict,
    };
    reportOutcome(ctx, outcomeOf(ctx, ending, failure), input);
  }
  if (failure) throw failure;
}

/** The verdict as text; ELAPSED says "already" for a revision that had ended before the wait. */
function verdictView(verdict: WaitVerdict): View<WaitVerdict> {
  return {
    id: (v) => v.revision_id,
    columns: [
      { header: "DEPLOYMENT", value: (v) => v.deployment_id },
      { header: "REVISION", value: (v) => v.revision_id },
      { header: "STATUS", value: (v) => v.status },
      { header: "RESULT", value: (v) => v.result },
      {
        header: "ELAPSED",
        value: (v) => (verdict.endedBeforeWait ? "already" : formatDuration(v.elapsed_seconds * 1000)),
      },
    ],
  };
}
