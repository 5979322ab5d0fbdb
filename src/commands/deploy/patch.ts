import type { Ctx } from "../../context.js";
import { UsageError } from "../../errors.js";
import { type BuiltBody, buildBody, rejectIssues } from "../../manifest/build.js";
import { changesBetween } from "../../model/changes.js";
import { mergeChange } from "../../model/merge.js";
import type { DeploymentT } from "../../model/responses.js";
import { validatePatchRequest, validatePatchShape } from "../../model/validate.js";
import { type PlannedPatch, patchWithPreview } from "../../operations/patch.js";
import { resolveDeployment, resolveIdFlags } from "../../operations/resolve.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import {
  addExtraBodyOptions,
  addFieldOptions,
  addFileOption,
  addMergeOptions,
  type MergeOptions,
  type MutationOptions,
} from "./body-options.js";
import { addWaitOptions, WAIT_HELP } from "./wait-options.js";

export type PatchCommandOptions = MutationOptions & MergeOptions;

export default defineCommand({
  configure: (command) =>
    addWaitOptions(
      addMergeOptions(
        addExtraBodyOptions(
          addFieldOptions(
            addFileOption(command.argument("<deployment>", "deployment ID, or its exact name")),
            "patch",
          ),
        ),
      ).option("--dry-run", "show the changes and the patch body (secret values masked); send nothing"),
    ).addHelpText(
      "after",
      `
Changes only what is named; everything else stays as it is. The API replaces secrets,
secret_references and resource_spec whole, so cpctl reads the deployment, merges the change
into them and sends the whole result: --secret and --secrets-file set those secrets and keep
the others, resource flags and --set source_config.resource_spec.* keep the other fields
(labels and annotations merge by key; a list is replaced only when named), and a limit that
sat at its default (2 x cpu, ...) follows its request. --set PATH=null clears one resource
field or key. A file given with -f is merged the same way (null in it means "no opinion").

Before sending, stderr shows every change, field by field and secret by name (values masked),
removals included; with -o json it is one line {"preview":{...}}. --dry-run shows the same
and sends nothing. repo_ref, agent_config_path, image_uri, source_tarball_path,
resource_spec and secrets start a new revision; the command says whether one started.
A secret value of "****" (the mask) is refused, and so is an empty one unless
--allow-empty-secrets. If the server returns secrets without their values, cpctl refuses to
merge rather than write back what it cannot see: give the whole set with --replace-secrets.${WAIT_HELP}${examples(
        "cpctl deploy patch my-agent --secret OPENAI_API_KEY=sk-new   # the other secrets stay",
        "cpctl deploy patch my-api --cpu 2 --max-scale 5 --dry-run     # memory, labels, ... stay",
        "cpctl deploy patch my-api --unset-secret OLD_TOKEN",
        "cpctl deploy patch my-api --set source_config.resource_spec.labels.team=null",
        "cpctl deploy patch my-agent --repo-ref release-2 --wait",
        "cpctl deploy patch my-agent --no-build-on-push   # no new revision",
      )}`,
    ),
  run: async (ctx, [ref], options) => {
    await runPatch(ctx, await resolveDeployment(ctx, ref), options);
  },
});

export async function runPatch(ctx: Ctx, current: DeploymentT, options: PatchCommandOptions): Promise<void> {
  await resolveIdFlags(ctx, options);
  const built = await buildBody("patch", options, ctx, current);
  const unsets = (options.unsetSecret?.length ?? 0) + (options.unsetSecretRef?.length ?? 0);
  if (!built.hasFields && unsets === 0) {
    throw new UsageError(
      "nothing to change: give a field flag (e.g. --image-uri), --set PATH=VALUE, a secret flag or -f FILE",
    );
  }
  dropFixedIdentity(built.body, current);
  checkReplaceFlags(built, options);
  const shape = validatePatchShape(built.body);
  if (!shape.ok) return rejectIssues(built, shape.issues, "the patch");
  if (Array.isArray(built.body.secrets) && built.body.secrets.length === 0 && !options.replaceSecrets) {
    ctx.log.info(
      "note: an empty secrets list in a patch changes nothing (secrets merge by name); --replace-secrets makes it the whole set",
    );
  }
  await patchWithPreview(ctx, current, await planPatch(ctx, built, current, options), options);
}

/** The change merged into the deployment (model/merge.ts), validated as the server will see it. */
async function planPatch(
  ctx: Ctx,
  built: BuiltBody,
  current: DeploymentT,
  options: PatchCommandOptions,
): Promise<PlannedPatch> {
  const merged = mergeChange(current, {
    body: built.body,
    clear: built.clears,
    unsetSecrets: options.unsetSecret,
    unsetSecretRefs: options.unsetSecretRef,
    replaceSecrets: options.replaceSecrets,
    replaceSecretRefs: options.replaceSecretRefs,
    replaceResourceSpec: options.replaceResourceSpec,
  });
  for (const name of merged.absent.secrets)
    ctx.log.warn(`deployment ${current.name} has no secret ${name} to unset`);
  for (const name of merged.absent.secretRefs)
    ctx.log.warn(`deployment ${current.name} has no secret reference ${name} to unset`);
  const checked = validatePatchRequest(merged.body, current);
  if (!checked.ok) return rejectIssues(built, checked.issues, "the patch");
  return { body: checked.value, changes: changesBetween(current, merged.after) };
}

/** A --replace-* flag makes what is given the whole set: with nothing given it would empty it. */
function checkReplaceFlags(built: BuiltBody, options: PatchCommandOptions): void {
  const spec = (built.body.source_config as { resource_spec?: unknown } | undefined)?.resource_spec;
  const missing: string[] = [];
  if (options.replaceSecrets && !Array.isArray(built.body.secrets))
    missing.push(
      "--replace-secrets needs the secrets to keep (--secret, --secrets-file or a secrets list in -f FILE)",
    );
  if (options.replaceSecretRefs && !Array.isArray(built.body.secret_references))
    missing.push(
      "--replace-secret-refs needs the references to keep (--secret-ref, or secret_references in -f FILE)",
    );
  if (options.replaceResourceSpec && spec == null)
    missing.push(
      "--replace-resource-spec needs the resource fields to keep (resource flags, --set or -f FILE)",
    );
  if (missing.length > 0) {
    throw new UsageError(missing.join("\n")).withHint(
      "To remove everything, say so: --set secrets=null, --set secret_references=null or --set source_config.resource_spec=null.",
    );
  }
}

/**
 * A file written for create carries `name` and `source`, which a patch body has no room for.
 * Equal to the deployment's they say nothing and are dropped; different, they are an error.
 */
function dropFixedIdentity(body: Record<string, unknown>, current: DeploymentT): void {
  for (const field of ["name", "source"] as const) {
    if (!(field in body)) continue;
    if (body[field] !== current[field]) {
      throw new UsageError(
        `${field} is fixed at creation: the deployment's ${field} is '${current[field]}', not '${String(body[field])}'; remove ${field} from the file or create a new deployment`,
      );
    }
    delete body[field];
  }
}
