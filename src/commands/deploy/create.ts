import type { Ctx } from "../../context.js";
import { buildBody, rejectIssues } from "../../manifest/build.js";
import type { DeploymentT } from "../../model/responses.js";
import type { CreateRequest } from "../../model/schemas.js";
import { validateCreateRequest } from "../../model/validate.js";
import { completeCreateBody } from "../../prompt/complete-create.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { addExtraBodyOptions, addFieldOptions, addFileOption, type MutationOptions } from "./body-options.js";
import { intervalOption, timeoutOption, WAIT_HELP } from "./wait-options.js";

export type CreateOptions = MutationOptions;

export default defineCommand({
  configure: (command) =>
    addExtraBodyOptions(addFieldOptions(addFileOption(command), "create"))
      .option("--dry-run", "validate and print the request (secret values masked); send nothing")
      .option("--wait", "then wait until the first revision is deployed (as `deploy wait`)")
      .addOption(timeoutOption())
      .addOption(intervalOption())
      .addHelpText(
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

export async function runCreate(ctx: Ctx, options: CreateOptions): Promise<DeploymentT | null> {
  const built = await buildBody("create", options, ctx);
  await completeCreateBody(ctx, built.body);
  const checked = validateCreateRequest(built.body);
  if (!checked.ok) return rejectIssues(built, checked.issues, "the create request");
  return sendCreate(ctx, checked.value, options);
}

/** Sends a validated create (or prints it for --dry-run), then waits if asked. */
export async function sendCreate(
  ctx: Ctx,
  body: CreateRequest,
  options: { dryRun?: boolean; wait?: boolean; timeout: number; interval: number },
): Promise<DeploymentT | null> {
  const printer = await ctx.printer();
  if (options.dryRun) {
    await printer.value(body);
    ctx.log.info("dry run: the request is valid; nothing was sent");
    return null;
  }
  // Loaded here, not at the top: --dry-run needs none of the confirmation, the HTTP client, the
  // duplicate guard, the views or the waiter.
  const [{ guardMutation }, { createDeployment }, { guardedCreate }, { deploymentView }] = await Promise.all([
    import("../mutation.js"),
    import("../../api/endpoints.js"),
    import("./create-guard.js"),
    import("../../output/views.js"),
  ]);
  await guardMutation(ctx, `create deployment ${body.name}`);
  const deployment = await guardedCreate(ctx, body, () =>
    ctx.api().then((api) => createDeployment(api, body)),
  );
  // Printed before any wait, so the ID is on stdout even if the wait fails or is interrupted.
  await printer.item(deployment, deploymentView);
  ctx.log.info(
    `created deployment ${deployment.name} (${deployment.id}); revision ${deployment.latest_revision_id ?? "none"}`,
  );
  if (options.wait) await waitAfterMutation(ctx, deployment, options);
  return deployment;
}

/** `--wait` after create, patch or apply: wait for the deployment's latest revision. */
export async function waitAfterMutation(
  ctx: Ctx,
  deployment: DeploymentT,
  options: { timeout: number; interval: number },
) {
  if (!deployment.latest_revision_id) {
    ctx.log.info("no revision to wait for");
    return;
  }
  const { assertDeployed, waitForRevision } = await import("../../wait/run.js");
  const verdict = await waitForRevision(
    ctx,
    { deploymentId: deployment.id, revisionId: deployment.latest_revision_id },
    options,
  );
  assertDeployed(ctx, verdict);
  ctx.log.info(`revision ${verdict.revision_id} is ${verdict.status}`);
}
