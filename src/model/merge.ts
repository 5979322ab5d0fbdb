// The one merge of a partial change into a deployment (CLI.md "Changing part of a deployment:
// nothing is lost"). patch (flags or -f), upload --patch, apply, rollback and redeploy all
// come through here.
//
// A PATCH body changes field by field where the API allows it: a source_config or
// source_revision_config field that is null or absent is left as it is. But the API replaces
// three things whole: `secrets`, `secret_references` and `source_config.resource_spec`. Sent
// as the user named them, they would delete every secret, reference and resource field the
// user did not name. So for those three the merge starts from the deployment's current value,
// applies exactly what was named, and sends the whole result.
import { UsageError } from "../errors.js";
import { looksMasked } from "../secrets.js";
import { deleteAt, type Path } from "../util/object-path.js";

export type { Path };

import { formatPath } from "./issue-path.js";
import { fieldsAtDefault, withResourceDefaults } from "./resource-spec.js";
import type { DeploymentT } from "./responses.js";

/** What a partial change names. In `body`, null means "no opinion", as it does to the API. */
export interface PartialChange {
  /** Patch-shaped (revision_source, source_config, source_revision_config, secrets, secret_references). */
  body: Record<string, unknown>;
  /** `--set PATH=null`: clear exactly these fields or keys. */
  clear?: readonly Path[];
  /** `--unset-secret NAME`. */
  unsetSecrets?: readonly string[];
  /** `--unset-secret-ref NAME`. */
  unsetSecretRefs?: readonly string[];
  /** The secrets given are the whole set (`--replace-secrets`; apply's file). */
  replaceSecrets?: boolean;
  /** The secret references given are the whole set. */
  replaceSecretRefs?: boolean;
  /** The resource fields given are the whole spec. */
  replaceResourceSpec?: boolean;
}

/** The parts of a deployment a PATCH can change. */
export type DeploymentState = Pick<
  DeploymentT,
  "source" | "source_config" | "source_revision_config" | "secrets" | "secret_references"
>;

interface MergeResult {
  /** The PATCH body: named fields as given, each whole-replaced family merged and complete. */
  body: Record<string, unknown>;
  /** The deployment as the service will hold it after this body (see predictPatched). */
  after: DeploymentState;
  /** Names given to --unset-secret / --unset-secret-ref that the deployment does not have. */
  absent: { secrets: string[]; secretRefs: string[] };
}

type Named = { name: string };
type Spec = Record<string, unknown>;

const RESOURCE_SPEC: Path = ["source_config", "resource_spec"];
/** resource_spec fields that are maps: merged key by key (every other field is replaced). */
const MAP_FIELDS = new Set(["labels", "annotations"]);

/**
 * A secret as a server may return it when it hides values (null, empty, `****`, `[REDACTED]`,
 * `sk-...abcd`: secrets.ts's looksMasked): nothing cpctl could send back.
 */
function hasNoValue(secret: { value?: unknown }): boolean {
  return looksMasked(secret.value);
}

export function mergeChange(current: DeploymentState, change: PartialChange): MergeResult {
  const clear = change.clear ?? [];
  for (const path of clear) assertClearable(path);
  const given = change.body;
  const body: Record<string, unknown> = {};
  if (given.revision_source != null) body.revision_source = given.revision_source;

  const sourceConfig = pickNonNull(given.source_config);
  delete sourceConfig.resource_spec;
  const spec = mergeResourceSpec(current, change, clear);
  if (spec !== undefined) sourceConfig.resource_spec = spec;
  if (Object.keys(sourceConfig).length > 0) body.source_config = sourceConfig;

  const revisionConfig = pickNonNull(given.source_revision_config);
  if (Object.keys(revisionConfig).length > 0) body.source_revision_config = revisionConfig;

  const absent = { secrets: [] as string[], secretRefs: [] as string[] };
  const replaceSecrets = Boolean(change.replaceSecrets) || clear.some((p) => samePath(p, ["secrets"]));
  const secrets = mergeNamed({
    current: current.secrets ?? [],
    given: given.secrets,
    unset: change.unsetSecrets ?? [],
    replace: replaceSecrets,
    absent: absent.secrets,
  });
  if (secrets !== undefined) {
    if (!replaceSecrets) refuseHiddenValues(current.secrets ?? [], secrets);
    if (!sameNamedSet(secrets, current.secrets ?? [])) body.secrets = secrets;
  }
  const refs = mergeNamed({
    current: current.secret_references ?? [],
    given: given.secret_references,
    unset: change.unsetSecretRefs ?? [],
    replace: Boolean(change.replaceSecretRefs) || clear.some((p) => samePath(p, ["secret_references"])),
    absent: absent.secretRefs,
  });
  if (refs !== undefined && !sameNamedSet(refs, current.secret_references ?? []))
    body.secret_references = refs;

  return { body, after: predictPatched(current, body), absent };
}

/**
 * The deployment as the service holds it after a PATCH with `body`: every non-null field
 * replaces the stored one (resource_spec with its limit defaults filled), secrets and
 * secret references are replaced whole, and a gitrepo's custom_url stays the service's.
 */
export function predictPatched(current: DeploymentState, body: Record<string, unknown>): DeploymentState {
  const sourceConfig: Spec = { ...current.source_config };
  for (const [field, value] of Object.entries((body.source_config ?? {}) as Spec)) {
    if (value == null || (field === "custom_url" && current.source === "gitrepo")) continue;
    sourceConfig[field] = field === "resource_spec" ? withResourceDefaults(value as Spec) : value;
  }
  const revisionConfig: Spec = { ...current.source_revision_config };
  for (const [field, value] of Object.entries((body.source_revision_config ?? {}) as Spec)) {
    if (value != null) revisionConfig[field] = value;
  }
  return {
    source: current.source,
    source_config: sourceConfig as DeploymentState["source_config"],
    source_revision_config: revisionConfig as DeploymentState["source_revision_config"],
    secrets: (body.secrets as DeploymentState["secrets"]) ?? current.secrets,
    secret_references:
      (body.secret_references as DeploymentState["secret_references"]) ?? current.secret_references,
  };
}

/**
 * The whole resource_spec to send, or undefined when the change names none of it. Starts from
 * the current spec (or nothing, with replaceResourceSpec), leaves out the fields that sat at
 * their default so that they follow their request, applies the named fields (maps key by key,
 * lists whole), then the clears. Unchanged, it is not sent: a resource_spec starts a revision.
 */
function mergeResourceSpec(
  current: DeploymentState,
  change: PartialChange,
  clear: readonly Path[],
): Spec | undefined {
  const givenSpec = (change.body.source_config as Spec | null | undefined)?.resource_spec as
    | Spec
    | null
    | undefined;
  const specClears = clear.filter((path) => isUnder(path, RESOURCE_SPEC)).map((path) => path.slice(2));
  if (givenSpec == null && specClears.length === 0 && !change.replaceResourceSpec) return undefined;

  const currentSpec = (current.source_config.resource_spec ?? {}) as Spec;
  const named = (field: string) => givenSpec?.[field] != null || specClears.some((path) => path[0] === field);
  let spec: Spec = {};
  if (!change.replaceResourceSpec) {
    spec = structuredClone(currentSpec);
    for (const field of fieldsAtDefault(currentSpec)) if (!named(field)) delete spec[field];
  }
  for (const [field, value] of Object.entries(givenSpec ?? {})) {
    if (value == null) continue;
    spec[field] = MAP_FIELDS.has(field)
      ? { ...((spec[field] as Spec | null | undefined) ?? {}), ...(value as Spec) }
      : structuredClone(value);
  }
  for (const path of specClears) {
    if (path.length === 0) spec = {};
    else deleteAt(spec, path);
  }
  const sent = withoutEmpty(spec);
  return sameValue(withResourceDefaults(sent), withoutEmpty(currentSpec)) ? undefined : sent;
}

interface NamedMerge {
  current: readonly Named[];
  given: unknown;
  unset: readonly string[];
  replace: boolean;
  /** Collects unset names the list does not hold. */
  absent: string[];
}

/** A list keyed by name, merged: given entries set or overwrite by name, unset ones go. */
function mergeNamed({ current, given, unset, replace, absent }: NamedMerge): Named[] | undefined {
  const entries = Array.isArray(given) ? (given as Named[]) : undefined;
  if (entries === undefined && unset.length === 0 && !replace) return undefined;
  const result: Named[] = replace ? [] : current.map((item) => ({ ...item }));
  const position = new Map(result.map((item, index) => [item.name, index]));
  for (const entry of entries ?? []) {
    const at = position.get(entry.name);
    if (at === undefined) {
      position.set(entry.name, result.length);
      result.push({ ...entry });
    } else result[at] = { ...entry };
  }
  const gone = new Set<string>();
  for (const name of unset) {
    if (position.has(name)) gone.add(name);
    else if (!replace) absent.push(name);
  }
  return result.filter((item) => !gone.has(item.name));
}

/**
 * Secrets kept from the deployment must be sent back with their values. When the server did
 * not return a value (null, empty or masked), sending it would overwrite the real one: refuse.
 */
function refuseHiddenValues(
  current: readonly { name: string; value?: unknown }[],
  merged: readonly Named[],
): void {
  const kept = new Set(merged.map((s) => s.name));
  const hidden = current.filter(
    (secret) => kept.has(secret.name) && hasNoValue(secret) && isUnchanged(secret, merged),
  );
  if (hidden.length === 0) return;
  const names = hidden.map((s) => s.name).join(", ");
  throw new UsageError(
    `the server returned secret${hidden.length === 1 ? "" : "s"} ${names} without ${hidden.length === 1 ? "its value" : "their values"}, so cpctl cannot keep ${hidden.length === 1 ? "it" : "them"} while changing the others: nothing was sent`,
  ).withHint(
    "Give the whole set instead: --replace-secrets with every secret the deployment should have (--secret NAME, --secrets-file FILE or -f FILE).",
  );
}

/** The merged list still holds this current entry as it was (the change did not overwrite it). */
function isUnchanged(secret: { name: string; value?: unknown }, merged: readonly Named[]): boolean {
  const entry = merged.find((s) => s.name === secret.name) as { value?: unknown } | undefined;
  return entry !== undefined && entry.value === secret.value;
}

/**
 * `--set PATH=null` can clear what the merge sends whole: a resource_spec field or key (or
 * the whole spec), or all secrets or secret references. Anything else the API cannot clear
 * (a null in a PATCH means "leave it as it is"): say so rather than report a change that
 * never happens.
 */
function assertClearable(path: Path): void {
  if (isUnder(path, RESOURCE_SPEC)) return;
  if (samePath(path, ["secrets"]) || samePath(path, ["secret_references"])) return;
  const shown = formatPath(path);
  const hint =
    path[0] === "secrets"
      ? "remove one secret with --unset-secret NAME"
      : path[0] === "secret_references"
        ? "remove one reference with --unset-secret-ref NAME"
        : "give it a new value instead";
  throw new UsageError(
    `--set ${shown}=null: the API cannot clear ${shown} (in a PATCH, null means "leave it as it is"); ${hint}`,
  );
}

/** The non-null fields of an object, nested objects (listener_config) likewise: null is no opinion. */
function pickNonNull(value: unknown): Spec {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return {};
  const result: Spec = {};
  for (const [key, child] of Object.entries(value)) {
    if (child == null) continue;
    if (typeof child !== "object" || Array.isArray(child)) result[key] = child;
    else if (Object.keys(pickNonNull(child)).length > 0) result[key] = pickNonNull(child);
  }
  return result;
}

/** The spec without fields that say nothing: null ones, and labels or annotations with no key. */
function withoutEmpty(spec: Spec): Spec {
  return Object.fromEntries(
    Object.entries(spec).filter(
      ([field, v]) => v != null && !(MAP_FIELDS.has(field) && Object.keys(v as Spec).length === 0),
    ),
  );
}

function isUnder(path: Path, prefix: Path): boolean {
  return path.length >= prefix.length && prefix.every((part, i) => path[i] === part);
}

function samePath(a: Path, b: Path): boolean {
  return a.length === b.length && isUnder(a, b);
}

/** Same entries by name, whatever their order (the order of environment variables means nothing). */
function sameNamedSet(a: readonly Named[], b: readonly Named[]): boolean {
  if (a.length !== b.length) return false;
  const byName = new Map(b.map((item) => [item.name, item]));
  return a.every((item) => sameValue(item, byName.get(item.name)));
}

/** Deep equality where null, undefined and an absent key are the same. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a == null || b == null) return a == null && b == null;
  if (typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameValue(item, other[i]));
  }
  const left = a as Spec;
  const right = b as Spec;
  for (const key of new Set([...Object.keys(left), ...Object.keys(right)]))
    if (!sameValue(left[key], right[key])) return false;
  return true;
}
