// One change to the emulator's state, as a journal line records it: the after-image of every
// record the change touched (the whole deployment, upload or tracing project as it now is,
// or null for one removed) and of the scalars it moved. After-images rather than operations,
// so that applying an entry again over a state that already holds its effect changes nothing
// (persistence.ts counts on it), and replay.ts applies entries without the store's rules.
//
// The store marks what each method touched on a StateChange; persistence turns it into a
// JournalEntry when the change is committed, so the images are those of that moment.
import type { FailRule } from "../../model/emulator-controls.js";
import type { StoredDeployment, StoredListener, StoredUpload, TracingProject } from "./state.js";

export interface JournalEntry {
  /** Applied first: everything cleared (POST /_emulator/reset), with a new key and the clock kept. */
  reset?: { signing_key: string; clock_offset_ms: number };
  seq?: number;
  clock_offset_ms?: number;
  /** By ID: the record as it now is, or null when removed. */
  deployments?: Record<string, StoredDeployment | null>;
  uploads?: Record<string, StoredUpload | null>;
  tracing_projects?: Record<string, TracingProject | null>;
  listeners?: Record<string, StoredListener | null>;
  /** The whole list (rules are few, and a change can take one from the middle). */
  fail_next?: readonly FailRule[];
}

/**
 * Checks that a parsed record is a journal entry (a shape check, as checkStateShape is for
 * the snapshot; the state that results is checked by that too).
 */
export function entryProblem(value: unknown): string | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "it is not a JSON object";
  const entry = value as Record<string, unknown>;
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
  for (const field of ["deployments", "uploads", "tracing_projects", "listeners"]) {
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

export class StateChange {
  private resetTo: JournalEntry["reset"] | undefined;
  private seqNow: number | undefined;
  private clockOffsetNow: number | undefined;
  private failRulesNow: readonly FailRule[] | undefined;
  private readonly deploymentImages = new Map<string, StoredDeployment | null>();
  private readonly uploadImages = new Map<string, StoredUpload | null>();
  private readonly projectImages = new Map<string, TracingProject | null>();
  private readonly listenerImages = new Map<string, StoredListener | null>();

  deployment(deployment: StoredDeployment): void {
    this.deploymentImages.set(deployment.id, deployment);
  }

  removedDeployment(id: string): void {
    this.deploymentImages.set(id, null);
  }

  upload(upload: StoredUpload): void {
    this.uploadImages.set(upload.id, upload);
  }

  removedUpload(id: string): void {
    this.uploadImages.set(id, null);
  }

  tracingProject(project: TracingProject): void {
    this.projectImages.set(project.id, project);
  }

  removedTracingProject(id: string): void {
    this.projectImages.set(id, null);
  }

  listener(listener: StoredListener): void {
    this.listenerImages.set(listener.id, listener);
  }

  removedListener(id: string): void {
    this.listenerImages.set(id, null);
  }

  seq(value: number): void {
    this.seqNow = value;
  }

  clockOffset(ms: number): void {
    this.clockOffsetNow = ms;
  }

  failRules(rules: readonly FailRule[]): void {
    this.failRulesNow = rules;
  }

  /** Everything before in this change is void: the state was emptied. */
  reset(signingKey: string, clockOffsetMs: number): void {
    this.clear();
    this.resetTo = { signing_key: signingKey, clock_offset_ms: clockOffsetMs };
  }

  /** The entry to journal; it holds references, serialised when it is written. */
  entry(): JournalEntry {
    const entry: JournalEntry = {};
    if (this.resetTo) entry.reset = this.resetTo;
    if (this.seqNow !== undefined) entry.seq = this.seqNow;
    if (this.clockOffsetNow !== undefined) entry.clock_offset_ms = this.clockOffsetNow;
    if (this.deploymentImages.size) entry.deployments = Object.fromEntries(this.deploymentImages);
    if (this.uploadImages.size) entry.uploads = Object.fromEntries(this.uploadImages);
    if (this.projectImages.size) entry.tracing_projects = Object.fromEntries(this.projectImages);
    if (this.listenerImages.size) entry.listeners = Object.fromEntries(this.listenerImages);
    if (this.failRulesNow) entry.fail_next = this.failRulesNow;
    return entry;
  }

  clear(): void {
    this.resetTo = undefined;
    this.seqNow = undefined;
    this.clockOffsetNow = undefined;
    this.failRulesNow = undefined;
    this.deploymentImages.clear();
    this.uploadImages.clear();
    this.projectImages.clear();
    this.listenerImages.clear();
  }
}
