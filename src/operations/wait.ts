// One wait as the commands run it: pick the progress display, poll, and turn an
// unsuccessful verdict into the error that carries its exit code (5, 6 or 130).
import type { Ctx } from "../context.js";
import { InterruptedError, WaitFailedError, WaitTimeoutError } from "../errors.js";
import { formatDuration } from "../util/duration.js";
import { MAX_INTERVAL_MS, pollRevision, type WaitVerdict } from "../wait/poll.js";
import { createReporter } from "../wait/progress.js";
import { suggestCommand } from "./suggest.js";

export interface WaitFlags {
  timeout: number;
  interval: number;
}

export async function waitForRevision(
  ctx: Ctx,
  target: { deploymentId: string; revisionId: string },
  flags: WaitFlags,
): Promise<WaitVerdict> {
  const reporter = await createReporter(ctx, target.revisionId);
  return pollRevision(
    await ctx.api(),
    ctx.clock,
    ctx.signal,
    target,
    {
      timeoutMs: flags.timeout,
      intervalMs: flags.interval,
      maxIntervalMs: Math.max(MAX_INTERVAL_MS, flags.interval),
      requestTimeoutMs: ctx.requestTimeoutMs,
    },
    reporter,
  );
}

/**
 * The command that resumes this wait, for the messages after Ctrl-C and time-outs: it reaches
 * the same deployment from another shell (see suggest.ts), never with a credential in it.
 */
export function resumeCommand(ctx: Ctx, verdict: WaitVerdict): Promise<string> {
  return suggestCommand(ctx, ["deploy", "wait", verdict.deployment_id, "--revision", verdict.revision_id]);
}

/** Throws the error whose exit code tells the verdict; returns for "deployed". */
export async function assertDeployed(ctx: Ctx, verdict: WaitVerdict): Promise<void> {
  const revision = `revision ${verdict.revision_id}`;
  const after = formatDuration(verdict.elapsed_seconds * 1000);
  switch (verdict.result) {
    case "deployed":
      return;
    case "failed":
      throw new WaitFailedError(`${revision} ended ${verdict.status} after ${after}`).withHint(
        `See its history with: ${await suggestCommand(ctx, ["deploy", "revisions", verdict.deployment_id])}`,
      );
    case "timed_out":
      throw new WaitTimeoutError(
        `timed out after ${after} waiting for ${revision} (last status: ${verdict.status ?? "unknown"})`,
      ).withHint(`Resume with: ${await resumeCommand(ctx, verdict)}`);
    case "interrupted":
      throw new InterruptedError(
        `interrupted while waiting for ${revision} (last status: ${verdict.status ?? "unknown"})`,
      ).withHint(`Resume with: ${await resumeCommand(ctx, verdict)}`);
  }
}
