import { getDeployment } from "../../api/endpoints.js";
import { onGitHubActions } from "../../ci/detect.js";
import { reportOutcome } from "../../ci/report.js";
import type { Ctx } from "../../context.js";
import { OperationError, WaitFailedError } from "../../errors.js";
import type { DeploymentT } from "../../model/responses.js";
import { resolveDeployment, resolveDeploymentId, resolveRevisionId } from "../../operations/resolve.js";
import { assertDeployed, waitForRevision } from "../../operations/wait.js";
import type { View } from "../../output/printer.js";
import { formatDuration } from "../../util/duration.js";
import type { WaitVerdict } from "../../wait/poll.js";
import { showsSpinner } from "../../wait/progress.js";
import { examples, idOrPrefix } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { dotenvReportOption, intervalOption, logsOption, timeoutOption, WAIT_HELP } from "./wait-options.js";

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

export default defineCommand({
  configure: (command) =>
    command
      .argument("<deployment>", "deployment ID, or its exact name")
      .option("--revision <id>", "wait for this revision (default: the deployment's latest)", idOrPrefix)
      .addOption(timeoutOption())
      .addOption(intervalOption())
      .addOption(logsOption())
      .addOption(dotenvReportOption())
      .addHelpText(
        "after",
        `${WAIT_HELP}${examples("cpctl deploy wait my-agent", "cpctl deploy wait my-agent --timeout 15m -o json | jq -r .result")}`,
      ),
  run: async (ctx, [ref], options) => {
    // The CI report names the deployment: read it then; otherwise an ID and a revision suffice.
    const reporting = Boolean(options.dotenvReport) || onGitHubActions(ctx.env);
    let deployment: DeploymentT | null = null;
    let revisionId: string | null;
    if (options.revision && !reporting) {
      revisionId = options.revision;
    } else {
      deployment = await resolveDeployment(ctx, ref);
      revisionId = options.revision ?? deployment.latest_revision_id;
    }
    const deploymentId = deployment?.id ?? (await resolveDeploymentId(ctx, ref));
    if (!revisionId) throw new OperationError(`deployment ${ref} has no revision to wait for`, "no_revision");
    revisionId = await resolveRevisionId(ctx, deploymentId, revisionId);
    const verdict = await waitForRevision(ctx, { deploymentId, revisionId }, options);
    const printer = await ctx.printer();
    // On a terminal the spinner's last line already said it (revision, status, time): once is enough.
    const saidBySpinner = printer.options.format === "table" && ctx.io.stdout.isTTY && showsSpinner(ctx);
    if (!saidBySpinner) await printer.item(verdict, verdictView(verdict));
    let failure: unknown;
    try {
      await assertDeployed(ctx, verdict);
    } catch (error) {
      failure = error;
    }
    if (deployment) await reportWait(ctx, deployment, verdict, options.dotenvReport, failure);
    if (failure) throw failure;
  },
});

/** The wait's outcome for the CI report, with the deployment as it is now (unless interrupted). */
async function reportWait(
  ctx: Ctx,
  deployment: DeploymentT,
  verdict: WaitVerdict,
  dotenvReport: string | undefined,
  failure: unknown,
) {
  let now = deployment;
  if (verdict.result !== "interrupted") {
    try {
      now = await getDeployment(await ctx.api(), deployment.id);
    } catch {
      // The report says what it can; the wait's own outcome stands.
    }
  }
  reportOutcome(
    ctx,
    {
      command: "deploy wait",
      deployment: now,
      revisionId: verdict.revision_id,
      status: verdict.status,
      result: verdict.result,
      elapsedSeconds: verdict.elapsed_seconds,
      logTail: failure instanceof WaitFailedError ? failure.logTail : undefined,
    },
    { dotenvReport },
  );
}
