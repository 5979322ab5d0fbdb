import type { PatchRequest } from "../../model/schemas.js";
import { deploymentView } from "../../output/views.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { addExtraBodyOptions, addFieldOptions, addFileOption } from "./body-options.js";
import { type CreateOptions, sendCreate, waitAfterMutation } from "./create.js";
import { sendPatch } from "./patch.js";
import { immutableChangesError, planFromFile } from "./plan-from-file.js";
import { intervalOption, timeoutOption, WAIT_HELP } from "./wait-options.js";

export default defineCommand({
  configure: (command) =>
    addExtraBodyOptions(addFieldOptions(addFileOption(command, true), "create"))
      .option("--dry-run", "show what would be sent (secret values masked); send nothing")
      .option("--wait", "then wait until the latest revision is deployed (as `deploy wait`)")
      .addOption(timeoutOption())
      .addOption(intervalOption())
      .addHelpText(
        "after",
        `\nCreates the deployment when none has the file's name; otherwise sends a patch with only the fields
that differ (fields the file leaves out are left as they are). A difference in a field fixed at
creation is an error naming it. Run \`cpctl deploy diff -f FILE\` to see the plan.${WAIT_HELP}${examples(
          "cpctl deploy apply -f deploy.yaml --wait",
          "cpctl deploy apply -f deploy.yaml --set source_revision_config.image_uri=ghcr.io/acme/api:$SHA",
        )}`,
      ),
  run: async (ctx, _args, options) => {
    const opts = options as unknown as CreateOptions;
    const { desired, current, plan } = await planFromFile(ctx, opts);
    if (!current) {
      ctx.log.info(
        `no deployment is named ${JSON.stringify(desired.name)}: ${opts.dryRun ? "would create" : "creating"} it`,
      );
      await sendCreate(ctx, desired, opts);
      return;
    }
    const refused = immutableChangesError(plan);
    if (refused) throw refused;
    if (plan.action === "none") {
      ctx.log.info(`deployment ${current.name} already matches the file: nothing to do`);
      if (!opts.dryRun) await (await ctx.printer()).item(current, deploymentView);
      if (opts.wait && !opts.dryRun) await waitAfterMutation(ctx, current, opts);
      return;
    }
    ctx.log.info(
      `deployment ${current.name} differs in ${plan.changes.map((c) => c.path).join(", ")}: patching`,
    );
    await sendPatch(ctx, current, plan.body as PatchRequest, opts);
  },
});
