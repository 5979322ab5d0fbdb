// What every change does once the server has taken it (create, patch, apply, upload --patch):
// print the deployment on stdout and, with --wait, wait for its latest revision first, so
// that what is printed is the deployment after the wait (its active_revision_id current, not
// the one from before the revision finished). Whatever the wait's outcome, the deployment is
// printed, so a script always gets its ID.
import { getDeployment } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import type { DeploymentT } from "../model/responses.js";
import { deploymentView } from "../output/views.js";
import type { WaitVerdict } from "../wait/poll.js";
import { assertDeployed, type WaitFlags, waitForRevision } from "./wait.js";

export interface FinishOptions extends WaitFlags {
  wait?: boolean;
}

export async function finishChange(ctx: Ctx, deployment: DeploymentT, options: FinishOptions): Promise<void> {
  const printer = await ctx.printer();
  const print = (shown: DeploymentT) => printer.item(shown, deploymentView);
  if (!options.wait) return print(deployment);
  if (!deployment.latest_revision_id) {
    ctx.log.info("no revision to wait for");
    return print(deployment);
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
  await print(verdict.result === "interrupted" ? deployment : await readAgain(ctx, deployment));
  await assertDeployed(ctx, verdict);
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
