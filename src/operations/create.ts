// A create as create and apply send it: the preview (every field it adds), --dry-run, the
// confirmation, the create itself (never sent twice; see create-guard.ts), then print and wait.
import type { Ctx } from "../context.js";
import type { Change } from "../model/changes.js";
import type { CreateRequest } from "../model/schemas.js";
import type { FinishOptions } from "./after-change.js";
import { showPreview } from "./preview.js";

/** Sends a validated create (or prints it for --dry-run), then prints and waits as asked. */
export async function createWithPreview(
  ctx: Ctx,
  body: CreateRequest,
  options: FinishOptions & { dryRun?: boolean },
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
    import("./confirm.js"),
    import("../api/endpoints.js"),
    import("./create-guard.js"),
    import("./after-change.js"),
  ]);
  await guardMutation(ctx, `create deployment ${body.name}`);
  const deployment = await guardedCreate(ctx, body, () =>
    ctx.api().then((api) => createDeployment(api, body)),
  );
  ctx.log.info(
    `created deployment ${deployment.name} (${deployment.id}); revision ${deployment.latest_revision_id ?? "none"}`,
  );
  await finishChange(ctx, { deployment, kind: "created", changes }, options);
}
