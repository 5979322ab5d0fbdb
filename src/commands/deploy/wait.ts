import { OperationError } from "../../errors.js";
import { resolveDeployment, resolveDeploymentId } from "../../operations/resolve.js";
import { assertDeployed, waitForRevision } from "../../operations/wait.js";
import type { View } from "../../output/printer.js";
import { formatDuration } from "../../util/duration.js";
import type { WaitVerdict } from "../../wait/poll.js";
import { examples, uuid } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { intervalOption, logsOption, timeoutOption, WAIT_HELP } from "./wait-options.js";

export const verdictView: View<WaitVerdict> = {
  id: (v) => v.revision_id,
  columns: [
    { header: "DEPLOYMENT", value: (v) => v.deployment_id },
    { header: "REVISION", value: (v) => v.revision_id },
    { header: "STATUS", value: (v) => v.status },
    { header: "RESULT", value: (v) => v.result },
    { header: "ELAPSED", value: (v) => formatDuration(v.elapsed_seconds * 1000) },
  ],
};

export default defineCommand({
  configure: (command) =>
    command
      .argument("<deployment>", "deployment ID, or its exact name")
      .option("--revision <id>", "wait for this revision (default: the deployment's latest)", uuid)
      .addOption(timeoutOption())
      .addOption(intervalOption())
      .addOption(logsOption())
      .addHelpText(
        "after",
        `${WAIT_HELP}${examples("cpctl deploy wait my-agent", "cpctl deploy wait my-agent --timeout 15m -o json | jq -r .result")}`,
      ),
  run: async (ctx, [ref], options) => {
    let deploymentId: string;
    let revisionId: string | null;
    if (options.revision) {
      deploymentId = await resolveDeploymentId(ctx, ref);
      revisionId = options.revision;
    } else {
      const deployment = await resolveDeployment(ctx, ref);
      deploymentId = deployment.id;
      revisionId = deployment.latest_revision_id;
    }
    if (!revisionId) throw new OperationError(`deployment ${ref} has no revision to wait for`, "no_revision");
    const verdict = await waitForRevision(ctx, { deploymentId, revisionId }, options);
    await (await ctx.printer()).item(verdict, verdictView);
    await assertDeployed(ctx, verdict);
  },
});
