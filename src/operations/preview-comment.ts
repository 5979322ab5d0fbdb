// `deploy push --preview --comment`: the pull request's comment about its preview, created or
// updated once the push has ended (shown and reported), whatever the ending: a failed revision
// is worth saying on the pull request too. What it needs from the environment is checked before
// anything is sent (planComment): when something is missing, a warning says what, and the deploy
// goes on without a comment. Posting never fails the deploy: GitHub's refusal (a fork's
// read-only token: 403; 401, 404) or no answer is a warning, and the exit code stays the
// deploy's. Only Ctrl-C stops it (exit 130, as anywhere).
import { GitHubClient, type GitHubTarget, gitHubTarget } from "../ci/github-api.js";
import { CommentFailure, upsertComment } from "../ci/pr-comment.js";
import { previewCommentBody, previewMarker } from "../ci/preview-comment.js";
import type { Ctx } from "../context.js";
import { InterruptedError } from "../errors.js";
import { createMasker } from "../secrets.js";
import { VERSION } from "../version.js";
import type { Ending } from "./after-change.js";

/** Where the comment goes, known before the push sends anything. */
export interface CommentPlan {
  target: GitHubTarget;
}

/**
 * --comment's target, or null when no comment can be posted: a warning says what is missing
 * (not on GitHub Actions, no GITHUB_TOKEN, ...), and the deploy goes on. The token is a secret
 * of the run from here on: masked wherever it could show.
 */
export function planComment(
  ctx: Ctx,
  asked: boolean | undefined,
  dryRun: boolean | undefined,
): CommentPlan | null {
  if (!asked) return null;
  const found = gitHubTarget(ctx.env);
  if ("missing" in found) {
    ctx.log.warn(`--comment: no comment will be posted: ${found.missing.join("; ")}; the deploy goes on`);
    return null;
  }
  ctx.rememberSecret(found.target.token);
  if (dryRun) {
    ctx.log.info("--comment: a dry run posts no comment");
    return null;
  }
  return { target: found.target };
}

export async function postPreviewComment(
  ctx: Ctx,
  plan: CommentPlan,
  preview: { of: string; number: number },
  ending: Ending,
): Promise<void> {
  if (ctx.signal.aborted || ending.result === "interrupted") return;
  const mask = createMasker(ctx.knownSecrets());
  const { deployment } = ending;
  const body = previewCommentBody(
    {
      of: preview.of,
      number: preview.number,
      deployment: {
        id: deployment.id,
        name: deployment.name,
        url: deployment.source_config.custom_url ?? null,
      },
      revision: ending.revision,
      result: ending.result,
      elapsedSeconds: ending.verdict?.elapsed_seconds ?? null,
      verification: ending.verification,
      rollback: ending.rollback,
      time: ctx.clock.now(),
      runUrl: runUrl(ctx),
    },
    mask,
  );
  const client = new GitHubClient(plan.target, {
    transport: (await ctx.api()).httpTransport,
    timeoutMs: ctx.requestTimeoutMs,
    userAgent: `cpctl/${VERSION} node/${process.versions.node}`,
    signal: ctx.signal,
    trace: ctx.log.debugEnabled ? (line) => ctx.log.debug(line) : undefined,
    secrets: () => ctx.knownSecrets(),
  });
  try {
    const done = await upsertComment(client, preview.number, previewMarker(mask(preview.of)), body, (text) =>
      ctx.log.info(text),
    );
    ctx.log.info(
      `${done.action} the preview's comment on pull request #${preview.number}${done.url ? `: ${done.url}` : ""}`,
    );
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    const said =
      error instanceof CommentFailure ? error.message : `could not comment (${(error as Error).message})`;
    ctx.log.warn(mask(`--comment: ${said}; the deploy is unaffected`));
  }
}

/** The workflow run's page, from the variables the runner sets; null when they do not add up. */
function runUrl(ctx: Ctx): string | null {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: run } = ctx.env;
  if (!server || !repository || !run || !/^\d+$/.test(run) || !/^[\w.-]+\/[\w.-]+$/.test(repository))
    return null;
  return /^https?:\/\/[^\s/]+\/?$/.test(server)
    ? `${server.replace(/\/$/, "")}/${repository}/actions/runs/${run}`
    : null;
}
