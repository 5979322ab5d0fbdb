// `listeners create|update|delete` (CLI.md; issue 34, point 3). Each change is shown on stderr
// before it is sent (`{"preview": ...}` in json/ndjson), --dry-run shows it and sends nothing,
// and the request body is checked by the model's listener requests (model/listeners.ts: what
// the emulator checks too) before anything is sent.
//
// update: the document's PATCH replaces compute_config.k8s_namespaces whole. --k8s-namespace
// (repeated) makes the namespaces given the whole list; --add-k8s-namespace and
// --remove-k8s-namespace change those named and keep the rest: cpctl reads the listener,
// merges, and sends the whole list. Removing a namespace that deployments use is refused
// before anything is sent (a deployment's listener and namespace are fixed at its creation:
// it would be stranded), and so is deleting a listener that deployments use.
import { createListener, deleteListener, getListener, patchListener } from "../api/endpoints.js";
import { mayHaveBeenApplied } from "../api/retry.js";
import type { Ctx } from "../context.js";
import { ApiError, type CliError, OperationError, UsageError } from "../errors.js";
import type { Change } from "../model/changes.js";
import type { FieldIssue } from "../model/issue-path.js";
import {
  type ListenerCreate,
  type ListenerPatch,
  namespaceProblem,
  validateListenerCreate,
  validateListenerPatch,
} from "../model/listeners.js";
import type { ListenerT } from "../model/responses.js";
import { ValidationError } from "../model/validation-error.js";
import { changeAsJson, changeLines } from "../output/changes.js";
import { jsonText } from "../output/encode.js";
import { isMachineFormat } from "../output/format.js";
import { joinLines, styled, visible, writeText } from "../output/safe-text.js";
import { listenerView } from "../output/views.js";
import { guardMutation } from "./confirm.js";
import { deploymentsOnListener, namedDeployments, resolveListener } from "./listener-resolve.js";
import { sendChange } from "./send-change.js";
import { suggestCommand } from "./suggest.js";

const NAMESPACES = "compute_config.k8s_namespaces";

export interface ListenerCreateInput {
  computeId: string;
  namespaces: string[];
  dryRun?: boolean;
}

export interface ListenerUpdateInput {
  ref: string;
  /** --k8s-namespace: the whole list. */
  namespaces?: string[];
  add?: string[];
  remove?: string[];
  dryRun?: boolean;
}

export interface ListenerDeleteInput {
  ref: string;
  dryRun?: boolean;
}

export async function runListenerCreate(ctx: Ctx, input: ListenerCreateInput): Promise<void> {
  checkNamespaces("--k8s-namespace", input.namespaces);
  const body: ListenerCreate = {
    compute_type: "k8s",
    compute_id: input.computeId,
    compute_config: { k8s_namespaces: unique(input.namespaces) },
  };
  const checked = validateListenerCreate(body);
  if (!checked.ok) throw invalid(checked.issues);
  await showPreview(ctx, {
    action: "create",
    headline: `Creating listener for compute ID ${input.computeId} (k8s):`,
    listener: null,
    computeId: input.computeId,
    changes: [
      added("compute_type", "k8s"),
      added("compute_id", input.computeId),
      ...body.compute_config.k8s_namespaces!.map((ns) => added(NAMESPACES, ns)),
    ],
    namespaces: body.compute_config.k8s_namespaces!,
  });
  if (await dryRun(ctx, input.dryRun, body)) return;
  await guardMutation(ctx, `create listener for compute ID ${input.computeId}`);
  const api = await ctx.api();
  let created: ListenerT;
  try {
    created = await createListener(api, body);
  } catch (error) {
    throw await createFailed(ctx, error, input.computeId);
  }
  ctx.log.info(`created listener ${created.id} for compute ID ${created.compute_id}`);
  await (await ctx.printer()).item(created, listenerView);
}

export async function runListenerUpdate(ctx: Ctx, input: ListenerUpdateInput): Promise<void> {
  const replace = input.namespaces ?? [];
  const add = input.add ?? [];
  const remove = input.remove ?? [];
  if (replace.length > 0 && add.length + remove.length > 0) {
    throw new UsageError(
      "--k8s-namespace makes the namespaces given the whole list; --add-k8s-namespace and --remove-k8s-namespace change some and keep the rest: give one or the other",
    );
  }
  if (replace.length + add.length + remove.length === 0) {
    throw new UsageError(
      "nothing to change: give --k8s-namespace (the whole list), or --add-k8s-namespace / --remove-k8s-namespace",
    );
  }
  checkNamespaces("--k8s-namespace", replace);
  checkNamespaces("--add-k8s-namespace", add);
  checkNamespaces("--remove-k8s-namespace", remove);
  const both = add.filter((ns) => remove.includes(ns));
  if (both.length > 0)
    throw new UsageError(`namespace ${both.join(", ")} is both added and removed: give it once`);

  const current = await resolveListener(ctx, input.ref);
  const before = current.compute_config?.k8s_namespaces ?? [];
  for (const ns of remove.filter((ns) => !before.includes(ns)))
    ctx.log.info(`listener ${current.compute_id} has no namespace ${ns}: nothing to remove`);
  const after =
    replace.length > 0
      ? unique(replace)
      : [...before.filter((ns) => !remove.includes(ns)), ...unique(add).filter((ns) => !before.includes(ns))];
  const removed = before.filter((ns) => !after.includes(ns));
  const changes = [
    ...after.filter((ns) => !before.includes(ns)).map((ns) => added(NAMESPACES, ns)),
    ...removed.map((ns) => dropped(NAMESPACES, ns)),
  ];
  const printer = await ctx.printer();
  if (changes.length === 0 && sameOrder(before, after)) {
    ctx.log.info(
      `nothing to change: listener ${current.compute_id} already has ${describe(after)}; nothing was sent`,
    );
    if (input.dryRun) await printer.value({});
    else await printer.item(current, listenerView);
    return;
  }
  if (removed.length > 0) await refuseStranding(ctx, current, removed);
  const body: ListenerPatch = { compute_config: { k8s_namespaces: after } };
  const checked = validateListenerPatch(body);
  if (!checked.ok) throw invalid(checked.issues);
  await showPreview(ctx, {
    action: "update",
    headline: `Changes to listener ${current.compute_id} (${current.id}): namespaces ${describe(after)}`,
    listener: current.id,
    computeId: current.compute_id,
    changes,
    namespaces: after,
  });
  if (await dryRun(ctx, input.dryRun, body)) return;
  const asked = await guardMutation(ctx, `update listener ${current.compute_id}`);
  const api = await ctx.api();
  if (asked) {
    // The user took time: the list may have moved since it was read, and the whole list is sent.
    const fresh = await getListener(api, current.id);
    if (!sameOrder(fresh.compute_config?.k8s_namespaces ?? [], before)) {
      throw new OperationError(
        `listener ${current.compute_id} was changed by someone else since cpctl read it (namespaces now ${describe(fresh.compute_config?.k8s_namespaces ?? [])}): nothing was sent; run the command again`,
        "conflict",
      );
    }
  }
  const updated = await sendChange(ctx, { what: "update", look: ["listeners", "get", current.id] }, () =>
    patchListener(api, current.id, body),
  );
  ctx.log.info(
    `updated listener ${updated.compute_id}: namespaces ${describe(updated.compute_config?.k8s_namespaces ?? [])}`,
  );
  await printer.item(updated, listenerView);
}

export async function runListenerDelete(ctx: Ctx, input: ListenerDeleteInput): Promise<void> {
  // Off a terminal without --yes, the deletion would be refused: say so before any request.
  if (!input.dryRun && !ctx.interactive && !ctx.flags.yes)
    await guardMutation(ctx, `delete listener ${input.ref}`, { always: true });
  const listener = await resolveListener(ctx, input.ref);
  const users = await deploymentsOnListener(ctx, listener.id);
  if (users.length > 0) {
    throw new OperationError(
      `listener ${listener.compute_id} (${listener.id}) is used by ${count(users.length)}: ${namedDeployments(users)}; nothing was sent`,
      "conflict",
    ).withHint("A deployment's listener is fixed at its creation: delete those deployments first.");
  }
  const namespaces = listener.compute_config?.k8s_namespaces ?? [];
  await showPreview(ctx, {
    action: "delete",
    headline: `Deleting listener ${listener.compute_id} (${listener.id}), namespaces ${describe(namespaces)}`,
    listener: listener.id,
    computeId: listener.compute_id,
    changes: [],
    namespaces: [],
  });
  if (input.dryRun) {
    ctx.log.info("dry run: nothing was deleted");
    return;
  }
  await guardMutation(ctx, `delete listener ${listener.compute_id} (${listener.id})`, { always: true });
  const api = await ctx.api();
  try {
    await sendChange(ctx, { what: "delete", look: ["listeners", "get", listener.id], retried: true }, () =>
      deleteListener(api, listener.id),
    );
  } catch (error) {
    // A deployment made on it since it was checked: the service's word, and what to do.
    if (error instanceof ApiError && error.status === 409)
      error.withHint(
        "A deployment's listener is fixed at its creation: delete the deployments that use it first.",
      );
    throw error;
  }
  ctx.log.info(`deleted listener ${listener.compute_id} (${listener.id})`);
  const printer = await ctx.printer();
  const result = { id: listener.id, compute_id: listener.compute_id, deleted: true };
  switch (printer.options.format) {
    case "table":
      return;
    case "id":
      printer.line(listener.id);
      return;
    default:
      await printer.value(result);
  }
}

/** Every value of a namespace flag is a DNS label: exit 2 naming the flag and the value. */
function checkNamespaces(flag: string, values: readonly string[]): void {
  for (const value of values) {
    const problem = namespaceProblem(value);
    if (problem) throw new UsageError(`${flag} ${JSON.stringify(value)}: ${problem}`);
  }
}

/** The body the model refused (a compute ID it will not take): exit 2, each problem named by its flag. */
function invalid(issues: readonly FieldIssue[]): ValidationError {
  const flag = (issue: FieldIssue) =>
    issue.loc[1] === "compute_id"
      ? "--compute-id"
      : issue.loc[1] === "compute_config"
        ? "--k8s-namespace"
        : issue.loc.join(".");
  return new ValidationError(issues.map((issue) => `${flag(issue)}: ${issue.msg}`).join("\n"), [...issues]);
}

/** Refuses (nothing sent) to remove namespaces that deployments on the listener use. */
async function refuseStranding(ctx: Ctx, listener: ListenerT, removed: readonly string[]): Promise<void> {
  const users = (await deploymentsOnListener(ctx, listener.id)).filter((d) => {
    const ns = (d.source_config?.listener_config as { k8s_namespace?: unknown } | null | undefined)
      ?.k8s_namespace;
    return typeof ns === "string" && removed.includes(ns);
  });
  if (users.length === 0) return;
  throw new OperationError(
    `cannot remove ${removed.length === 1 ? "namespace" : "namespaces"} ${removed.join(", ")} from listener ${listener.compute_id}: ${count(users.length)} ${users.length === 1 ? "uses" : "use"} it: ${namedDeployments(users)}; nothing was sent`,
    "conflict",
  ).withHint("A deployment's namespace is fixed at its creation: delete those deployments first.");
}

/** A create that failed: a compute ID taken (409) named with its listener; an uncertain one said so. */
async function createFailed(ctx: Ctx, error: unknown, computeId: string): Promise<unknown> {
  if (error instanceof ApiError && error.status === 409) {
    const existing = await resolveListener(ctx, computeId).catch(() => null);
    const message = existing
      ? `a listener for compute ID ${computeId} already exists: ${existing.id} (namespaces ${describe(existing.compute_config?.k8s_namespaces ?? [])})`
      : `a listener for compute ID ${computeId} already exists (the service says: ${firstLine(error)})`;
    const change = await suggestCommand(ctx, ["listeners", "update", computeId, "--add-k8s-namespace", "NS"]);
    return new ApiError(409, message, error.body, error.method, error.path).withHint(
      `A compute ID is one listener's. Change that one instead, e.g.: ${change}`,
    );
  }
  if (!mayHaveBeenApplied(error)) return error;
  const look = await suggestCommand(ctx, ["listeners", "get", computeId]);
  return (error as CliError).withHint(
    `The listener may have been created all the same. Look with: ${look}. Running the create again is safe: a second create of compute ID ${computeId} is refused (409), naming the listener.`,
  );
}

interface Preview {
  action: "create" | "update" | "delete";
  headline: string;
  listener: string | null;
  computeId: string;
  changes: Change[];
  /** The namespaces after the change. */
  namespaces: readonly string[];
}

/** The change on stderr before it is sent: text, or one `{"preview": ...}` line in json/ndjson. */
async function showPreview(ctx: Ctx, preview: Preview): Promise<void> {
  const printer = await ctx.printer();
  if (isMachineFormat(printer.options.format)) {
    const json = {
      preview: {
        action: preview.action,
        listener_id: preview.listener,
        compute_id: preview.computeId,
        changes: preview.changes.map((change) => changeAsJson(change, false)),
        k8s_namespaces: preview.namespaces,
      },
    };
    writeText(ctx.io.stderr, `${jsonText(json)}\n`);
    return;
  }
  const lines = changeLines(preview.changes, { showSecrets: false, paint: ctx.paint });
  writeText(
    ctx.io.stderr,
    styled`${joinLines([visible(preview.headline), ...lines.map((line) => styled`  ${line}`)])}\n`,
  );
}

/** --dry-run: the body that would be sent, on stdout; true when it was one. */
async function dryRun(ctx: Ctx, dry: boolean | undefined, body: unknown): Promise<boolean> {
  if (!dry) return false;
  await (await ctx.printer()).value(body);
  ctx.log.info("dry run: nothing was sent");
  return true;
}

function added(path: string, value: string): Change {
  return { path, kind: "add", current: null, desired: value, immutable: false, secret: false };
}

function dropped(path: string, value: string): Change {
  return { path, kind: "remove", current: value, desired: null, immutable: false, secret: false };
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function sameOrder(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

function describe(namespaces: readonly string[]): string {
  return namespaces.length > 0 ? namespaces.join(", ") : "(none)";
}

function count(n: number): string {
  return `${n} deployment${n === 1 ? "" : "s"}`;
}

function firstLine(error: unknown): string {
  return String((error as Error).message ?? error).split("\n")[0]!;
}
