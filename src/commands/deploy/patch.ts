import { patchDeployment } from "../../api/endpoints.js";
import type { Ctx } from "../../context.js";
import { UsageError } from "../../errors.js";
import { buildBody, rejectIssues } from "../../manifest/build.js";
import type { DeploymentT } from "../../model/responses.js";
import { revisionTriggers } from "../../model/rules.js";
import type { PatchRequest } from "../../model/schemas.js";
import { validatePatchRequest } from "../../model/validate.js";
import { deploymentView } from "../../output/views.js";
import { guardMutation } from "../mutation.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { addExtraBodyOptions, addFieldOptions, addFileOption, type MutationOptions } from "./body-options.js";
import { waitAfterMutation } from "./create.js";
import { resolveDeployment } from "./resolve.js";
import { intervalOption, timeoutOption, WAIT_HELP } from "./wait-options.js";

export default defineCommand({
  configure: (command) =>
    addExtraBodyOptions(
      addFieldOptions(
        addFileOption(command.argument("<deployment>", "deployment ID, or its exact name")),
        "patch",
      ),
    )
      .option("--dry-run", "validate and print the patch body (secret values masked); send nothing")
      .option("--wait", "then wait for the deployment's latest revision (as `deploy wait`)")
      .addOption(timeoutOption())
      .addOption(intervalOption())
      .addHelpText(
        "after",
        `\nOnly the fields given are sent. repo_ref, agent_config_path, image_uri, source_tarball_path,
resource_spec and secrets start a new revision; the command says whether one started.${WAIT_HELP}${examples(
          "cpctl deploy patch my-agent --repo-ref release-2 --wait",
          "cpctl deploy patch my-api --image-uri ghcr.io/acme/api:1.3 --cpu 2 --memory-mb 4096",
          "cpctl deploy patch my-agent --build-on-push=false   # no new revision",
        )}`,
      ),
  run: async (ctx, [ref], options) => {
    await runPatch(ctx, await resolveDeployment(ctx, ref), options as unknown as MutationOptions);
  },
});

export async function runPatch(ctx: Ctx, current: DeploymentT, options: MutationOptions): Promise<void> {
  const built = await buildBody("patch", options, ctx);
  if (!built.hasFields) {
    throw new UsageError(
      "nothing to change: give a field flag (e.g. --image-uri), --set PATH=VALUE, a secret flag or -f FILE",
    );
  }
  dropFixedIdentity(built.body, current);
  const checked = validatePatchRequest(built.body, current);
  if (!checked.ok) return rejectIssues(built, checked.issues, "the patch");
  await sendPatch(ctx, current, checked.value, options);
}

/** Sends a validated patch, reports whether it started a revision, and waits if asked. */
export async function sendPatch(
  ctx: Ctx,
  current: DeploymentT,
  body: PatchRequest,
  options: { dryRun?: boolean; wait?: boolean; timeout: number; interval: number },
): Promise<DeploymentT | null> {
  const printer = await ctx.printer();
  const triggers = revisionTriggers(body);
  if (options.dryRun) {
    await printer.value(body);
    ctx.log.info(
      `dry run: nothing was sent; this patch ${triggers.length ? `would start a new revision (${triggers.join(", ")})` : "would not start a new revision"}`,
    );
    return null;
  }
  await guardMutation(ctx, `patch deployment ${current.name}`);
  const updated = await patchDeployment(await ctx.api(), current.id, body);
  await printer.item(updated, deploymentView);
  const started = updated.latest_revision_id !== current.latest_revision_id;
  ctx.log.info(
    started
      ? `patched ${updated.name}; new revision ${updated.latest_revision_id} started`
      : `patched ${updated.name}; no new revision (none of the changed fields needs one)`,
  );
  if (options.wait) await waitAfterMutation(ctx, updated, options);
  return updated;
}

/**
 * A file written for create carries `name` and `source`, which a patch body has no room for.
 * Equal to the deployment's they say nothing and are dropped; different, they are an error.
 */
function dropFixedIdentity(body: Record<string, unknown>, current: DeploymentT): void {
  for (const field of ["name", "source"] as const) {
    if (!(field in body)) continue;
    if (body[field] !== current[field]) {
      throw new UsageError(
        `${field} is fixed at creation: the deployment's ${field} is '${current[field]}', not '${String(body[field])}'; remove ${field} from the file or create a new deployment`,
      );
    }
    delete body[field];
  }
}
