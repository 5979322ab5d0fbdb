// Before `deploy push` or `deploy apply` creates a deployment: `--name Weather` beside an
// existing `weather` is more likely a slip than a second deployment. The rule is
// util/did-you-mean.ts's isNearMiss (case, or one character; never a difference only in
// digits: NAME-pr-1 and NAME-pr-2, agent-1 and agent-2). The tenant's names are read only on
// the way to a create, once the look-up by exact name found nothing: every page of the list
// (one request for up to 100 deployments), and none at all with --create.
import { allDeployments } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { OperationError, UsageError } from "../errors.js";
import { isNearMiss } from "../util/did-you-mean.js";
import { askYesNo } from "./confirm.js";

export interface NearMissOptions {
  /** --create: create the name as given; nothing is looked up. */
  create?: boolean;
  /** How to go to an existing deployment instead, for the messages: "pass --name weather to push to it". */
  useInstead: (existing: string) => string;
}

/**
 * Resolves when `name` may be created: no other deployment's name is a near miss of it,
 * --create was given, or the user said so on a terminal. Otherwise exit 2 (off a terminal) or
 * exit 1 (the user said no), nothing created.
 */
export async function guardNearMiss(ctx: Ctx, name: string, options: NearMissOptions): Promise<void> {
  if (options.create) return;
  const near = await nearNames(ctx, name);
  if (near.length === 0) return;
  const named = near.map((other) => `'${other}'`).join(", ");
  ctx.log.warn(
    near.length === 1
      ? `a deployment named ${named} exists; did you mean it?`
      : `deployments named ${named} exist; did you mean one of them?`,
  );
  const instead = options.useInstead(near[0]!);
  if (!ctx.interactive) {
    throw new UsageError(
      `not creating deployment '${name}': its name is a near miss of ${named}; ${instead}, or pass --create to create '${name}' anyway`,
    ).withHint(
      ctx.flags.input === false
        ? "--no-input was given, so cpctl will not ask."
        : "cpctl asks only when stdin and stdout are a terminal (and CI is not set).",
    );
  }
  if (await askYesNo(ctx, `Create a new deployment '${name}' anyway?`, false)) return;
  throw new OperationError("cancelled: nothing was created", "cancelled").withHint(
    `${instead.charAt(0).toUpperCase()}${instead.slice(1)}.`,
  );
}

/** The tenant's deployment names that are near misses of `name`, in list order. */
async function nearNames(ctx: Ctx, name: string): Promise<string[]> {
  const near: string[] = [];
  for await (const page of allDeployments(await ctx.api(), {}))
    for (const deployment of page) if (isNearMiss(name, deployment.name)) near.push(deployment.name);
  return [...new Set(near)];
}
