// What every change does once the server has taken it (create, patch, apply, upload --patch,
// rollback, redeploy): print the deployment on stdout and, with --wait, wait for its latest
// revision first, so that what is printed is the deployment after the wait (its
// active_revision_id current, not the one from before the revision finished). Whatever the
// wait's outcome, the deployment is printed, so a script always gets its ID; and the outcome
// goes to the CI report (step outputs, summary, --dotenv-report).
import { getDeployment } from "../api/endpoints.js";
import { type OutcomeResult, reportOutcome } from "../ci/report.js";
import type { Ctx } from "../context.js";
import { WaitFailedError } from "../errors.js";
import type { Change } from "../model/changes.js";
import type { DeploymentT } from "../model/responses.js";
import { deploymentView } from "../output/views.js";
import type { WaitVerdict } from "../wait/poll.js";
import { assertDeployed, type WaitFlags, waitForRevision } from "./wait.js";

export interface FinishOptions extends WaitFlags {
  wait?: boolean;
  /** --dotenv-report FILE: the CI outputs as a dotenv file. */
  dotenvReport?: string;
}

/** A change the server has taken (or one that had nothing to send), as its CI report tells it. */
export interface TakenChange {
  deployment: DeploymentT;
  /** What the change did, for the CI report when there is no wait to tell more. */
  kind: "created" | "started" | "unchanged";
  /** What its preview showed; empty when nothing was previewed. */
  changes: readonly Change[];
}

export async function finishChange(ctx: Ctx, taken: TakenChange, options: FinishOptions): Promise<void> {
  const { deployment, kind, changes } = taken;
  const printer = await ctx.printer();
  const print = (shown: DeploymentT) => printer.item(shown, deploymentView);
  const report = (shown: DeploymentT, result: OutcomeResult, verdict?: WaitVerdict, failure?: unknown) =>
    reportOutcome(
      ctx,
      {
        command: ctx.command,
        deployment: shown,
        revisionId: verdict?.revision_id ?? shown.latest_revision_id,
        status: verdict?.status ?? null,
        result,
        elapsedSeconds: verdict?.elapsed_seconds,
        changes,
        logTail: failure instanceof WaitFailedError ? failure.logTail : undefined,
      },
      options,
    );
  if (!options.wait || !deployment.latest_revision_id) {
    if (options.wait) ctx.log.info("no revision to wait for");
    await print(deployment);
    report(deployment, kind);
    return;
  }
  let verdict: WaitVerdict;
  try {
    verdict = await waitForRevision(
      ctx,
      { deploymentId: deployment.id, revisionId: deployment.latest_revision_id },
      options,
    );
  } catch (error) {
    await print(deployment);
    throw error;
  }
  // After Ctrl-C there is no asking the server again: the user wants out.
  const final = verdict.result === "interrupted" ? deployment : await readAgain(ctx, deployment);
  await print(final);
  let failure: unknown;
  try {
    await assertDeployed(ctx, verdict);
  } catch (error) {
    failure = error;
  }
  report(final, verdict.result, verdict, failure);
  if (failure) throw failure;
  ctx.log.info(`revision ${verdict.revision_id} is ${verdict.status}`);
}

async function readAgain(ctx: Ctx, deployment: DeploymentT): Promise<DeploymentT> {
  try {
    return await getDeployment(await ctx.api(), deployment.id);
  } catch (error) {
    ctx.log.warn(
      `could not read deployment ${deployment.name} after the wait (${(error as Error).message.split("\n")[0]}); it is printed as the change left it`,
    );
    return deployment;
  }
}
