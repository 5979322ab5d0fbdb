// `deploy patch`: the flags and file turned into a partial change (manifest/patch.ts), planned
// against the deployment as just read (model/plan.ts), then sent as every change is
// (change.ts). It changes only what is named (CLI.md "Changing part of a deployment").
import type { Ctx } from "../context.js";
import { type BodyOptions, rejectIssues } from "../manifest/build.js";
import { type MergeFlags, patchRequest } from "../manifest/patch.js";
import { planPatch } from "../model/plan.js";
import type { DeploymentT } from "../model/responses.js";
import type { FinishOptions } from "./after-change.js";
import { patchAndFinish } from "./change.js";
import { resolveIdFlags } from "./id-flags.js";
import { resolveDeployment } from "./resolve.js";

export interface PatchInput extends BodyOptions, MergeFlags, FinishOptions {
  dryRun?: boolean;
}

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
