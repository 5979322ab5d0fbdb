import type { Ctx } from "../../context.js";
import { ApiError } from "../../errors.js";
import type { PatchRequest } from "../../model/schemas.js";
import { finishChange } from "../../operations/after-change.js";
import { createWithPreview } from "../../operations/create.js";
import { patchWithPreview } from "../../operations/patch.js";
import {
  type FilePlan,
  immutableChangesError,
  planAgainstDeployment,
  planFromFile,
} from "../../operations/plan-from-file.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { addExtraBodyOptions, addFieldOptions, addFileOption } from "./body-options.js";
import type { CreateOptions } from "./create.js";
import { addWaitOptions, WAIT_HELP } from "./wait-options.js";

export default defineCommand({
  configure: (command) =>
    addWaitOptions(
      addExtraBodyOptions(addFieldOptions(addFileOption(command, true), "create")).option(
        "--dry-run",
        "show what would change and be sent (secret values masked); send nothing",
      ),
    ).addHelpText(
      "after",
      `\nCreates the deployment when none has the file's name; otherwise sends a patch with only the fields
that differ. Fields the file leaves out (or sets to null) are left as they are, and resource_spec
merges field by field; a secrets (or secret_references) list in the file is the whole set, so a
secret the deployment has beyond the file is removed. Before sending, stderr lists every field
and secret added, changed and removed (values masked). A difference in a field fixed at
creation is an error naming it. If another apply creates the deployment first, this one patches
it instead. Run \`cpctl deploy diff -f FILE\` to see the plan.${WAIT_HELP}${examples(
        "cpctl deploy apply -f deploy.yaml --wait",
        "cpctl deploy apply -f api.yaml --set source_revision_config.image_uri=ghcr.io/acme/api:$SHA",
      )}`,
    ),
  run: async (ctx, _args, options) => {
    const opts = options;
    const planned = await planFromFile(ctx, opts);
    if (!planned.current) {
      ctx.log.info(
        `no deployment is named ${JSON.stringify(planned.desired.name)}: ${opts.dryRun ? "would create" : "creating"} it`,
      );
      try {
        await createWithPreview(ctx, planned.desired, opts, planned.plan.changes);
        return;
      } catch (error) {
        // Two applies of a new deployment race: the loser's create is refused (names are
        // unique). The winner's deployment is what the file is applied to now.
        if (!(error instanceof ApiError && error.status === 409)) throw error;
        ctx.log.info(
          `deployment ${planned.desired.name} was created meanwhile (HTTP 409): patching it instead`,
        );
        const again = await planAgainstDeployment(ctx, planned.desired, planned.opinions);
        if (!again.current) throw error;
        return applyToExisting(ctx, again, opts);
      }
    }
    await applyToExisting(ctx, planned, opts);
  },
});

async function applyToExisting(ctx: Ctx, { current, plan }: FilePlan, options: CreateOptions): Promise<void> {
  if (!current) return;
  const refused = immutableChangesError(plan);
  if (refused) throw refused;
  if (plan.action === "none") {
    ctx.log.info(`deployment ${current.name} already matches the file: nothing to do`);
    if (!options.dryRun) await finishChange(ctx, current, options, "unchanged");
    return;
  }
  await patchWithPreview(ctx, current, { body: plan.body as PatchRequest, changes: plan.changes }, options);
}
