// `deploy delete <deployment>...` (CLI.md): one deployment or several, each by ID, exact name
// or ID prefix (resolve.ts). Every reference is resolved before anything is asked or sent: an
// unknown one is exit 4 naming it (every unknown one), and nothing is deleted. One
// confirmation names them all (a terminal asks; elsewhere --yes, or exit 2).
//
// One deployment: DELETE /v2/deployments/{id}, as it always was. Several: the bulk
// DELETE /v2/deployments?deployment_ids=..., at most 100 a call, each call all or nothing
// (delete-batches.ts). --force sends force=true, which only the single call takes (the
// document's bulk call has no such parameter, and the service would ignore one): with --force,
// several are deleted one call each. The service refuses to force-delete a deployment that is
// still active (400): said with what to do. A call that fails part-way is said truthfully:
// which call, what was deleted, what was not, what cannot be known.
import { deleteDeployment } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { ApiError, NotFoundError } from "../errors.js";
import { BULK_DELETE_MAX } from "../model/enums.js";
import type { DeploymentT } from "../model/responses.js";
import { styled, visible, writeText } from "../output/safe-text.js";
import { guardMutation } from "./confirm.js";
import { DeletionStopped, deleteInBatches, explainStopped, type PartialDeletion } from "./delete-batches.js";
import { resolveDeployment, resolveDeployments } from "./resolve.js";
import { sendChange } from "./send-change.js";
import { suggestCommand } from "./suggest.js";

export interface DeleteInput {
  /** The arguments as given: one, or several. */
  refs: string[];
  force?: boolean;
}

/** What -o json prints for each deployment deleted. */
interface Deleted {
  id: string;
  name: string;
  deleted: true;
}

/** At most this many names in the question itself; the list above it names them all. */
const NAMES_IN_QUESTION = 10;
/** A hint's `deploy list --deployment-ids` names at most this many (else it lists them all). */
const IDS_IN_HINT = 20;

export async function runDelete(ctx: Ctx, input: DeleteInput): Promise<void> {
  const several = input.refs.length > 1;
  // Off a terminal without --yes, the deletion would be refused: say so before any request.
  if (!ctx.interactive && !ctx.flags.yes) await guardMutation(ctx, what(input), { always: true });
  const deployments = several
    ? await resolveDeployments(ctx, input.refs).catch((error: unknown) => {
        throw error instanceof NotFoundError ? error.withHint("Nothing was deleted.") : error;
      })
    : [await resolveDeployment(ctx, input.refs[0]!)];
  if (several) showList(ctx, deployments);
  await guardMutation(ctx, action(deployments), { always: true });
  const api = await ctx.api();
  let deleted: DeploymentT[];
  if (deployments.length === 1) {
    const [deployment] = deployments as [DeploymentT];
    // DELETE is retried by the API layer: an attempt before the one that failed may have deleted it.
    await sendChange(ctx, { what: "delete", deploymentId: deployment.id, retried: true }, () =>
      deleteDeployment(api, deployment.id, { force: input.force }),
    ).catch((error: unknown) => {
      throw input.force ? forceRefused(error, deployment) : error;
    });
    deleted = [deployment];
    ctx.log.info(`deleted deployment ${deployment.name} (${deployment.id})`);
  } else {
    deleted = await deleteSeveral(ctx, deployments, Boolean(input.force));
  }
  await printResult(ctx, deleted, several);
}

/** "delete deployment my-agent" or "delete 3 deployments": what --yes is asked for before anything is read. */
function what(input: DeleteInput): string {
  return input.refs.length === 1
    ? `delete deployment ${input.refs[0]}`
    : `delete ${input.refs.length} deployments`;
}

/** The confirmation's words: every name when they are few (the list above names them all). */
function action(deployments: DeploymentT[]): string {
  if (deployments.length === 1) return `delete deployment ${deployments[0]!.name} (${deployments[0]!.id})`;
  const names = deployments.map((d) => d.name);
  const named = names.length <= NAMES_IN_QUESTION ? names.join(", ") : "listed above";
  return `delete ${names.length} deployments (${named})`;
}

/** The deployments about to go, on stderr, a line each (the result goes to stdout). */
function showList(ctx: Ctx, deployments: DeploymentT[]): void {
  const width = Math.max(...deployments.map((d) => d.name.length));
  writeText(ctx.io.stderr, `Deleting ${deployments.length} deployments:\n`);
  for (const d of deployments)
    writeText(ctx.io.stderr, styled`  ${visible(d.name.padEnd(width))}  ${ctx.paint.dim(d.id)}\n`);
}

async function deleteSeveral(ctx: Ctx, deployments: DeploymentT[], force: boolean): Promise<DeploymentT[]> {
  const api = await ctx.api();
  try {
    const report = await deleteInBatches(api, deployments, {
      force,
      onBatch: (done, total) => {
        // After each call, or with --force (a call each) after each hundred.
        if (total > BULK_DELETE_MAX && (!force || done % BULK_DELETE_MAX === 0))
          ctx.log.info(`deleted ${done} of ${total}`);
      },
    });
    if (report.gone.length > 0) {
      ctx.log.info(
        `${report.gone.map((d) => d.name).join(", ")}: gone already when deleted (deleted meanwhile, or by a retried call whose first answer was lost)`,
      );
    }
    const done = new Set(report.deleted.map((d) => d.id));
    const deleted = deployments.filter((d) => done.has(d.id));
    // In the order given (those found gone after a 404 come last in the report).
    ctx.log.info(`deleted ${deleted.length} deployments: ${deleted.map((d) => d.name).join(", ")}`);
    return deleted;
  } catch (error) {
    if (error instanceof DeletionStopped) throw await stopped(ctx, error.partial, force);
    throw error;
  }
}

/**
 * A 400 to force=true: the service refuses to force-delete a deployment that is still active
 * (service-facts "Newer endpoints"). Said plainly, with what to do; the server's words kept.
 */
function forceRefused(error: unknown, deployment: DeploymentT): unknown {
  if (!(error instanceof ApiError && error.status === 400)) return error;
  const body = error.body as { detail?: unknown } | null;
  const detail = typeof body?.detail === "string" ? body.detail : "";
  const refused = new ApiError(
    400,
    `the service refused to force-delete deployment ${deployment.name}, which is still active: ${detail || "400 Bad Request"}`,
    error.body,
    error.method,
    error.path,
  );
  return refused.withHint(
    `--force is for a deployment at rest. Wait until its revision ends (cpctl deploy wait ${deployment.name}) and delete it again, or delete it without --force.`,
  );
}

/** A deletion that stopped part-way, said truthfully: deleted, not deleted, not known, and how to look. */
async function stopped(ctx: Ctx, partial: PartialDeletion, force: boolean): Promise<unknown> {
  const failed = partial.notDeleted[0] ?? partial.uncertain[0];
  const cause = force && failed ? forceRefused(partial.error, failed) : partial.error;
  const left = [...partial.notDeleted, ...partial.uncertain];
  const look =
    left.length <= IDS_IN_HINT
      ? await suggestCommand(ctx, ["deploy", "list", "--deployment-ids", left.map((d) => d.id).join(",")])
      : await suggestCommand(ctx, ["deploy", "list", "--all"]);
  return explainStopped(ctx.log, partial, cause, left.length > 0 ? [`See what is left with: ${look}`] : []);
}

/**
 * One argument: nothing on stdout in a table, the ID with -o id, the object otherwise (as it
 * always was). Several: one object each, an array in json and yaml, a line each in ndjson, an
 * ID a line with -o id.
 */
async function printResult(ctx: Ctx, deleted: DeploymentT[], several: boolean): Promise<void> {
  const printer = await ctx.printer();
  const results: Deleted[] = deleted.map((d) => ({ id: d.id, name: d.name, deleted: true }));
  switch (printer.options.format) {
    case "table":
      return;
    case "id":
      for (const result of results) printer.line(result.id);
      return;
    case "ndjson":
      for (const result of results) await printer.value(result);
      return;
    default:
      return printer.value(several ? results : results[0]);
  }
}
