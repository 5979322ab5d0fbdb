// A create is never sent twice. When it fails in a way that may have created the deployment
// anyway (connection lost after sending, timeout, truncated answer, a 5xx from a proxy),
// the CLI looks the name up and says what happened instead of leaving the user to guess.
//
// The same holds for Ctrl-C while the create is in flight: the server may have made the
// deployment although its answer never arrived. The command still ends with exit 130, but
// first it looks the name up (briefly, on a signal of its own: ctx.signal is already
// aborted) and prints the deployment it finds, so the user is never left without its ID.
import { listDeployments } from "../api/endpoints.js";
import { mayHaveBeenApplied } from "../api/retry.js";
import { RequestInterruptedError } from "../api/transport.js";
import type { Ctx } from "../context.js";
import { type CliError, InterruptedError } from "../errors.js";
import type { DeploymentT } from "../model/responses.js";
import type { CreateRequest } from "../model/schemas.js";
import { deploymentView } from "../output/views.js";
import { deploymentsNamed } from "./resolve.js";

/** How long the look-up after Ctrl-C may take, at most (the user is waiting to get out). */
const INTERRUPTED_CHECK_MS = 5_000;

export async function guardedCreate(
  ctx: Ctx,
  body: CreateRequest,
  send: () => Promise<DeploymentT>,
): Promise<DeploymentT> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof InterruptedError || ctx.signal.aborted) throw await afterInterrupt(ctx, body, error);
    if (!mayHaveBeenApplied(error)) throw error;
    ctx.log.warn(
      `the create request failed (${firstLine(error)}); checking whether '${body.name}' was created anyway...`,
    );
    let matches: DeploymentT[];
    try {
      matches = await deploymentsNamed(ctx, body.name);
    } catch (checkError) {
      const lookHint = `Before running the command again, look with: cpctl deploy get ${JSON.stringify(body.name)}`;
      // Ctrl-C during the look-up: exit 130, still saying what is unknown.
      if (checkError instanceof InterruptedError) {
        throw new InterruptedError(
          `interrupted while checking whether '${body.name}' was created after the create request failed (${firstLine(error)})`,
        ).withHint(lookHint);
      }
      throw (error as CliError).withHint(
        `Could not check whether it was created (${firstLine(checkError)}). ${lookHint}`,
      );
    }
    if (matches.length === 1) {
      // Names are unique per tenant and the create did not answer 409, so this is ours.
      ctx.log.warn(`deployment '${body.name}' was created (${matches[0]!.id}) although the answer was lost`);
      return matches[0]!;
    }
    // The look-up answers what the retry layer's hints ("may have been applied...") left open.
    const settled = error as CliError;
    settled.hints = [];
    throw settled.withHint(
      `No deployment named '${body.name}' exists: the create did not happen, and it is safe to run the command again.`,
    );
  }
}

/**
 * Ctrl-C came while the create was being sent or awaited. Returns the InterruptedError to
 * throw (exit 130), after printing the deployment if the server made it.
 */
async function afterInterrupt(ctx: Ctx, body: CreateRequest, error: unknown): Promise<InterruptedError> {
  const name = JSON.stringify(body.name);
  // The transport says whether the request had been sent when Ctrl-C cut it; any other
  // InterruptedError came between attempts or before the first (a create is retried only
  // when the failed attempt never reached the server). Another failure that raced with
  // Ctrl-C (a timeout, a reset) may have reached it.
  const maybeSent =
    error instanceof RequestInterruptedError
      ? error.mayHaveReachedServer
      : !(error instanceof InterruptedError);
  if (!maybeSent) {
    return new InterruptedError(
      `interrupted before the create request was sent: no deployment '${body.name}' was created`,
    );
  }
  ctx.log.warn(
    `interrupted while the create request was in flight; checking whether '${body.name}' was created...`,
  );
  let found: DeploymentT | undefined;
  try {
    found = await lookUpAfterInterrupt(ctx, body.name);
  } catch (checkError) {
    return new InterruptedError(
      `interrupted while the create request was in flight; could not check whether '${body.name}' was created (${firstLine(checkError)})`,
    ).withHint(`Before running the command again, look with: cpctl deploy get ${name}`);
  }
  if (!found) {
    return new InterruptedError(
      `interrupted while the create request was in flight; no deployment '${body.name}' exists yet`,
    ).withHint(
      `Running the command again is safe: names are unique, so if the server was still working on this create, the new one is refused (409) rather than doubled. Look with: cpctl deploy get ${name}`,
    );
  }
  // stdout gets the deployment, as a completed create would print it.
  await (await ctx.printer()).item(found, deploymentView);
  const interrupted = new InterruptedError(
    `interrupted, but deployment '${found.name}' was created (${found.id}) before the answer arrived`,
  );
  if (found.latest_revision_id) {
    interrupted.withHint(
      `Follow its first revision with: cpctl deploy wait ${found.id} --revision ${found.latest_revision_id}`,
    );
  }
  return interrupted;
}

/** One page by exact name, on a signal of its own, bounded in time whatever the server does. */
async function lookUpAfterInterrupt(ctx: Ctx, name: string): Promise<DeploymentT | undefined> {
  const api = await ctx.api();
  const budget = Math.min(INTERRUPTED_CHECK_MS, ctx.requestTimeoutMs);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), budget);
  timer.unref();
  try {
    const page = await listDeployments(
      api,
      { name },
      { limit: 100 },
      { signal: controller.signal, detached: true, timeoutMs: budget, maxAttempts: 2 },
    );
    const matches = page.resources.filter((d) => d.name === name);
    return matches.length === 1 ? matches[0] : undefined;
  } catch (error) {
    if (controller.signal.aborted) throw new Error(`no answer within ${budget} ms`);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
}
