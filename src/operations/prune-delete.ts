// Deleting many deployments with the bulk DELETE /v2/deployments (api/endpoints.ts
// deleteDeployments): BULK_DELETE_MAX IDs a call, one batch after the other, and a truthful
// account when it stops part-way.
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
import { deleteDeployments, listDeployments } from "../api/endpoints.js";
import { ApiError, InterruptedError } from "../errors.js";
import { BULK_DELETE_MAX } from "../model/enums.js";
import type { DeploymentT } from "../model/responses.js";

/** A bulk DELETE of one batch, sent again at most this often after a 404 (the batch shrinks each time). */
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
}

export class DeletionStopped extends Error {
  constructor(readonly partial: PartialDeletion) {
    super("the deletion stopped part-way");
  }
}

/** Deletes them all, a batch at a time; DeletionStopped when a batch fails. */
export async function deleteInBatches(
  api: ApiClient,
  deployments: readonly DeploymentT[],
  onBatch: (deleted: number, total: number) => void = () => {},
): Promise<BatchReport> {
  const report: BatchReport = { deleted: [], gone: [] };
  for (let at = 0; at < deployments.length; at += BULK_DELETE_MAX) {
    const batch = deployments.slice(at, at + BULK_DELETE_MAX);
    try {
      await deleteBatch(api, batch, report);
    } catch (error) {
      const rest = deployments.slice(at + BULK_DELETE_MAX);
      const done = new Set(report.deleted.map((d) => d.id));
      const pending = batch.filter((d) => !done.has(d.id));
      const left =
        error instanceof InterruptedError ? null : await stillThere(api, pending).catch(() => null);
      const partial: PartialDeletion = { ...report, notDeleted: [...rest], uncertain: [], error };
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
): Promise<void> {
  let pending = [...batch];
  for (let attempt = 1; ; attempt++) {
    try {
      await deleteDeployments(
        api,
        pending.map((d) => d.id),
      );
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
