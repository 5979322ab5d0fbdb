// `deploy prune --previews-of NAME [--pr N] [--older-than DURATION]`: deletes the preview
// deployments `deploy push --preview` made (CLI.md "Releases"), and only those: a deployment
// named exactly NAME-pr-<digits> (model/preview-name.ts), never NAME, never another name. They
// are found by listing with name_contains (every page), each name then checked exactly; --pr
// keeps only pull request N's, --older-than only those whose updated_at is older than that by
// the server's clock (the Date header of the list's answer, not this machine's). The list is
// shown on stderr, the deletion confirmed (a terminal asks; elsewhere --yes, or exit 2 before
// any request), and sent as bulk DELETEs of at most 100 IDs (delete-batches.ts). The result says
// which were deleted and which previews were kept (matched the name, not the filters).
import { listDeploymentsDated } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { UsageError } from "../errors.js";
import { BULK_DELETE_MAX } from "../model/enums.js";
import {
  isPreviewOf,
  parsePullRequestNumber,
  previewName,
  previewNameProblem,
  previewPrefix,
} from "../model/preview-name.js";
import type { DeploymentT } from "../model/responses.js";
import { relativeTime } from "../output/relative-time.js";
import { styled, visible, writeText } from "../output/safe-text.js";
import { formatDuration } from "../util/duration.js";
import { guardMutation } from "./confirm.js";
import { DeletionStopped, deleteInBatches, explainStopped, type PartialDeletion } from "./delete-batches.js";
import { suggestCommand } from "./suggest.js";

export interface PruneInput {
  previewsOf: string;
  /** --pr N, as given: only pull request N's preview. */
  pr?: string;
  /** --older-than, in ms: only those not updated for longer. */
  olderThan?: number;
  dryRun?: boolean;
}

/** `-o json`: the names deleted, and the previews of NAME kept (they did not match the filters). */
export interface PruneResult {
  deleted: string[];
  kept: string[];
  /** --dry-run: what would be deleted (and nothing is). */
  would_delete?: string[];
}

/** A preview as listed, with the server's time of the answer that listed it. */
interface Listed {
  deployment: DeploymentT;
  serverTime: number | null;
}

/** The input with --pr read. */
interface Filters extends Omit<PruneInput, "pr"> {
  pr?: number;
}

export async function runPrune(ctx: Ctx, given: PruneInput): Promise<void> {
  const input = checkedInput(given);
  const name = input.previewsOf;
  // Off a terminal without --yes, the deletion would be refused: say so before any request.
  if (!input.dryRun && !ctx.interactive && !ctx.flags.yes) {
    await guardMutation(ctx, `delete the preview deployments of ${name}`, { always: true });
  }
  const previews = await listPreviews(ctx, name);
  const now = clockFor(ctx, previews, input);
  const matched = previews.filter((p) => matches(p, name, input, now));
  const kept = previews.filter((p) => !matched.includes(p));
  showList(ctx, name, previews, matched, now);
  const names = (list: Listed[]) => list.map((p) => p.deployment.name);
  if (matched.length === 0) {
    ctx.log.info(`nothing to prune: ${nothingMatched(name, previews.length, input)}`);
    return printResult(ctx, { deleted: [], kept: names(kept) }, []);
  }
  if (input.dryRun) {
    ctx.log.info(`dry run: nothing was deleted (${count(matched.length)} would be)`);
    return printResult(ctx, { deleted: [], kept: names(kept), would_delete: names(matched) }, []);
  }
  await guardMutation(ctx, `delete ${count(matched.length)} of ${name}`, { always: true });
  const api = await ctx.api();
  const targets = matched.map((p) => p.deployment);
  try {
    const report = await deleteInBatches(api, targets, {
      onBatch: (done, total) => {
        if (total > BULK_DELETE_MAX) ctx.log.info(`deleted ${done} of ${total}`);
      },
    });
    if (report.gone.length > 0) {
      ctx.log.info(
        `${report.gone.map((d) => d.name).join(", ")}: gone already when deleted (deleted meanwhile, or by a retried call whose first answer was lost)`,
      );
    }
    ctx.log.info(
      `deleted ${count(report.deleted.length)} of ${name}: ${report.deleted.map((d) => d.name).join(", ")}`,
    );
    await printResult(ctx, { deleted: report.deleted.map((d) => d.name), kept: names(kept) }, report.deleted);
  } catch (error) {
    if (error instanceof DeletionStopped) throw await stopped(ctx, name, error.partial);
    throw error;
  }
}

/** --pr N read; --previews-of NAME, a NAME whose previews could be deployments at all (and --pr's). */
function checkedInput(input: PruneInput): Filters {
  const pr = input.pr === undefined ? undefined : parsePullRequestNumber(input.pr);
  if (pr === null) {
    throw new UsageError(
      `--pr ${JSON.stringify(input.pr!.slice(0, 40))}: expected a pull request's number, a whole number from 1`,
    );
  }
  const name = input.previewsOf;
  if (name.trim() === "")
    throw new UsageError("--previews-of is empty: give the name of the deployment previewed");
  const problem = previewNameProblem(name, pr ?? 1);
  if (problem) throw new UsageError(`--previews-of: ${problem}; no deployment can have that name`);
  return { ...input, pr };
}

/** Every deployment named NAME-pr-<digits>: all pages of name_contains, each name checked exactly. */
async function listPreviews(ctx: Ctx, name: string): Promise<Listed[]> {
  const api = await ctx.api();
  const found = new Map<string, Listed>();
  for (let offset = 0; ; ) {
    const { page, serverTime } = await listDeploymentsDated(
      api,
      { name_contains: previewPrefix(name) },
      { limit: BULK_DELETE_MAX, offset },
    );
    for (const deployment of page.resources) {
      // name_contains matches anywhere, and may ignore case: the exact rule decides.
      if (isPreviewOf(name, deployment.name) && !found.has(deployment.id))
        found.set(deployment.id, { deployment, serverTime });
    }
    if (page.resources.length < BULK_DELETE_MAX) break;
    offset = page.offset > offset ? page.offset : offset + page.resources.length;
  }
  return [...found.values()].sort((a, b) => pullRequestOf(name, a) - pullRequestOf(name, b));
}

function pullRequestOf(name: string, listed: Listed): number {
  return Number(listed.deployment.name.slice(previewPrefix(name).length));
}

/**
 * Now, by the server's clock (the answer's Date); this machine's when an answer had none, said
 * when --older-than depends on it.
 */
function clockFor(ctx: Ctx, previews: Listed[], input: Filters): (listed: Listed) => number {
  const local = ctx.clock.now();
  if (input.olderThan !== undefined && previews.some((p) => p.serverTime === null)) {
    ctx.log.warn(
      "the server's answer carried no Date header: --older-than is measured against this machine's clock",
    );
  }
  return (listed) => listed.serverTime ?? local;
}

function matches(listed: Listed, name: string, input: Filters, now: (listed: Listed) => number): boolean {
  const { deployment } = listed;
  if (input.pr !== undefined && deployment.name !== previewName(name, input.pr)) return false;
  if (input.olderThan !== undefined) {
    const updated = Date.parse(deployment.updated_at);
    if (Number.isNaN(updated) || now(listed) - updated <= input.olderThan) return false;
  }
  return true;
}

/** The previews found, each marked delete or keep, on stderr (the result goes to stdout). */
function showList(
  ctx: Ctx,
  name: string,
  previews: Listed[],
  matched: Listed[],
  now: (listed: Listed) => number,
): void {
  if (previews.length === 0) return;
  writeText(
    ctx.io.stderr,
    styled`Previews of ${visible(name)}: ${String(previews.length)} found, ${String(matched.length)} to delete\n`,
  );
  const width = Math.max(...previews.map((p) => p.deployment.name.length));
  const ages = previews.map((p) => relativeTime(p.deployment.updated_at, now(p)) ?? p.deployment.updated_at);
  const ageWidth = Math.max(...ages.map((age) => age.length));
  previews.forEach((listed, i) => {
    const { deployment } = listed;
    const deleting = matched.includes(listed);
    const mark = deleting ? ctx.paint.red("delete") : ctx.paint.dim("keep  ");
    const age = ages[i]!.padEnd(ageWidth);
    writeText(
      ctx.io.stderr,
      styled`  ${mark}  ${visible(deployment.name.padEnd(width))}  updated ${visible(age)}  ${ctx.paint.dim(deployment.id)}\n`,
    );
  });
}

function nothingMatched(name: string, found: number, input: Filters): string {
  if (found === 0) return `no deployment is a preview of ${name} (named ${previewPrefix(name)}N)`;
  const filters = [
    input.pr !== undefined && `--pr ${input.pr}`,
    input.olderThan !== undefined && `--older-than ${formatDuration(input.olderThan)}`,
  ].filter(Boolean);
  return `none of the ${count(found)} of ${name} matches ${filters.join(" and ")}`;
}

function count(n: number): string {
  return `${n} preview deployment${n === 1 ? "" : "s"}`;
}

async function printResult(ctx: Ctx, result: PruneResult, deleted: DeploymentT[]): Promise<void> {
  const printer = await ctx.printer();
  switch (printer.options.format) {
    case "id":
      for (const deployment of deleted) printer.line(deployment.id);
      return;
    case "table":
      for (const name of result.deleted) printer.line(name);
      return;
    default:
      return printer.value(result);
  }
}

/** A deletion that stopped part-way, said truthfully: deleted, not deleted, not known. */
async function stopped(ctx: Ctx, name: string, partial: PartialDeletion): Promise<unknown> {
  const look = await suggestCommand(ctx, ["deploy", "list", "--name-contains", previewPrefix(name), "--all"]);
  return explainStopped(ctx.log, partial, partial.error, [
    `See what is left with: ${look}; the same prune again deletes what is left.`,
  ]);
}
