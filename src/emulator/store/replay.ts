// The state FILE and its journal stand for: each line's after-images set over FILE's state,
// in order (state-change.ts). Pure: no files here.

import type { FailRule } from "../../model/emulator-controls.js";
import type { EmulatorState } from "./state.js";
import type { JournalEntry } from "./state-change.js";

/** Applies `entries` (in order) over `snapshot`; returns a new state, `snapshot` is left as it was. */
export function replay(snapshot: EmulatorState, entries: Iterable<JournalEntry>): EmulatorState {
  let signingKey = snapshot.signing_key;
  let seq = snapshot.seq;
  let clockOffset = snapshot.clock_offset_ms;
  let failNext: FailRule[] = snapshot.fail_next;
  // Maps keep insertion order, and set() of a present key keeps its place: the order of the
  // lists is the order of creation, as in the store.
  const deployments = byId(snapshot.deployments);
  const uploads = byId(snapshot.uploads);
  const projects = byId(snapshot.tracing_projects);
  const listeners = byId(snapshot.listeners ?? []);

  for (const entry of entries) {
    if (entry.reset) {
      signingKey = entry.reset.signing_key;
      clockOffset = entry.reset.clock_offset_ms;
      seq = 0;
      failNext = [];
      deployments.clear();
      uploads.clear();
      projects.clear();
      listeners.clear();
    }
    if (entry.seq !== undefined) seq = entry.seq;
    if (entry.clock_offset_ms !== undefined) clockOffset = entry.clock_offset_ms;
    if (entry.fail_next) failNext = [...entry.fail_next];
    setImages(deployments, entry.deployments);
    setImages(uploads, entry.uploads);
    setImages(projects, entry.tracing_projects);
    setImages(listeners, entry.listeners);
  }
  return {
    ...snapshot,
    signing_key: signingKey,
    seq,
    clock_offset_ms: clockOffset,
    deployments: [...deployments.values()],
    uploads: [...uploads.values()],
    tracing_projects: [...projects.values()],
    fail_next: failNext,
    listeners: [...listeners.values()],
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
