// Revision status as a pure function of the clock. A revision walks the model's stage plan
// (revisionStages), spending `stage_ms` in each stage, and is DEPLOYED after the last one;
// nothing ticks in the background, so a test moves revisions by moving the clock, and a
// restarted emulator picks up exactly where the old one was.
import { failureStatusFor, isTerminalRevisionStatus, type RevisionStatus } from "../../model/enums.js";
import type { StoredRevision } from "./state.js";

export interface RevisionState {
  status: RevisionStatus;
  /** When the current status began: the revision's `updated_at`. */
  since: number;
}

export function revisionStateAt(revision: StoredRevision, now: number): RevisionState {
  if (revision.ended) return { status: revision.ended.status, since: revision.ended.at };
  const { created_at: start, stage_ms: stageMs, stages } = revision;

  // A revision set to fail at a stage spends that stage's time in it, then fails: a client
  // polling it sees BUILDING, then BUILD_FAILED, as it would from the real service.
  const failIndex = revision.fail_at ? stages.indexOf(revision.fail_at) : -1;
  if (failIndex >= 0) {
    const failsAt = start + (failIndex + 1) * stageMs;
    if (now >= failsAt) return { status: failureStatusFor(revision.fail_at!), since: failsAt };
  }

  const elapsed = Math.max(0, now - start);
  const index = stageMs > 0 ? Math.floor(elapsed / stageMs) : stages.length;
  if (index >= stages.length) return { status: "DEPLOYED", since: start + stages.length * stageMs };
  return { status: stages[index]!, since: start + index * stageMs };
}

/**
 * What becomes of an older revision when a newer one of the same deployment is created at
 * `now`: still in progress, it stops there, SKIPPED if it had not yet got past QUEUED (no
 * work was started for it), INTERRUPTED otherwise. Finished revisions are left alone.
 */
export function supersede(revision: StoredRevision, now: number): void {
  const { status } = revisionStateAt(revision, now);
  if (isTerminalRevisionStatus(status)) return;
  const ended: RevisionStatus = status === "CREATING" || status === "QUEUED" ? "SKIPPED" : "INTERRUPTED";
  revision.ended = { status: ended, at: now };
}
