// What a change does to a deployment, field by field and secret by name: the preview every
// mutation shows before it sends, and what `deploy diff` prints. One statement of the
// comparison, so that what is previewed is what apply, patch and diff mean.
import { type DeploymentState, predictPatched, sameValue } from "./merge.js";
import { NON_CHANGEABLE_FIELDS } from "./rules.js";

export interface Change {
  /** Dotted path: `source_config.resource_spec.cpu`, `secrets.API_KEY`, `...labels.team`. */
  path: string;
  kind: "add" | "change" | "remove";
  current: unknown;
  desired: unknown;
  /** A field fixed at creation: apply refuses to change it. */
  immutable: boolean;
  /** The values are secret values: masked unless --show-secrets. */
  secret: boolean;
}

type Fields = Record<string, unknown>;

/** The state-bearing parts of a deployment (or of a create request: the state it asks for). */
interface ComparableState {
  source: string;
  source_config: object;
  source_revision_config: object;
  secrets?: readonly { name: string; value?: unknown }[] | null;
  secret_references?: readonly { name: string; secret_name: string; secret_key: string }[] | null;
}

/** resource_spec fields compared key by key; every other field is one value (lists whole). */
const KEYED_MAPS = new Set(["labels", "annotations"]);
/** Read-only, and changed by every new revision: not a change the user makes. */
const OUTPUT_ONLY = new Set(["repo_commit_sha"]);

/** Field-by-field differences from `current` to `desired`; `current` null means a new deployment. */
export function changesBetween(current: ComparableState | null, desired: ComparableState): Change[] {
  const changes: Change[] = [];
  const push = (path: string, before: unknown, after: unknown, secret = false) => {
    if (sameValue(before, after)) return;
    changes.push(makeChange(path, before, after, secret));
  };

  if (current && current.source !== desired.source) push("source", current.source, desired.source);

  const beforeConfig = (current?.source_config ?? {}) as Fields;
  const afterConfig = desired.source_config as Fields;
  for (const field of keysOf(beforeConfig, afterConfig)) {
    const path = `source_config.${field}`;
    if (field === "resource_spec") {
      const before = (beforeConfig[field] ?? {}) as Fields;
      const after = (afterConfig[field] ?? {}) as Fields;
      for (const specField of keysOf(before, after)) {
        const specPath = `${path}.${specField}`;
        if (KEYED_MAPS.has(specField)) {
          const beforeMap = (before[specField] ?? {}) as Fields;
          const afterMap = (after[specField] ?? {}) as Fields;
          for (const key of keysOf(beforeMap, afterMap))
            push(`${specPath}.${key}`, beforeMap[key], afterMap[key]);
        } else push(specPath, before[specField], after[specField]);
      }
    } else if (isPlainObject(beforeConfig[field]) || isPlainObject(afterConfig[field])) {
      const before = (beforeConfig[field] ?? {}) as Fields;
      const after = (afterConfig[field] ?? {}) as Fields;
      for (const key of keysOf(before, after)) push(`${path}.${key}`, before[key], after[key]);
    } else push(path, beforeConfig[field], afterConfig[field]);
  }

  const beforeRevision = (current?.source_revision_config ?? {}) as Fields;
  const afterRevision = desired.source_revision_config as Fields;
  for (const field of keysOf(beforeRevision, afterRevision)) {
    if (!OUTPUT_ONLY.has(field))
      push(`source_revision_config.${field}`, beforeRevision[field], afterRevision[field]);
  }

  const beforeSecrets = byName(current?.secrets, (s) => s.value);
  const afterSecrets = byName(desired.secrets, (s) => s.value);
  for (const name of keysOf(beforeSecrets, afterSecrets))
    pushNamed(changes, `secrets.${name}`, beforeSecrets, afterSecrets, name, true);
  const refValue = (r: { secret_name: string; secret_key: string }) => ({
    secret_name: r.secret_name,
    secret_key: r.secret_key,
  });
  const beforeRefs = byName(current?.secret_references, refValue);
  const afterRefs = byName(desired.secret_references, refValue);
  for (const name of keysOf(beforeRefs, afterRefs))
    pushNamed(changes, `secret_references.${name}`, beforeRefs, afterRefs, name, false);
  // A new deployment sets its fixed fields: nothing there is a change apply would refuse.
  return current ? changes : changes.map((change) => ({ ...change, immutable: false }));
}

/** A secret present on one side only is added or removed, even when its value is empty or null. */
function pushNamed(
  changes: Change[],
  path: string,
  before: Map<string, unknown>,
  after: Map<string, unknown>,
  name: string,
  secret: boolean,
): void {
  if (!before.has(name)) changes.push({ ...makeChange(path, null, after.get(name), secret), kind: "add" });
  else if (!after.has(name))
    changes.push({ ...makeChange(path, before.get(name), null, secret), kind: "remove" });
  else if (!sameValue(before.get(name), after.get(name)))
    changes.push({ ...makeChange(path, before.get(name), after.get(name), secret), kind: "change" });
}

function makeChange(path: string, current: unknown, desired: unknown, secret: boolean): Change {
  return {
    path,
    kind: current == null ? "add" : desired == null ? "remove" : "change",
    current: current ?? null,
    desired: desired ?? null,
    immutable: isFixedAtCreation(path),
    secret,
  };
}

function isFixedAtCreation(path: string): boolean {
  return path === "source" || NON_CHANGEABLE_FIELDS.some((fixed) => fixed.join(".") === path);
}

function byName<T extends { name: string }>(
  items: readonly T[] | null | undefined,
  value: (item: T) => unknown,
): Map<string, unknown> {
  return new Map((items ?? []).map((item) => [item.name, value(item)]));
}

function keysOf(...objects: (Fields | Map<string, unknown>)[]): string[] {
  const keys = new Set<string>();
  for (const object of objects)
    for (const key of object instanceof Map ? object.keys() : Object.keys(object)) keys.add(key);
  return [...keys];
}

function isPlainObject(value: unknown): value is Fields {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * What a redeploy of `revision` does to the deployment: its source_revision_config becomes the
 * revision's (secrets and resources stay as they are now). The commit is shown too: a rollback
 * of a gitrepo deployment goes back to the revision's commit.
 */
export function redeployChanges(
  current: DeploymentState,
  revision: { source_revision_config: Record<string, unknown> },
): Change[] {
  const { repo_commit_sha: commit, ...config } = revision.source_revision_config;
  const changes = changesBetween(current, predictPatched(current, { source_revision_config: config }));
  const before = (current.source_revision_config as Fields).repo_commit_sha;
  if (commit != null && before != null && commit !== before)
    changes.push(makeChange("source_revision_config.repo_commit_sha", before, commit, false));
  return changes;
}
