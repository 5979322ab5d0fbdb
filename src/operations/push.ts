// `deploy push`: the everyday job in one command. A project directory goes to an
// internal_source deployment (push-source.ts), an image to an internal_container one
// (push-image.ts); the flow is the same (the Payload says what differs):
//
// Everything local first (push-request.ts: the flags, the name, the secrets, then what is
// shipped, read and checked): a mistake costs no request. Then the deployment is found by exact
// name across every page, or created; what is shipped is uploaded or pushed; the deployment is
// patched to point at it (with the merged secrets and any changed setting) the way every change
// is sent (change.ts); and the new revision is waited for, shown and reported as every change's
// is (after-change.ts). When the latest revision is the active one, runs what would be shipped
// already and no setting changes, nothing is sent at all.
import type { ApiClient } from "../api/client.js";
import { createDeployment, getDeployment, getRevision } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { ApiError, CliError, InterruptedError, UsageError } from "../errors.js";
import type { Change } from "../model/changes.js";
import { isTerminalRevisionStatus } from "../model/enums.js";
import { creationChanges, type PatchPlan, planPatch } from "../model/plan.js";
import type { DeploymentT } from "../model/responses.js";
import type { CreateRequest } from "../model/schemas.js";
import { validateCreateRequest } from "../model/validate.js";
import { type Ending, finishChange, type Showing } from "./after-change.js";
import { invalidPlan, patchAndFinish } from "./change.js";
import { guardMutation } from "./confirm.js";
import { guardedCreate } from "./create-guard.js";
import { guardNearMiss } from "./near-miss.js";
import { warnAbsentUnsets } from "./patch.js";
import { showPreview } from "./preview.js";
import { postPreviewComment } from "./preview-comment.js";
import { PushReport, type RunningRevision, type ShippedFields } from "./push-payload.js";
import { type PushInput, preparePush, type Shipment } from "./push-request.js";
import { offerToRemember } from "./remembered-name.js";
import { deploymentsNamed } from "./resolve.js";
import { stateCommand } from "./suggest.js";
import { verifies } from "./verify.js";

export type { PushInput } from "./push-request.js";

/** `dir`: the project directory of a source push (default "."); none with --image or --image-archive. */
export async function runPush(ctx: Ctx, dir: string | undefined, input: PushInput): Promise<void> {
  const report = new PushReport(ctx, await ctx.printer());
  const shipment = await preparePush(ctx, dir, input, report);
  try {
    const found = await findDeployment(ctx, shipment);
    if (found) {
      await report.step("found", `Found deployment ${found.name} (${found.id})`, { deployment: found });
      await pushToExisting(ctx, shipment, found, report);
    } else {
      await guardNearMiss(ctx, shipment.name, {
        create: shipment.options.create,
        useInstead: (existing) =>
          `pass --name ${nameToPush(shipment, existing)} to push to ${shipment.preview ? "its preview" : "it"}`,
      });
      ctx.log.info(
        `no deployment is named ${JSON.stringify(shipment.name)}: ${shipment.options.dryRun ? "it would be" : "it will be"} created as ${shipment.payload.source}`,
      );
      await pushToNew(ctx, shipment, report);
    }
  } finally {
    shipment.payload.release();
  }
  if (shipment.remember) await offerToRemember(ctx, shipment.remember, shipment.preview?.of ?? shipment.name);
}

/** What --name pushes to `existing`: its own name, or for a preview NAME-pr-N, its NAME. */
function nameToPush(shipment: Shipment, existing: string): string {
  const suffix = shipment.preview ? `-pr-${shipment.preview.number}` : "";
  return suffix && existing.endsWith(suffix) ? existing.slice(0, -suffix.length) : existing;
}

/** The deployment of that exact name, null when none; one of another source is a usage error. */
async function findDeployment(ctx: Ctx, shipment: Shipment): Promise<DeploymentT | null> {
  const { name } = shipment;
  const matches = await deploymentsNamed(ctx, name);
  if (matches.length > 1) {
    throw new UsageError(
      `${matches.length} deployments are named '${name}'; push needs a unique name: ${matches.map((d) => d.id).join(", ")}`,
    );
  }
  const found = matches[0] ?? null;
  if (found && found.source !== shipment.payload.source) throw otherSource(found, shipment);
  return found;
}

function otherSource(deployment: DeploymentT, shipment: Shipment): UsageError {
  const fits: Record<string, string> = {
    gitrepo: `cpctl deploy patch ${deployment.name} --repo-ref REF (it builds from its repository)`,
    internal_container: `cpctl deploy push --image IMAGE --name ${deployment.name} (or --image-archive FILE)`,
    internal_source: `cpctl deploy push DIR --name ${deployment.name} (it builds from a project directory)`,
    external_container: `cpctl deploy patch ${deployment.name} --image-uri IMAGE`,
  };
  const what =
    shipment.payload.source === "internal_source"
      ? "deploy push [DIR] ships a directory to internal_source deployments only"
      : "deploy push --image and --image-archive ship an image to internal_container deployments only";
  return new UsageError(`deployment ${deployment.name} has source ${deployment.source}: ${what}`).withHint(
    `For this one: ${fits[deployment.source] ?? `cpctl deploy patch ${deployment.name}`}`,
  );
}

// --- an existing deployment ---

async function pushToExisting(
  ctx: Ctx,
  shipment: Shipment,
  found: DeploymentT,
  report: PushReport,
): Promise<void> {
  const { payload, options } = shipment;
  const settings = planFor(found, shipment, null);
  warnAbsentUnsets(ctx, found, settings.absent);
  const api = await ctx.api();
  const active =
    settings.changes.length === 0 && !options.force ? await runsAlready(ctx, api, shipment, found) : null;
  if (active) {
    ctx.log.info(
      `nothing to push: the active revision ${active.id} of ${found.name} runs ${active.what} already with these settings; nothing was sent (--force pushes anyway)`,
    );
    if (options.dryRun) return printDryRun(ctx, shipment, found, "none", []);
    return finishChange(
      ctx,
      {
        deployment: found,
        kind: "unchanged",
        changes: [],
        revision: { id: active.id, status: active.status },
      },
      { ...options, wait: false },
      resultShown(ctx, report, shipment, { created: false, uploaded: false }),
    );
  }
  const pending = payload.pendingChange(found);
  const changes = [pending, ...settings.changes];
  await showPreview(ctx, {
    action: "patch",
    name: found.name,
    deploymentId: found.id,
    changes,
    triggers: [pending.path, ...settings.triggers],
    headline: `Pushing ${payload.shown} to deployment ${found.name}`,
    current: found,
  });
  if (options.dryRun) return printDryRun(ctx, shipment, found, "patch", changes);
  await guardMutation(ctx, `push ${payload.shown} to deployment ${found.name}`);
  await shipAndPatch(ctx, api, shipment, found, false, report);
}

/**
 * The active revision, when a push would add nothing to it: it is the deployment's latest (no
 * newer revision failed, none builds that would replace it) and runs what would be shipped.
 * (A revision runs the deployment's settings as they were when it started; with no newer
 * revision, no patch has changed them since: every change of a setting push sends starts one.)
 * A push that cannot be left out for the first reason says so.
 */
async function runsAlready(
  ctx: Ctx,
  api: ApiClient,
  shipment: Shipment,
  found: DeploymentT,
): Promise<RunningRevision | null> {
  const active = await shipment.payload.runningAlready(api, found);
  if (!active || found.latest_revision_id === null || found.latest_revision_id === active.id) return active;
  const latest = await getRevision(api, found.id, found.latest_revision_id);
  const why = isTerminalRevisionStatus(latest.status)
    ? `the latest revision ${latest.id} ended ${latest.status}`
    : `revision ${latest.id} is still ${latest.status} and would replace it`;
  ctx.log.info(
    `the active revision ${active.id} of ${found.name} runs ${active.what} already, but ${why}: pushing again`,
  );
  return null;
}

/** The change of the PATCH; what shipping sets is left out until it gives it. */
function planFor(current: DeploymentT, shipment: Shipment, shipped: ShippedFields | null): PatchPlan {
  const planned = planPatch(current, {
    body: {
      ...(shipped?.revision_source ? { revision_source: shipped.revision_source } : {}),
      source_revision_config: {
        ...shipment.payload.settings(current),
        ...(shipped?.source_revision_config ?? {}),
      },
      secrets: shipment.secrets ?? null,
    },
    unsetSecrets: shipment.options.unsetSecret,
  });
  if (!planned.ok) throw invalidPlan(planned.issues);
  return planned.plan;
}

// --- a new deployment ---

async function pushToNew(ctx: Ctx, shipment: Shipment, report: PushReport): Promise<void> {
  const { payload, options } = shipment;
  const body = createBody(shipment);
  const changes = [...creationChanges(body), payload.pendingChange(null)];
  await showPreview(ctx, {
    action: "create",
    name: body.name,
    deploymentId: null,
    changes,
    triggers: [],
    headline: `Creating deployment ${body.name} (${payload.source}) and pushing ${payload.shown} to it`,
  });
  if (options.unsetSecret?.length) {
    ctx.log.warn(`a new deployment has no secret to unset: ${options.unsetSecret.join(", ")}`);
  }
  if (options.dryRun) return printDryRun(ctx, shipment, null, "create", changes, body);
  await guardMutation(ctx, `create deployment ${body.name} and push ${payload.shown} to it`);
  const api = await ctx.api();
  let deployment: DeploymentT;
  let created = true;
  try {
    deployment = await guardedCreate(ctx, body, () => createDeployment(api, body));
  } catch (error) {
    // Another push of the same name created it first: go on with that one.
    if (!(error instanceof ApiError && error.status === 409)) throw error;
    const again = await findDeployment(ctx, shipment);
    if (!again) throw error;
    ctx.log.info(`deployment ${body.name} was created meanwhile (HTTP 409): pushing to it`);
    await report.step("found", `Found deployment ${again.name} (${again.id})`, { deployment: again });
    deployment = again;
    created = false;
  }
  if (created) {
    await report.step("created", `Created deployment ${deployment.name} (${deployment.id})`, { deployment });
  }
  await shipAndPatch(ctx, api, shipment, deployment, created, report);
}

function createBody(shipment: Shipment): CreateRequest {
  const body = {
    name: shipment.name,
    source: shipment.payload.source,
    source_config: {},
    source_revision_config: shipment.payload.createRevisionConfig(),
    secrets: shipment.secrets ?? [],
  };
  const checked = validateCreateRequest(body);
  if (!checked.ok) throw invalidPlan(checked.issues);
  return checked.value;
}

// --- shipping, the patch, the wait ---

async function shipAndPatch(
  ctx: Ctx,
  api: ApiClient,
  shipment: Shipment,
  deployment: DeploymentT,
  created: boolean,
  report: PushReport,
): Promise<void> {
  const { payload, options } = shipment;
  let shipped: ShippedFields;
  try {
    shipped = await payload.ship(ctx, api, deployment, report);
  } catch (error) {
    throw await nothingPatched(ctx, error, deployment, created, payload.shipping);
  }
  // Shipping took time: the patch is planned against the deployment as it is now.
  const current = await getDeployment(api, deployment.id);
  const plan = planFor(current, shipment, shipped);
  if (payload.trackedPackages.length > 0) {
    plan.body = { ...plan.body, tracked_packages: payload.trackedPackages } as PatchPlan["body"];
  }
  await patchAndFinish(
    ctx,
    current,
    plan,
    { ...options, previewShown: true, quiet: true },
    {
      ...resultShown(ctx, report, shipment, { created, uploaded: true }),
      sent: ({ deployment: patched, started }) =>
        report.step(
          "patched",
          started
            ? `Started revision ${patched.latest_revision_id}`
            : `Patched ${patched.name}; no new revision`,
          { deployment: patched, revision_id: patched.latest_revision_id, started },
        ),
      events: report,
    },
  );
}

/** Shipping failed: the message says what state the deployment is left in. */
async function nothingPatched(
  ctx: Ctx,
  error: unknown,
  deployment: DeploymentT,
  created: boolean,
  shipping: string,
): Promise<unknown> {
  const state = created
    ? `deployment ${deployment.name} was created (${deployment.id}) but has no source yet: run the same command again to push to it`
    : `nothing was patched: deployment ${deployment.name} is unchanged`;
  if (error instanceof InterruptedError) {
    return new InterruptedError(`interrupted during ${shipping}; ${state}`).withHint(
      `See it with: ${await stateCommand(ctx, deployment.id)}`,
    );
  }
  if (error instanceof CliError) return error.withHint(`${capitalise(shipping)} did not complete; ${state}.`);
  return error;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The push's result on stdout (push-payload.ts's PushReport), for each way a push ends. */
function resultShown(
  ctx: Ctx,
  report: PushReport,
  shipment: Shipment,
  shipped: { created: boolean; uploaded: boolean },
): Showing {
  const released = verifies(shipment.options) || Boolean(shipment.options.rollbackOnFailure);
  const { preview, comment } = shipment;
  return {
    ...(preview && comment
      ? { reported: (ending: Ending) => postPreviewComment(ctx, comment, preview, ending) }
      : {}),
    show: ({ deployment, revision, result, verdict, verification, rollback, failure }) =>
      report.done({
        deployment,
        revision,
        ...shipped,
        ...shipment.payload.result(),
        result,
        elapsed_seconds: verdict ? verdict.elapsed_seconds : null,
        url: deployment.source_config.custom_url ?? null,
        failure: failure ?? null,
        ...(shipment.preview ? { preview_number: shipment.preview.number } : {}),
        ...(released ? { verification: verification ?? null, rollback: rollback ?? null } : {}),
      }),
  };
}

/** --dry-run: what would be created or patched, and what would be shipped. */
async function printDryRun(
  ctx: Ctx,
  shipment: Shipment,
  current: DeploymentT | null,
  action: "create" | "patch" | "none",
  changes: Change[],
  createRequest?: CreateRequest,
): Promise<void> {
  const shown = shipment.payload.dryRun();
  const printer = await ctx.printer();
  await printer.value(
    {
      name: shipment.name,
      ...(shipment.preview ? { preview_number: shipment.preview.number } : {}),
      deployment_id: current?.id ?? null,
      action,
      ...(createRequest ? { create: createRequest } : {}),
      changes: changes.map((change) => ({ path: change.path, kind: change.kind })),
      ...shown.fields,
    },
    () => shown.text,
  );
  const sent = shipment.payload.source === "internal_source" ? "uploaded" : "pushed";
  ctx.log.info(
    `dry run: ${action === "none" ? "nothing would be sent" : `nothing was ${action === "create" ? "created or " : ""}${sent} or patched`}`,
  );
}
