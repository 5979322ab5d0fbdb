// The change preview every mutation writes on stderr before it sends (and --dry-run too):
// field by field and secret by name, removals marked, secret values masked. In json/ndjson
// mode it is one JSON object on a line of its own, `{"preview":{...}}`, so that a script can
// read what is about to change (or what a --dry-run would change) without parsing text;
// stdout keeps the result alone.
import type { Ctx } from "../context.js";
import type { Change } from "../model/changes.js";
import { isTerminalRevisionStatus } from "../model/enums.js";
import type { DeploymentT } from "../model/responses.js";
import { changeAsJson, changeLines, countChanges } from "../output/changes.js";
import { jsonText } from "../output/encode.js";
import { isMachineFormat } from "../output/format.js";
import { joinLines, styled, visible, writeText } from "../output/safe-text.js";
import { maskBeforeShowing } from "../output/workflow-commands.js";

interface Preview {
  action: "create" | "patch" | "redeploy";
  name: string;
  /** null for a deployment that does not exist yet. */
  deploymentId: string | null;
  changes: readonly Change[];
  /** What starts a new revision ("source_config.resource_spec", "secrets", ...): empty when none does. */
  triggers: readonly string[];
  /** The text headline, when the action says more than "changes to deployment X". */
  headline?: string;
  /**
   * The deployment as read, when the change may start a revision on an existing one: a
   * revision of it still on its way would be interrupted (said in the preview).
   */
  current?: DeploymentT;
}

/** A revision that a new one would replace before it ends: the latest, while in progress. */
async function interrupted(
  ctx: Ctx,
  deployment: DeploymentT,
): Promise<{ id: string; status: string } | null> {
  const { latest_revision_id: latest, active_revision_id: active } = deployment;
  if (!latest || latest === active) return null;
  // Loaded only here: a create's --dry-run previews without the API module.
  const { getRevision } = await import("../api/endpoints.js");
  const revision = await getRevision(await ctx.api(), deployment.id, latest);
  return isTerminalRevisionStatus(revision.status) ? null : { id: revision.id, status: revision.status };
}

export async function showPreview(ctx: Ctx, preview: Preview): Promise<void> {
  const printer = await ctx.printer();
  const showSecrets = Boolean(ctx.flags.showSecrets);
  const newRevision = preview.action !== "patch" || preview.triggers.length > 0;
  const replaced = newRevision && preview.current ? await interrupted(ctx, preview.current) : null;
  if (showSecrets) {
    maskBeforeShowing(ctx.io.stderr, () =>
      preview.changes
        .filter((change) => change.secret)
        .flatMap((change) => [change.current, change.desired])
        .filter((value): value is string => typeof value === "string"),
    );
  }
  if (isMachineFormat(printer.options.format)) {
    const json = {
      preview: {
        action: preview.action,
        name: preview.name,
        deployment_id: preview.deploymentId,
        new_revision: newRevision,
        revision_triggers: preview.triggers,
        changes: preview.changes.map((change) => changeAsJson(change, showSecrets)),
        interrupts: replaced ? { revision_id: replaced.id, status: replaced.status } : null,
      },
    };
    writeText(ctx.io.stderr, `${jsonText(json)}\n`);
    return;
  }
  const revision =
    preview.action !== "patch"
      ? ""
      : preview.triggers.length > 0
        ? `; starts a new revision (${preview.triggers.join(", ")})`
        : "; no new revision";
  const name = visible(preview.name);
  const headline = preview.headline
    ? `${visible(preview.headline)}${preview.changes.length === 0 ? "; no field changes" : ":"}`
    : preview.action === "create"
      ? `Creating deployment ${name}:`
      : preview.changes.length === 0
        ? `No field of deployment ${name} changes${revision}`
        : `Changes to deployment ${name}: ${countChanges(preview.changes)}${revision}`;
  const lines = changeLines(preview.changes, { showSecrets, paint: ctx.paint });
  if (replaced) {
    lines.push(
      ctx.paint.yellow(
        `revision ${visible(replaced.id)} is still ${visible(replaced.status)}: the new revision replaces it, and it ends unfinished`,
      ),
    );
  }
  writeText(ctx.io.stderr, styled`${joinLines([headline, ...lines.map((line) => styled`  ${line}`)])}\n`);
}
