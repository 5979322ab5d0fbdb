import { OperationError } from "../../errors.js";
import { redeployWithPreview, revisionOf } from "../../operations/redeploy.js";
import { resolveDeployment } from "../../operations/resolve.js";
import { examples, idOrPrefix } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { addReleaseOptions, addWaitOptions, RELEASE_HELP, WAIT_HELP } from "./wait-options.js";

export default defineCommand({
  configure: (command) =>
    addReleaseOptions(
      addWaitOptions(
        command
          .argument("<deployment>", "deployment ID, or its exact name")
          .option("--revision <id>", "redeploy this revision (default: the latest)", idOrPrefix)
          .option("--dry-run", "show which revision and what would change; send nothing"),
      ),
    ).addHelpText(
      "after",
      `
Starts a new revision from the latest revision's source (or --revision's): a retry of a
failed one, a restart of a good one. Exit 4 when --revision is not one of the deployment's
revisions. Prints the deployment (-o json: the Deployment object) and, with --wait, waits for
the new revision.${WAIT_HELP}${RELEASE_HELP}${examples(
        "cpctl deploy redeploy my-agent --verify --rollback-on-failure",
        `cpctl deploy redeploy my-agent --verify-cmd './smoke-test.sh "$CPCTL_DEPLOYMENT_URL"'   # your own check too`,
        "cpctl deploy redeploy my-agent --wait",
        'cpctl deploy redeploy my-agent --revision "$REVISION_ID"',
      )}`,
    ),
  run: async (ctx, [ref], options) => {
    const opts = options;
    const deployment = await resolveDeployment(ctx, ref);
    const revisionId = opts.revision ?? deployment.latest_revision_id;
    if (!revisionId)
      throw new OperationError(`deployment ${deployment.name} has no revision to redeploy`, "no_revision");
    const target = await revisionOf(ctx, deployment, revisionId);
    await redeployWithPreview(ctx, deployment, target, { ...opts, action: "Redeploy" });
  },
});
