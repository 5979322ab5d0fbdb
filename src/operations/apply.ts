// `deploy apply -f FILE`: create the deployment the file describes when none has its name,
// otherwise send the smallest patch that makes it match the file (or nothing).
import type { Ctx } from "../context.js";
import { ApiError } from "../errors.js";
import type { BodyFlags } from "../manifest/build.js";
import { type FinishFlags, finishChange } from "./after-change.js";
import { patchAndFinish } from "./change.js";
import { createWithPreview } from "./create.js";
import { guardNearMiss } from "./near-miss.js";
import {
  type FilePlan,
  immutableChangesError,
  planAgainstDeployment,
  planFromFile,
} from "./plan-from-file.js";

/** `deploy apply`'s options: what its flags parse to (the command checks that they match). */
export type ApplyInput = BodyFlags<"create"> &
  FinishFlags & {
    dryRun?: boolean;
    /** Create the file's deployment even when another's name is a near miss of it (near-miss.ts). */
    create?: boolean;
  };

export async function runApply(ctx: Ctx, input: ApplyInput): Promise<void> {
  const planned = await planFromFile(ctx, input);
  if (planned.current) return applyToExisting(ctx, planned, input);
  await guardNearMiss(ctx, planned.desired.name, {
    create: input.create,
    useInstead: (existing) =>
      input.name !== undefined
        ? `pass --name ${existing} to apply the file to it`
        : `write name: ${existing} in ${input.file === "-" ? "the file" : input.file} to apply it there`,
  });
  ctx.log.info(
    `no deployment is named ${JSON.stringify(planned.desired.name)}: ${input.dryRun ? "would create" : "creating"} it`,
  );
  try {
    await createWithPreview(ctx, planned.desired, input, planned.plan.changes);
  } catch (error) {
    // Two applies of a new deployment race: the loser's create is refused (names are
    // unique). The winner's deployment is what the file is applied to now.
    if (!(error instanceof ApiError && error.status === 409)) throw error;
    ctx.log.info(`deployment ${planned.desired.name} was created meanwhile (HTTP 409): patching it instead`);
    const again = await planAgainstDeployment(ctx, planned.desired, planned.opinions, planned.built);
    if (!again.current) throw error;
    await applyToExisting(ctx, again, input);
  }
}

async function applyToExisting(ctx: Ctx, { current, plan }: FilePlan, input: ApplyInput): Promise<void> {
  if (!current) return;
  const refused = immutableChangesError(plan);
  if (refused) throw refused;
  if (!plan.patch) {
    ctx.log.info(`deployment ${current.name} already matches the file: nothing to do`);
    if (!input.dryRun)
      await finishChange(ctx, { deployment: current, kind: "unchanged", changes: [] }, input);
    return;
  }
  await patchAndFinish(ctx, current, plan.patch, input);
}
