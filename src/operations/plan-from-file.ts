// The shared first half of apply and diff: the file (and flags) as a valid create request,
// the deployment of that name if there is one, and the plan between them.
import type { Ctx } from "../context.js";
import { UsageError } from "../errors.js";
import { type BodyOptions, type BuiltBody, buildBody, rejectIssues } from "../manifest/build.js";
import { type ApplyPlan, type Opinions, planApply } from "../model/plan.js";
import type { DeploymentT } from "../model/responses.js";
import type { CreateRequest } from "../model/schemas.js";
import { validateCreateRequest } from "../model/validate.js";
import { deploymentsNamed } from "./resolve.js";

export interface FilePlan {
  desired: CreateRequest;
  current: DeploymentT | null;
  plan: ApplyPlan;
  opinions: Opinions;
  built: BuiltBody;
}

export async function planFromFile(ctx: Ctx, options: BodyOptions): Promise<FilePlan> {
  const built = await buildBody("create", options, ctx);
  const checked = validateCreateRequest(built.body);
  if (!checked.ok) return rejectIssues(built, checked.issues, `${built.file?.name ?? "the deployment"}`);
  const fileData = built.file?.data ?? {};
  const opinions: Opinions = {
    secrets: fileData.secrets !== undefined || Boolean(options.secret?.length || options.secretsFile),
    secretReferences: fileData.secret_references !== undefined || Boolean(options.secretRef?.length),
    clear: built.clears,
  };
  return planAgainstDeployment(ctx, checked.value, opinions, built);
}

/** The plan of `desired` against the deployment of its name as it is now (read again on each call). */
export async function planAgainstDeployment(
  ctx: Ctx,
  desired: CreateRequest,
  opinions: Opinions,
  /** The file and flags it came from, to say where to fix a problem. */
  built: BuiltBody,
): Promise<FilePlan> {
  const matches = await deploymentsNamed(ctx, desired.name);
  if (matches.length > 1) {
    throw new UsageError(
      `${matches.length} deployments are named '${desired.name}' (${matches.map((d) => d.id).join(", ")}); apply needs a unique name`,
    );
  }
  const current = matches[0] ?? null;
  const planned = planApply(desired, current, opinions);
  if (!planned.ok) return rejectIssues(built, planned.issues, built.file?.name ?? "the deployment");
  return { desired, opinions, built, current, plan: planned.plan };
}

/** The fixed fields a plan would have to change: apply refuses them, naming each. */
export function immutableChangesError(plan: ApplyPlan): UsageError | null {
  const fixed = plan.changes.filter((c) => c.immutable);
  if (fixed.length === 0) return null;
  return new UsageError(
    `these fields cannot be changed after creation, and the file differs from the deployment in them: ${fixed.map((c) => c.path).join(", ")}; change the file back, or create a new deployment under another name`,
    fixed.map((c) => ({
      loc: ["body", ...c.path.split(".")],
      msg: "cannot be changed after creation",
      type: "immutable",
    })),
  );
}
