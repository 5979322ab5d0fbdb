import { type RollbackInput, runRollback } from "../../operations/redeploy.js";
import { examples, idOrPrefix } from "../parsers.js";
import { defineCommand, optionsAre } from "../spec.js";
import { addReleaseOptions, addWaitOptions, RELEASE_HELP, WAIT_HELP } from "./wait-options.js";

export default optionsAre<RollbackInput>()(
  defineCommand({
    configure: (command) =>
      addReleaseOptions(
        addWaitOptions(
          command
            .argument("<deployment>", "deployment ID, or its exact name")
            .option(
              "--to <revision>",
              "roll back to this revision (default: the newest DEPLOYED one older than the active)",
              idOrPrefix,
            )
            .option("--dry-run", "show which revision and what would change; send nothing"),
        ),
      ).addHelpText(
        "after",
        `
Starts a new revision from an earlier revision's source (image, ref and commit, or tarball):
by default the newest DEPLOYED revision older than the active one, passing over failed,
skipped and interrupted ones. Secrets and resources stay as they are now. When the latest
revision failed and never replaced the active one (a failed build), the active one already
runs what came before it: nothing is changed, it says so, and exit 0 (--to goes further back). Exit 4 when there
is nothing to roll back to, or --to is not one of the deployment's revisions. Prints the
deployment (-o json: the Deployment object) and, with --wait, waits for the new revision.${WAIT_HELP}${RELEASE_HELP}${examples(
          "cpctl deploy rollback my-agent --verify --verify-timeout 5m",
          "cpctl deploy rollback my-agent --wait",
          'cpctl deploy rollback my-agent --to "$REVISION_ID" --dry-run',
        )}`,
      ),
    run: (ctx, [ref], options) => runRollback(ctx, ref, options),
  }),
);
