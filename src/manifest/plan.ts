// What `apply` would do to make the deployment match a file: create it, send the smallest
// patch, or nothing. Pure, so `diff` shows exactly what `apply` sends.
//
// The file is a partial change like any other (model/merge.ts): a field it leaves out, or
// sets to null, is left as it is, and resource_spec merges field by field. The one
// difference from `patch`: a `secrets` (or `secret_references`) list in the file is the
// whole set, so a secret the deployment has beyond the file is shown as removed, and removed.

import { type Change, changesBetween } from "../model/changes.js";
import { type DeploymentState, mergeChange, type Path, predictPatched, sameValue } from "../model/merge.js";
import type { DeploymentT } from "../model/responses.js";
import { NON_CHANGEABLE_FIELDS, revisionTriggers } from "../model/rules.js";
import type { CreateRequest, PatchRequest } from "../model/schemas.js";

export type { Change };

export interface Plan {
  action: "create" | "patch" | "none";
  /** The body apply sends: the create request, or the smallest patch. */
  body: CreateRequest | PatchRequest | null;
  changes: Change[];
  /** Field paths of the patch that start a new revision. */
  triggers: string[];
}

/** Which optional collections the file or flags actually gave (an absent list is no opinion). */
export interface Opinions {
  secrets: boolean;
  secretReferences: boolean;
  /** `--set PATH=null` paths: cleared on an existing deployment. */
  clear?: readonly Path[];
}

export function planApply(desired: CreateRequest, current: DeploymentT | null, opinions: Opinions): Plan {
  if (!current) return { action: "create", body: desired, changes: creationChanges(desired), triggers: [] };
  const { body, after } = mergeChange(current, {
    body: {
      source_config: desired.source_config,
      source_revision_config: desired.source_revision_config,
      secrets: opinions.secrets ? desired.secrets : null,
      secret_references: opinions.secretReferences ? (desired.secret_references ?? []) : null,
    },
    replaceSecrets: opinions.secrets,
    replaceSecretRefs: opinions.secretReferences,
    clear: opinions.clear,
  });
  dropUnchanged(body, current);
  // A different source is a change apply refuses (fixed at creation), shown like the others.
  const changes = changesBetween(current, { ...after, source: desired.source });
  const patch = body as PatchRequest;
  return {
    action: changes.length === 0 ? "none" : "patch",
    body: changes.length === 0 ? null : patch,
    changes,
    triggers: revisionTriggers(patch),
  };
}

/**
 * apply sends only what differs: a field equal to the deployment's is left out (patch sends
 * what the user named even when equal, since a repeated image_uri starts a new revision).
 * A field fixed at creation is never sent: equal it says nothing, different apply refuses.
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
