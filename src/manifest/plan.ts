// What `apply` would do to make the deployment match a file: create it, send the minimal
// patch, or nothing. Pure, so `diff` shows exactly what `apply` sends.
//
// A field the file leaves out (or sets to null) is "no opinion": PATCH cannot unset fields
// (null means "leave as it is"), so apply never tries to. resource_spec and secrets are the
// exception in the other direction: a PATCH replaces them whole, so when the file gives them,
// whatever the deployment holds beyond the file is shown as removed.

import { withResourceDefaults } from "../model/resource-spec.js";
import type { DeploymentT } from "../model/responses.js";
import { NON_CHANGEABLE_FIELDS, revisionTriggers } from "../model/rules.js";
import type { CreateRequest, PatchRequest } from "../model/schemas.js";

export interface Change {
  path: string;
  kind: "add" | "change" | "remove";
  current: unknown;
  desired: unknown;
  /** A fixed field: apply refuses to proceed while it differs. */
  immutable: boolean;
  /** The values are secret values: masked unless --show-secrets. */
  secret: boolean;
}

export interface Plan {
  action: "create" | "patch" | "none";
  /** The body apply sends: the create request, or the minimal patch. */
  body: CreateRequest | PatchRequest | null;
  changes: Change[];
  /** Field paths of the patch that start a new revision. */
  triggers: string[];
}

/** Which optional collections the file or flags actually gave (an absent list is no opinion). */
export interface Opinions {
  secrets: boolean;
  secretReferences: boolean;
}

export function planApply(desired: CreateRequest, current: DeploymentT | null, opinions: Opinions): Plan {
  if (!current) {
    return { action: "create", body: desired, changes: additions(desired), triggers: [] };
  }
  const changes: Change[] = [];
  const patch: PatchRequest = {};
  if (desired.source !== current.source) {
    changes.push(change("source", current.source, desired.source, { immutable: true }));
  }

  const sourceConfig: Record<string, unknown> = {};
  for (const [field, wanted] of Object.entries(desired.source_config)) {
    if (wanted == null || field === "resource_spec") continue;
    const existing = (current.source_config as Record<string, unknown>)[field];
    if (field === "listener_config") {
      const wantedNamespace = (wanted as { k8s_namespace?: string | null }).k8s_namespace;
      const existingNamespace = (existing as { k8s_namespace?: string | null } | null)?.k8s_namespace;
      if (wantedNamespace != null && wantedNamespace !== existingNamespace) {
        changes.push(
          change("source_config.listener_config.k8s_namespace", existingNamespace, wantedNamespace, {
            immutable: true,
          }),
        );
      }
      continue;
    }
    if (same(wanted, existing)) continue;
    const immutable = isImmutable(["source_config", field]);
    changes.push(change(`source_config.${field}`, existing, wanted, { immutable }));
    if (!immutable) sourceConfig[field] = wanted;
  }

  if (desired.source_config.resource_spec != null) {
    const wanted = withResourceDefaults(desired.source_config.resource_spec) as Record<string, unknown>;
    const existing = (current.source_config.resource_spec ?? {}) as Record<string, unknown>;
    const specChanges = compareMaps("source_config.resource_spec", existing, wanted, false);
    if (specChanges.length > 0) {
      changes.push(...specChanges);
      sourceConfig.resource_spec = desired.source_config.resource_spec;
    }
  }
  if (Object.keys(sourceConfig).length > 0)
    patch.source_config = sourceConfig as PatchRequest["source_config"];

  const revisionConfig: Record<string, unknown> = {};
  for (const [field, wanted] of Object.entries(desired.source_revision_config)) {
    const existing = (current.source_revision_config as Record<string, unknown>)[field];
    if (wanted == null || same(wanted, existing)) continue;
    changes.push(change(`source_revision_config.${field}`, existing, wanted));
    revisionConfig[field] = wanted;
  }
  if (Object.keys(revisionConfig).length > 0) patch.source_revision_config = revisionConfig;

  if (opinions.secrets) {
    const secretChanges = compareMaps(
      "secrets",
      byName(current.secrets ?? []),
      byName(desired.secrets),
      true,
    );
    if (secretChanges.length > 0) {
      changes.push(...secretChanges);
      patch.secrets = desired.secrets;
    }
  }
  if (opinions.secretReferences) {
    const wanted = desired.secret_references ?? [];
    const existing = current.secret_references ?? [];
    if (!same(sortByName(wanted), sortByName(existing))) {
      changes.push(change("secret_references", existing, wanted));
      patch.secret_references = wanted;
    }
  }

  return {
    action: changes.length === 0 ? "none" : "patch",
    body: changes.length === 0 ? null : patch,
    changes,
    triggers: revisionTriggers(patch),
  };
}

function isImmutable(path: readonly string[]): boolean {
  return NON_CHANGEABLE_FIELDS.some(
    (fixed) => fixed.length === path.length && fixed.every((part, i) => part === path[i]),
  );
}

function change(
  path: string,
  current: unknown,
  desired: unknown,
  flags: { immutable?: boolean; secret?: boolean } = {},
): Change {
  return {
    path,
    kind: current == null ? "add" : desired == null ? "remove" : "change",
    current: current ?? null,
    desired: desired ?? null,
    immutable: flags.immutable ?? false,
    secret: flags.secret ?? false,
  };
}

/** Key-by-key differences of two flat maps; keys only in `current` are removals. */
function compareMaps(
  prefix: string,
  current: Record<string, unknown>,
  desired: Record<string, unknown>,
  secret: boolean,
): Change[] {
  const keys = [...new Set([...Object.keys(desired), ...Object.keys(current)])];
  return keys
    .filter((key) => !same(desired[key], current[key]))
    .map((key) => change(`${prefix}.${key}`, current[key], desired[key], { secret }));
}

function additions(desired: CreateRequest): Change[] {
  const result: Change[] = [];
  const walk = (value: unknown, path: string, secret: boolean) => {
    if (value == null) return;
    if (
      typeof value === "object" &&
      !Array.isArray(value) &&
      !(path.endsWith("labels") || path.endsWith("annotations"))
    ) {
      for (const [key, child] of Object.entries(value)) walk(child, path ? `${path}.${key}` : key, secret);
      return;
    }
    if (Array.isArray(value) && value.length === 0) return;
    result.push(change(path, null, value, { secret }));
  };
  const { secrets, ...rest } = desired;
  walk(rest, "", false);
  for (const secret of secrets)
    result.push(change(`secrets.${secret.name}`, null, secret.value, { secret: true }));
  return result;
}

function byName(items: readonly { name: string; value: string }[]): Record<string, unknown> {
  return Object.fromEntries(items.map((item) => [item.name, item.value]));
}

function sortByName<T extends { name: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => a.name.localeCompare(b.name));
}

/** Deep equality where null, undefined and an absent key are the same. */
export function same(a: unknown, b: unknown): boolean {
  if (a == null || b == null) return a == null && b == null;
  if (typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => same(item, other[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) if (!same(left[key], right[key])) return false;
  return true;
}
