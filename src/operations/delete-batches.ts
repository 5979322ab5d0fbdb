// Deleting many deployments (deploy delete with several, deploy prune): one call after the
// other, each the bulk DELETE /v2/deployments (api/endpoints.ts deleteDeployments) of at most
// BULK_DELETE_MAX IDs, or with `force` the single DELETE /v2/deployments/{id}?force=true of
// one (the only call that takes force), and a truthful account when it stops part-way.
//
// The bulk call deletes all of its IDs or none: one that is unknown makes it a 404 that deletes
// nothing. A 404 thus says only that one of them is gone, deleted by someone else since they
// were listed, or by this very call: the API layer repeats a DELETE whose answer was lost, and
// the repeat finds them gone (deleteDeployment's doneOnRetry reads that 404 as done; here it
// cannot tell which). So after a 404 the batch is looked up again (the list filtered by
// deployment_ids): those gone count as deleted (said as gone already), and those left are sent
// again, a few times at most. Any other failure is looked up the same way when it can be,
// so that the account says which were deleted and which were not; when even the look-up
// fails, the batch in flight is said as uncertain.
import type { ApiClient } from "../api/client.js";
import { deleteDeployment, deleteDeployments, listDeployments } from "../api/endpoints.js";
import { ApiError, CliError, InterruptedError } from "../errors.js";
import type { Logger } from "../log.js";
import { BULK_DELETE_MAX } from "../model/enums.js";
import type { DeploymentT } from "../model/responses.js";

/** A call of one batch, sent again at most this often after a 404 (the batch shrinks each time). */
const ATTEMPTS_AFTER_404 = 3;

export interface BatchReport {
  /** Deleted by this run, or gone already when it looked (`gone`). */
  deleted: DeploymentT[];
  /** Of `deleted`: found gone after a 404 (another client's delete, or a lost answer's). */
  gone: DeploymentT[];
}

/** The deletion stopped: what was deleted, what was not, and what cannot be known. */
export interface PartialDeletion extends BatchReport {
  notDeleted: DeploymentT[];
  uncertain: DeploymentT[];
  error: unknown;
  /** The call that failed: its place (from 1) among `of` calls, and how many deployments it carried. */
  failedCall: { number: number; of: number; size: number };
}

export class DeletionStopped extends Error {
  constructor(readonly partial: PartialDeletion) {
    super("the deletion stopped part-way");
  }
}

export interface BatchOptions {
  /** `force=true`: one deployment a call, with the single DELETE (the bulk call takes no force). */
  force?: boolean;
  /** After each call: how many are deleted so far, of how many. */
  onBatch?: (deleted: number, total: number) => void;
}

/** Deletes them all, a call at a time; DeletionStopped when a call fails. */
export async function deleteInBatches(
  api: ApiClient,
  deployments: readonly DeploymentT[],
  { force = false, onBatch = () => {} }: BatchOptions = {},
): Promise<BatchReport> {
  const size = force ? 1 : BULK_DELETE_MAX;
  const send = force
    ? (batch: readonly DeploymentT[]) => deleteDeployment(api, batch[0]!.id, { force: true })
    : (batch: readonly DeploymentT[]) =>
        deleteDeployments(
          api,
          batch.map((d) => d.id),
        );
  const report: BatchReport = { deleted: [], gone: [] };
  const calls = Math.ceil(deployments.length / size);
  for (let at = 0; at < deployments.length; at += size) {
    const batch = deployments.slice(at, at + size);
    try {
      await deleteBatch(api, batch, report, send);
    } catch (error) {
      const rest = deployments.slice(at + size);
      const done = new Set(report.deleted.map((d) => d.id));
      const pending = batch.filter((d) => !done.has(d.id));
      const left =
        error instanceof InterruptedError ? null : await stillThere(api, pending).catch(() => null);
      const partial: PartialDeletion = {
        ...report,
        notDeleted: [...rest],
        uncertain: [],
        error,
        failedCall: { number: at / size + 1, of: calls, size: batch.length },
      };
      if (left === null) partial.uncertain.push(...pending);
      else {
        partial.deleted.push(...pending.filter((d) => !left.has(d.id.toLowerCase())));
        partial.notDeleted.unshift(...pending.filter((d) => left.has(d.id.toLowerCase())));
      }
      throw new DeletionStopped(partial);
    }
    onBatch(report.deleted.length, deployments.length);
  }
  return report;
}

async function deleteBatch(
  api: ApiClient,
  batch: readonly DeploymentT[],
  report: BatchReport,
  send: (batch: readonly DeploymentT[]) => Promise<void>,
): Promise<void> {
  let pending = [...batch];
  for (let attempt = 1; ; attempt++) {
    try {
      await send(pending);
      report.deleted.push(...pending);
      return;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404) || attempt > ATTEMPTS_AFTER_404) throw error;
    }
    // One of them is gone, and this call deleted nothing: which are left?
    const left = await stillThere(api, pending);
    const gone = pending.filter((d) => !left.has(d.id.toLowerCase()));
    report.deleted.push(...gone);
    report.gone.push(...gone);
    pending = pending.filter((d) => left.has(d.id.toLowerCase()));
    if (pending.length === 0) return;
  }
}

/** The IDs of those that still exist (one listing filtered by their IDs: at most 100 of them). */
async function stillThere(api: ApiClient, deployments: readonly DeploymentT[]): Promise<Set<string>> {
  if (deployments.length === 0) return new Set();
  const page = await listDeployments(
    api,
    { deployment_ids: deployments.map((d) => d.id).join(",") },
    { limit: BULK_DELETE_MAX },
  );
  return new Set(page.resources.map((d) => d.id.toLowerCase()));
}

/**
 * A deletion that stopped part-way, said truthfully for a person: which call failed, what was
 * deleted, what was not, and what cannot be known and why (the API layer's retry rule).
 */
function partialLines(partial: PartialDeletion): string[] {
  const names = (deployments: DeploymentT[]) => deployments.map((d) => d.name).join(", ") || "none";
  const { number, of, size } = partial.failedCall;
  const before =
    number === 1
      ? ""
      : number === 2
        ? "; the one before it was carried out"
        : `; the ${number - 1} before it were carried out`;
  const after =
    number === of ? "" : `; the ${of - number} after it ${of - number === 1 ? "was" : "were"} not sent`;
  const lines = [
    `call ${number} of ${of} (${size} deployment${size === 1 ? "" : "s"}) failed${before}${after}`,
    `deleted: ${names(partial.deleted)}`,
    `not deleted: ${names(partial.notDeleted)}`,
  ];
  if (partial.uncertain.length > 0) {
    lines.push(
      `not known: ${names(partial.uncertain)}: the failed call may have been carried out (a DELETE ` +
        "whose answer is lost is sent again, and an earlier attempt may have deleted them), and " +
        "looking them up afterwards failed too",
    );
  }
  return lines;
}

/** The same account for JSON output (the error's details). */
function partialDetails(partial: PartialDeletion): Record<string, unknown> {
  const names = (deployments: DeploymentT[]) => deployments.map((d) => d.name);
  return {
    deleted: names(partial.deleted),
    not_deleted: names(partial.notDeleted),
    uncertain: names(partial.uncertain),
    failed_call: partial.failedCall,
  };
}

/**
 * What a deletion that stopped part-way ends with: `cause`, carrying the account (and `next`,
 * how to look or go on) as its hints and, for JSON, its details. A cause that is not cpctl's
 * own error keeps its message; the account then goes to stderr as warnings.
 */
export function explainStopped(
  log: Pick<Logger, "warn">,
  partial: PartialDeletion,
  cause: unknown,
  next: string[],
): unknown {
  const lines = [...partialLines(partial), ...next];
  if (!(cause instanceof CliError)) {
    for (const line of lines) log.warn(line);
    return cause;
  }
  cause.details = { ...partialDetails(partial), cause: cause.details };
  for (const line of lines) cause.withHint(line);
  return cause;
}
