// The state a snapshot and the journal entries after it stand for: each entry's after-images
// set over the snapshot, in record order (state-change.ts). Pure: no files here.

import type { EmulatorState, FailRule } from "./state.js";
import type { JournalEntry } from "./state-change.js";

/**
 * Applies `entries` (in order) over `snapshot`, skipping those numbered below its
 * journal_from (already in it). Returns a new state whose journal_from is past the last
 * entry applied; `snapshot` is left as it was.
 */
export function replay(snapshot: EmulatorState, entries: Iterable<JournalEntry>): EmulatorState {
  const from = snapshot.journal_from ?? 0;
  let next = from;
  let signingKey = snapshot.signing_key;
  let seq = snapshot.seq;
  let clockOffset = snapshot.clock_offset_ms;
  let failNext: FailRule[] = snapshot.fail_next;
  // Maps keep insertion order, and set() of a present key keeps its place: the order of the
  // lists is the order of creation, as in the store.
  const deployments = byId(snapshot.deployments);
  const uploads = byId(snapshot.uploads);
  const projects = byId(snapshot.tracing_projects);

  for (const entry of entries) {
    if (entry.n < from) continue;
    next = entry.n + 1;
    if (entry.reset) {
      signingKey = entry.reset.signing_key;
      clockOffset = entry.reset.clock_offset_ms;
      seq = 0;
      failNext = [];
      deployments.clear();
      uploads.clear();
      projects.clear();
    }
    if (entry.seq !== undefined) seq = entry.seq;
    if (entry.clock_offset_ms !== undefined) clockOffset = entry.clock_offset_ms;
    if (entry.fail_next) failNext = [...entry.fail_next];
    setImages(deployments, entry.deployments);
    setImages(uploads, entry.uploads);
    setImages(projects, entry.tracing_projects);
  }
  return {
    ...snapshot,
    signing_key: signingKey,
    seq,
    clock_offset_ms: clockOffset,
    journal_from: next,
    deployments: [...deployments.values()],
    uploads: [...uploads.values()],
    tracing_projects: [...projects.values()],
    fail_next: failNext,
  };
}

function byId<T extends { id: string }>(items: readonly T[]): Map<string, T> {
  return new Map(items.map((item) => [item.id, item]));
}

function setImages<T>(target: Map<string, T>, images: Record<string, T | null> | undefined): void {
  if (!images) return;
  for (const [id, image] of Object.entries(images)) {
    if (image === null) target.delete(id);
    else target.set(id, image);
  }
}

/**
 * Checks that a parsed record is a journal entry (a shape check, as checkStateShape is for
 * the snapshot; the state that results is checked by that too).
 */
export function entryProblem(value: unknown): string | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "it is not a JSON object";
  const entry = value as Record<string, unknown>;
  if (typeof entry.n !== "number" || !Number.isSafeInteger(entry.n) || entry.n < 0)
    return `"n" is not a record number`;
  if (entry.reset !== undefined) {
    const reset = entry.reset as Record<string, unknown> | null;
    if (!reset || typeof reset.signing_key !== "string" || typeof reset.clock_offset_ms !== "number")
      return `"reset" is not a reset`;
  }
  for (const field of ["seq", "clock_offset_ms"]) {
    if (entry[field] !== undefined && (typeof entry[field] !== "number" || !Number.isFinite(entry[field])))
      return `"${field}" is not a number`;
  }
  if (entry.fail_next !== undefined && !Array.isArray(entry.fail_next)) return `"fail_next" is not an array`;
  for (const field of ["deployments", "uploads", "tracing_projects"]) {
    const images = entry[field];
    if (images === undefined) continue;
    if (images === null || typeof images !== "object" || Array.isArray(images))
      return `"${field}" is not an object`;
    for (const [id, image] of Object.entries(images)) {
      if (image === null) continue;
      if (typeof image !== "object" || Array.isArray(image) || (image as { id?: unknown }).id !== id)
        return `"${field}" holds a record that is not the one named ${JSON.stringify(id)}`;
    }
  }
  return null;
}
