// The deployment read again after a wait, so that what is shown is the deployment after the
// revision finished; as the change left it (said) when it cannot be read.
import { getDeployment } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import type { DeploymentT } from "../model/responses.js";

export async function readAgain(ctx: Ctx, deployment: DeploymentT): Promise<DeploymentT> {
  try {
    return await getDeployment(await ctx.api(), deployment.id);
  } catch (error) {
    ctx.log.warn(
      `could not read deployment ${deployment.name} after the wait (${(error as Error).message.split("\n")[0]}); it is printed as the change left it`,
    );
    return deployment;
  }
}
