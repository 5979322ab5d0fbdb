// `deploy create`: the body from the file and flags (manifest/build.ts), what it lacks asked for
// on a terminal or named (prompt/), validated; then a create as create and apply send it: the
// preview (every field it adds), --dry-run, the confirmation, the create itself (never sent
// twice; see create-guard.ts), then print and wait.
import type { Ctx } from "../context.js";
import { type BodyFlags, buildBody, rejectIssues } from "../manifest/build.js";
import type { Change } from "../model/changes.js";
import { creationChanges } from "../model/plan.js";
import type { CreateRequest } from "../model/schemas.js";
import { validateCreateRequest } from "../model/validate.js";
import { completeCreateBody } from "../prompt/complete-create.js";
import type { FinishOptions, WaitingFlags } from "./after-change.js";
import { resolveIdFlags } from "./id-flags.js";
import { showPreview } from "./preview.js";

/** `deploy create`'s options: what its flags parse to (the command checks that they match). */
export type CreateInput = BodyFlags<"create"> & WaitingFlags & { dryRun?: boolean };

export async function runCreate(ctx: Ctx, input: CreateInput): Promise<void> {
  await resolveIdFlags(ctx, input);
  const built = await buildBody("create", input, ctx);
  await completeCreateBody(ctx, built.body);
  const checked = validateCreateRequest(built.body);
  if (!checked.ok) return rejectIssues(built, checked.issues, "the create request");
  await createWithPreview(ctx, checked.value, input, creationChanges(checked.value));
}

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
