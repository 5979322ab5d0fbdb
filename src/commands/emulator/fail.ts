// `cpctl emulator fail DEPLOYMENT`: a revision in progress (the latest, or --revision) fails
// at the end of a stage it has not passed yet.
import { Option } from "@commander-js/extra-typings";
import { failRevision } from "../../api/emulator-controls.js";
import { OperationError } from "../../errors.js";
import { FAILABLE_STAGES } from "../../model/enums.js";
import { resolveDeployment, resolveRevisionId } from "../../operations/resolve.js";
import { revisionView } from "../../output/views.js";
import { examples, idOrPrefix, oneOf } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { emulatorTarget, TENANT_CONTROL_HELP } from "./shared.js";

export default defineCommand({
  configure: (command) =>
    command
      .argument("<deployment>", "deployment ID, name or ID prefix")
      .addOption(
        new Option("--stage <stage>", "the stage at whose end it fails")
          .choices(FAILABLE_STAGES)
          .argParser(oneOf(FAILABLE_STAGES))
          .makeOptionMandatory(),
      )
      .option(
        "--revision <id>",
        "this revision, or its first 8 characters or more (default: the latest)",
        idOrPrefix,
      )
      .option(
        "--message <text>",
        "the error the revision's log ends with (default: a realistic one for the stage)",
      )
      .addHelpText(
        "after",
        `
Prints the revision. The emulator refuses (409) a revision that has ended, has passed that
stage, or never passes through it (a container revision has no build stages).
${TENANT_CONTROL_HELP}${examples(
  "cpctl deploy redeploy my-agent && cpctl emulator fail my-agent --stage DEPLOYING || echo 'too late'",
  `cpctl emulator fail my-agent --revision "$REVISION_ID" --stage BUILDING --message 'exit 1' || echo 'too late'`,
)}`,
      ),
  run: async (ctx, [ref], options) => {
    // Before the deployment is looked up: that look-up carries the credentials too.
    const target = await emulatorTarget(ctx);
    const deployment = await resolveDeployment(ctx, ref);
    const revisionId = options.revision
      ? await resolveRevisionId(ctx, deployment.id, options.revision)
      : deployment.latest_revision_id;
    if (!revisionId)
      throw new OperationError(`deployment ${deployment.name} has no revision to fail`, "no_revision");
    const revision = await failRevision(target, deployment.id, revisionId, {
      stage: options.stage,
      ...(options.message !== undefined ? { message: options.message } : {}),
    });
    await (await ctx.printer()).item(revision, revisionView);
  },
});
