// `deploy patch`: the flags and file turned into a partial change (manifest/build.ts), planned
// against the deployment as just read (model/plan.ts), then sent as every change is
// (change.ts). It changes only what is named (CLI.md "Changing part of a deployment").
import type { Ctx } from "../context.js";
import { UsageError } from "../errors.js";
import { type BodyOptions, type BuiltBody, buildBody, rejectIssues } from "../manifest/build.js";
import { planPatch } from "../model/plan.js";
import type { DeploymentT } from "../model/responses.js";
import { validatePatchShape } from "../model/validate.js";
import type { FinishOptions } from "./after-change.js";
import { patchAndFinish } from "./change.js";
import { resolveDeployment } from "./resolve.js";

/** How a patch treats what it does not name. (A type, not an interface: commander's option sets are.) */
export type MergeFlags = {
  unsetSecret?: string[];
  unsetSecretRef?: string[];
  replaceSecrets?: boolean;
  replaceSecretRefs?: boolean;
  replaceResourceSpec?: boolean;
};

export interface PatchInput extends BodyOptions, MergeFlags, FinishOptions {
  dryRun?: boolean;
}

export async function runPatch(ctx: Ctx, ref: string, input: PatchInput): Promise<void> {
  const current = await resolveDeployment(ctx, ref);
  const built = await buildBody("patch", input, ctx, current);
  const unsets = (input.unsetSecret?.length ?? 0) + (input.unsetSecretRef?.length ?? 0);
  if (!built.hasFields && unsets === 0) {
    throw new UsageError(
      "nothing to change: give a field flag (e.g. --image-uri), --set PATH=VALUE, a secret flag or -f FILE",
    );
  }
  dropFixedIdentity(built.body, current);
  checkReplaceFlags(built, input);
  const shape = validatePatchShape(built.body);
  if (!shape.ok) return rejectIssues(built, shape.issues, "the patch");
  if (Array.isArray(built.body.secrets) && built.body.secrets.length === 0 && !input.replaceSecrets) {
    ctx.log.info(
      "note: an empty secrets list in a patch changes nothing (secrets merge by name); --replace-secrets makes it the whole set",
    );
  }
  const planned = planPatch(current, {
    body: built.body,
    clear: built.clears,
    unsetSecrets: input.unsetSecret,
    unsetSecretRefs: input.unsetSecretRef,
    replaceSecrets: input.replaceSecrets,
    replaceSecretRefs: input.replaceSecretRefs,
    replaceResourceSpec: input.replaceResourceSpec,
  });
  if (!planned.ok) return rejectIssues(built, planned.issues, "the patch");
  warnAbsentUnsets(ctx, current, planned.plan.absent);
  await patchAndFinish(ctx, current, planned.plan, input);
}

/** `--unset-secret NAME` for a secret the deployment does not have: said, and nothing else. */
export function warnAbsentUnsets(
  ctx: Ctx,
  current: DeploymentT,
  absent: { secrets: readonly string[]; secretRefs: readonly string[] },
): void {
  for (const name of absent.secrets)
    ctx.log.warn(`deployment ${current.name} has no secret ${name} to unset`);
  for (const name of absent.secretRefs)
    ctx.log.warn(`deployment ${current.name} has no secret reference ${name} to unset`);
}

/** A --replace-* flag makes what is given the whole set: with nothing given it would empty it. */
function checkReplaceFlags(built: BuiltBody, flags: MergeFlags): void {
  const spec = (built.body.source_config as { resource_spec?: unknown } | undefined)?.resource_spec;
  const missing: string[] = [];
  if (flags.replaceSecrets && !Array.isArray(built.body.secrets))
    missing.push(
      "--replace-secrets needs the secrets to keep (--secret, --secrets-file or a secrets list in -f FILE)",
    );
  if (flags.replaceSecretRefs && !Array.isArray(built.body.secret_references))
    missing.push(
      "--replace-secret-refs needs the references to keep (--secret-ref, or secret_references in -f FILE)",
    );
  if (flags.replaceResourceSpec && spec == null)
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
