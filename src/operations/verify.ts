// `--verify`: a revision that reached DEPLOYED counts as done only once its address answers.
// GET {custom_url}/ok with the profile's credentials (api/agent-health.ts), again every
// HEALTH_INTERVAL_MS until it answers `{"ok": true}` or --verify-timeout runs out; then, if
// given, the user's --verify-cmd through the shell, with the release's address and IDs in its
// environment (verify-command.ts), within a --verify-timeout of its own. Either failing makes
// the release `unverified`.
//
// Each attempt is shown on a terminal; elsewhere (a CI log) a line when the answer changes, so
// that two minutes of 503s are one line, not 120.
import { type AgentHealth, agentHealth } from "../api/agent-health.js";
import type { Ctx } from "../context.js";
import { InterruptedError, UsageError } from "../errors.js";
import type { DeploymentT } from "../model/responses.js";
import { styled, visible, writeText } from "../output/safe-text.js";
import { formatDuration } from "../util/duration.js";
import { describeHealth } from "./status.js";
import { suggestCommand } from "./suggest.js";
import { runVerifyCommand } from "./verify-command.js";

/** --verify-timeout's default: how long a deployed revision has to answer. */
export const DEFAULT_VERIFY_TIMEOUT_MS = 2 * 60_000;
/** The gap between two health checks: a revision that answers is verified within it. */
export const HEALTH_INTERVAL_MS = 1_000;
/**
 * The most one check waits for its answer (less with a shorter --request-timeout). A check is
 * started only before the deadline, so the whole may pass it by one check's time at most.
 */
const CHECK_TIMEOUT_MS = 10_000;

/** The release flags of push, patch, apply, rollback and redeploy (CLI.md "Releases"). */
export interface ReleaseFlags {
  verify?: boolean;
  /** ms; default DEFAULT_VERIFY_TIMEOUT_MS. */
  verifyTimeout?: number;
  verifyCmd?: string;
  rollbackOnFailure?: boolean;
}

/** How a release's check ended: `-o json`'s `verification`, the CI summary's row. */
export interface Verification {
  result: "verified" | "unverified";
  url: string | null;
  /** Health checks made. */
  attempts: number;
  /** Why it is unverified (the last answer, or the command's exit); null when verified. */
  reason: string | null;
  elapsed_seconds: number;
}

/**
 * Whether the flags ask for a verification; --verify-timeout and --verify-cmd ask for one by
 * themselves. `waitRefused`: the command was told not to wait (push --no-wait), which a
 * verification or a rollback cannot do without.
 */
export function verifies(flags: ReleaseFlags): boolean {
  return Boolean(flags.verify || flags.verifyCmd !== undefined || flags.verifyTimeout !== undefined);
}

/** A usage error when the release flags cannot be honoured without a wait the user refused. */
export function refuseWithoutWait(flags: ReleaseFlags, waits: boolean): void {
  if (waits) return;
  const asked = [verifies(flags) && "--verify", flags.rollbackOnFailure && "--rollback-on-failure"].filter(
    Boolean,
  );
  if (asked.length > 0) throw new UsageError(`${asked.join(" and ")} need the wait: leave out --no-wait`);
}

export async function verifyRelease(
  ctx: Ctx,
  deployment: DeploymentT,
  revisionId: string,
  flags: ReleaseFlags,
): Promise<Verification> {
  const url = deployment.source_config.custom_url ?? null;
  const started = ctx.clock.now();
  const deadline = started + (flags.verifyTimeout ?? DEFAULT_VERIFY_TIMEOUT_MS);
  const api = await ctx.api();
  const tell = attemptTeller(ctx, revisionId);
  let attempts = 0;
  let health: AgentHealth;
  try {
    for (;;) {
      attempts++;
      health = await agentHealth(api, url, {
        timeoutMs: Math.min(ctx.requestTimeoutMs, CHECK_TIMEOUT_MS),
        signal: ctx.signal,
      });
      tell(health, attempts, ctx.clock.now() - started);
      // No address: there is nothing to ask again.
      if (health.health === "ok" || health.url === null) break;
      if (ctx.clock.now() + HEALTH_INTERVAL_MS > deadline) break;
      await ctx.clock.sleep(HEALTH_INTERVAL_MS, ctx.signal);
    }
  } catch (error) {
    if (error instanceof InterruptedError) throw await interrupted(ctx, deployment, revisionId, url);
    throw error;
  }
  const elapsed = () => Math.round((ctx.clock.now() - started) / 100) / 10;
  if (health.health !== "ok") {
    return {
      result: "unverified",
      url,
      attempts,
      reason: `${describeHealth(health)}${health.url ? ` after ${formatDuration(ctx.clock.now() - started)}` : ""}`,
      elapsed_seconds: elapsed(),
    };
  }
  if (flags.verifyCmd !== undefined) {
    const failed = await runVerifyCommand(
      ctx,
      flags.verifyCmd,
      { CPCTL_DEPLOYMENT_URL: url ?? "", CPCTL_DEPLOYMENT_ID: deployment.id, CPCTL_REVISION_ID: revisionId },
      // Its own budget: a slow first answer does not cut the user's check short.
      flags.verifyTimeout ?? DEFAULT_VERIFY_TIMEOUT_MS,
    ).catch(async (error: unknown) => {
      if (error instanceof InterruptedError) throw await interrupted(ctx, deployment, revisionId, url);
      throw error;
    });
    if (failed !== null)
      return { result: "unverified", url, attempts, reason: failed, elapsed_seconds: elapsed() };
  }
  ctx.log.info(`revision ${revisionId} verified: ${url}/ok answered {"ok": true}`);
  return { result: "verified", url, attempts, reason: null, elapsed_seconds: elapsed() };
}

/** Every attempt on a terminal; elsewhere the first one and each change of answer. */
function attemptTeller(ctx: Ctx, revisionId: string) {
  let last: string | null = null;
  const everyAttempt = ctx.io.stderr.isTTY;
  return (health: AgentHealth, attempt: number, elapsedMs: number) => {
    const said = describeHealth(health);
    if (health.health === "ok" || (!everyAttempt && said === last)) return;
    last = said;
    writeText(
      ctx.io.stderr,
      styled`verifying revision ${visible(revisionId)}: ${ctx.paint.dim(`attempt ${attempt}, ${formatDuration(elapsedMs)}:`)} ${said}\n`,
    );
  };
}

async function interrupted(
  ctx: Ctx,
  deployment: DeploymentT,
  revisionId: string,
  url: string | null,
): Promise<InterruptedError> {
  return new InterruptedError(
    `interrupted while verifying revision ${revisionId} of ${deployment.name}: it is DEPLOYED and serves${url ? ` at ${url}` : ""}, unverified; nothing was rolled back`,
  ).withHint(`See its health with: ${await suggestCommand(ctx, ["deploy", "status", deployment.id])}`);
}
