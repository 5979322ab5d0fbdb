// The one planning of a change to a deployment: every PATCH cpctl sends (patch, upload
// --patch, apply, push) is planned here, and `diff` shows what apply would send. Pure: the
// change merged into the deployment as just read (merge.ts), validated as the server will see
// it, and listed field by field for the preview.
//
// apply differs in two ways, both options of the same planning: a `secrets` (or
// `secret_references`) list in its file is the whole set, and it sends only what differs
// (patch sends what the user named even when equal: a repeated image_uri starts a revision).

import { type Change, changesBetween } from "./changes.js";
import type { FieldIssue } from "./issue-path.js";
import { type DeploymentState, mergeChange, type PartialChange, predictPatched, sameValue } from "./merge.js";
import type { DeploymentT } from "./responses.js";
import { NON_CHANGEABLE_FIELDS, revisionTriggers } from "./rules.js";
import type { CreateRequest, PatchRequest } from "./schemas.js";
import { validatePatchRequest } from "./validate.js";

export type { Change };

/** A PATCH ready to preview and send. */
export interface PatchPlan {
  body: PatchRequest;
  /** What the body does to the deployment, for the preview (and the CI summary). */
  changes: Change[];
  /** Field paths of the body that start a new revision; empty when none does. */
  triggers: string[];
  /** The deployment as the service will hold it after the body. */
  after: DeploymentState;
  /** Names given to --unset-secret / --unset-secret-ref that the deployment does not have. */
  absent: { secrets: string[]; secretRefs: string[] };
}

export type Planned = { ok: true; plan: PatchPlan } | { ok: false; issues: FieldIssue[] };

interface PlanOptions {
  /** Leave out of the body every field equal to the deployment's (apply). */
  onlyDifferences?: boolean;
}

export function planPatch(current: DeploymentT, change: PartialChange, options: PlanOptions = {}): Planned {
  const merged = mergeChange(current, change);
  if (options.onlyDifferences) dropUnchanged(merged.body, current);
  const checked = validatePatchRequest(merged.body, current);
  if (!checked.ok) return { ok: false, issues: checked.issues };
  return {
    ok: true,
    plan: {
      body: checked.value,
      changes: changesBetween(current, merged.after),
      triggers: revisionTriggers(checked.value),
      after: merged.after,
      absent: merged.absent,
    },
  };
}

/** What apply would do to make the deployment match a file. */
export interface ApplyPlan {
  action: "create" | "patch" | "none";
  /** The body apply sends: the create request, or the smallest patch. */
  body: CreateRequest | PatchRequest | null;
  changes: Change[];
  /** Field paths of the patch that start a new revision. */
  triggers: string[];
  /** The patch to send, when action is "patch" and the change can be made. */
  patch: PatchPlan | null;
}

/** Which optional collections the file or flags actually gave (an absent list is no opinion). */
export interface Opinions {
  secrets: boolean;
  secretReferences: boolean;
  /** `--set PATH=null` paths: cleared on an existing deployment. */
  clear?: PartialChange["clear"];
}

/**
 * The file is a partial change like any other: a field it leaves out, or sets to null, is left
 * as it is, and resource_spec merges field by field; its secrets list is the whole set.
 */
export function planApply(
  desired: CreateRequest,
  current: DeploymentT | null,
  opinions: Opinions,
): { ok: true; plan: ApplyPlan } | { ok: false; issues: FieldIssue[] } {
  if (!current) {
    return {
      ok: true,
      plan: { action: "create", body: desired, changes: creationChanges(desired), triggers: [], patch: null },
    };
  }
  const change: PartialChange = {
    body: {
      source_config: desired.source_config,
      source_revision_config: desired.source_revision_config,
      secrets: opinions.secrets ? desired.secrets : null,
      secret_references: opinions.secretReferences ? (desired.secret_references ?? []) : null,
    },
    replaceSecrets: opinions.secrets,
    replaceSecretRefs: opinions.secretReferences,
    clear: opinions.clear,
  };
  if (current.source !== desired.source) {
    // Fixed at creation: apply refuses, naming it (a patch for another source would not
    // validate against this deployment anyway). The changes say what differs.
    const { after } = mergeChange(current, change);
    const changes = changesBetween(current, { ...after, source: desired.source });
    return { ok: true, plan: { action: "patch", body: null, changes, triggers: [], patch: null } };
  }
  const planned = planPatch(current, change, { onlyDifferences: true });
  if (!planned.ok) return planned;
  const patch = planned.plan;
  if (patch.changes.length === 0) {
    return { ok: true, plan: { action: "none", body: null, changes: [], triggers: [], patch: null } };
  }
  return {
    ok: true,
    plan: { action: "patch", body: patch.body, changes: patch.changes, triggers: patch.triggers, patch },
  };
}

/**
 * Only what differs is sent: a field equal to the deployment's is left out. A field fixed at
 * creation is never sent: equal it says nothing, different apply refuses (see the changes).
 */
function dropUnchanged(body: Record<string, unknown>, current: DeploymentT): void {
  const fixed = new Set<string>(NON_CHANGEABLE_FIELDS.map((path) => path[1]));
  for (const group of ["source_config", "source_revision_config"] as const) {
    const fields = body[group] as Record<string, unknown> | undefined;
    if (!fields) continue;
    const existing = current[group] as Record<string, unknown>;
    for (const [field, value] of Object.entries(fields)) {
      if (group === "source_config" && fixed.has(field)) delete fields[field];
      else if (field !== "resource_spec" && sameValue(value, existing[field])) delete fields[field];
    }
    if (Object.keys(fields).length === 0) delete body[group];
  }
}

/** What creating `desired` adds: every field as the service will hold it (resource defaults filled). */
export function creationChanges(desired: CreateRequest): Change[] {
  const nothing: DeploymentState = {
    source: desired.source,
    source_config: {},
    source_revision_config: {},
    secrets: [],
    secret_references: null,
  };
  return [
    addition("name", desired.name),
    addition("source", desired.source),
    ...changesBetween(null, predictPatched(nothing, desired)),
  ];
}

function addition(path: string, value: unknown): Change {
  return { path, kind: "add", current: null, desired: value, immutable: false, secret: false };
}
