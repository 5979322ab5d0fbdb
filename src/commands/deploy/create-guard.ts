// A create is never sent twice. When it fails in a way that may have created the deployment
// anyway (connection lost after sending, timeout, truncated answer, a 5xx from a proxy),
// the CLI looks the name up and says what happened instead of leaving the user to guess.
import type { Ctx } from "../../context.js";
import { ApiError, CliError, NetworkError } from "../../errors.js";
import type { CreateRequest, DeploymentT } from "../../model/schemas.js";
import { deploymentsNamed } from "./resolve.js";

export function isAmbiguousFailure(error: unknown): boolean {
  if (error instanceof NetworkError) return error.mayHaveReachedServer;
  return error instanceof ApiError && error.status >= 500;
}

export async function guardedCreate(ctx: Ctx, body: CreateRequest, send: () => Promise<DeploymentT>): Promise<DeploymentT> {
  try {
    return await send();
  } catch (error) {
    if (!isAmbiguousFailure(error) || ctx.signal.aborted) throw error;
    ctx.log.warn(`the create request failed (${(error as Error).message.split("\n")[0]}); checking whether '${body.name}' was created anyway...`);
    let matches: DeploymentT[];
    try {
      matches = await deploymentsNamed(ctx, body.name);
    } catch (checkError) {
      throw (error as CliError).withHint(
        `Could not check whether it was created (${(checkError as Error).message.split("\n")[0]}). Before running the command again, look with: cpctl deploy get ${JSON.stringify(body.name)}`,
      );
    }
    if (matches.length === 1) {
      // Names are unique per tenant and the create did not answer 409, so this is ours.
      ctx.log.warn(`deployment '${body.name}' was created (${matches[0]!.id}) although the answer was lost`);
      return matches[0]!;
    }
    throw (error as CliError).withHint(`No deployment named '${body.name}' exists: the create did not happen, and it is safe to run the command again.`);
  }
}
