// `deploy patch`: the flags and file turned into a partial change (manifest/patch.ts), planned
// against the deployment as just read (model/plan.ts), then sent as every change is
// (change.ts). It changes only what is named (CLI.md "Changing part of a deployment").
import type { Ctx } from "../context.js";
import { type BodyFlags, type BodyOptions, rejectIssues } from "../manifest/build.js";
import { type MergeFlags, patchRequest } from "../manifest/patch.js";
import { planPatch } from "../model/plan.js";
import type { DeploymentT } from "../model/responses.js";
import type { FinishFlags } from "./after-change.js";
import { patchAndFinish } from "./change.js";
import { resolveIdFlags } from "./id-flags.js";
import { resolveDeployment } from "./resolve.js";

/** `deploy patch`'s options: what its flags parse to (the command checks that they match). */
export type PatchFlags = BodyFlags<"patch"> & MergeFlags & FinishFlags & { dryRun?: boolean };

/** A patch: deploy patch's flags, or `cpctl secrets`'s arguments (named so in messages). */
export type PatchInput = PatchFlags & Pick<BodyOptions, "secretNaming">;

export async function runPatch(ctx: Ctx, ref: string, input: PatchInput): Promise<void> {
  const current = await resolveDeployment(ctx, ref);
  await resolveIdFlags(ctx, input);
  const { built, change } = await patchRequest(input, ctx, current);
  const planned = planPatch(current, change);
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
