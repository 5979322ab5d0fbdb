import type { Ctx } from "../../context.js";
import { buildBody, rejectIssues } from "../../manifest/build.js";
import { creationChanges } from "../../manifest/plan.js";
import type { Change } from "../../model/changes.js";
import type { CreateRequest } from "../../model/schemas.js";
import { validateCreateRequest } from "../../model/validate.js";
import { showPreview } from "../../operations/preview.js";
import { completeCreateBody } from "../../prompt/complete-create.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { addExtraBodyOptions, addFieldOptions, addFileOption, type MutationOptions } from "./body-options.js";
import { addWaitOptions, WAIT_HELP } from "./wait-options.js";

export type CreateOptions = MutationOptions;

export default defineCommand({
  configure: (command) =>
    addWaitOptions(
      addExtraBodyOptions(addFieldOptions(addFileOption(command), "create")).option(
        "--dry-run",
        "validate and print the request (secret values masked); send nothing",
      ),
    ).addHelpText(
      "after",
      `${WAIT_HELP}${examples(
        "cpctl deploy create -f deployment.yaml --wait",
        "cpctl deploy create --name my-agent --source gitrepo --integration-id $ID \\",
        "    --repo-url https://github.com/acme/agent --repo-ref main --agent-config-path agent.json",
        "cpctl deploy create --name api --source external_container --image-uri ghcr.io/acme/api:1.2 \\",
        "    --cpu 1 --memory-mb 2048 --secret OPENAI_API_KEY --dry-run",
      )}`,
    ),
  run: async (ctx, _args, options) => {
    await runCreate(ctx, options as unknown as CreateOptions);
  },
});

export async function runCreate(ctx: Ctx, options: CreateOptions): Promise<void> {
  const built = await buildBody("create", options, ctx);
  await completeCreateBody(ctx, built.body);
  const checked = validateCreateRequest(built.body);
  if (!checked.ok) return rejectIssues(built, checked.issues, "the create request");
  await sendCreate(ctx, checked.value, options, creationChanges(checked.value));
}

/** Sends a validated create (or prints it for --dry-run), then prints and waits as asked. */
export async function sendCreate(
  ctx: Ctx,
  body: CreateRequest,
  options: { dryRun?: boolean; wait?: boolean; timeout: number; interval: number },
  changes: Change[],
): Promise<void> {
  const printer = await ctx.printer();
  await showPreview(ctx, { action: "create", name: body.name, deploymentId: null, changes, triggers: [] });
  if (options.dryRun) {
    await printer.value(body);
    ctx.log.info("dry run: the request is valid; nothing was sent");
    return;
  }
  // Loaded here, not at the top: --dry-run needs none of the confirmation, the HTTP client, the
  // duplicate guard, the views or the waiter.
  const [{ guardMutation }, { createDeployment }, { guardedCreate }, { finishChange }] = await Promise.all([
    import("../../operations/confirm.js"),
    import("../../api/endpoints.js"),
    import("../../operations/create-guard.js"),
    import("../../operations/after-change.js"),
  ]);
  await guardMutation(ctx, `create deployment ${body.name}`);
  const deployment = await guardedCreate(ctx, body, () =>
    ctx.api().then((api) => createDeployment(api, body)),
  );
  ctx.log.info(
    `created deployment ${deployment.name} (${deployment.id}); revision ${deployment.latest_revision_id ?? "none"}`,
  );
  await finishChange(ctx, deployment, options, "created");
}
