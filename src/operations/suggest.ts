// The cpctl commands that messages tell the user to run next (resume a wait, look at the state
// after an uncertain change). Each carries what is needed to reach the same control plane
// and tenant from another shell: --profile, and --base-url and --tenant-id when they came
// from a flag, the environment or a project file (a profile brings its own). Never a
// credential: those come from the profile or the environment, as they did here.
import { displayUrl } from "../config/values.js";
import type { Ctx } from "../context.js";
import { shellQuote } from "../util/shell.js";

const PORTABLE_ORIGINS = new Set(["flag", "env", "project"]);

/** `cpctl <words> [--profile P] [--base-url U] [--tenant-id T]`, quoted for a POSIX shell. */
export async function suggestCommand(ctx: Ctx, words: readonly string[]): Promise<string> {
  const settings = await ctx.settings().catch(() => null);
  const extra: string[] = [];
  if (settings?.profile) extra.push("--profile", settings.profile);
  if (settings?.baseUrl && PORTABLE_ORIGINS.has(settings.originKind.baseUrl ?? ""))
    extra.push("--base-url", displayUrl(settings.baseUrl));
  if (settings?.tenantId && PORTABLE_ORIGINS.has(settings.originKind.tenantId ?? ""))
    extra.push("--tenant-id", settings.tenantId);
  return ["cpctl", ...words, ...extra].map(shellQuote).join(" ");
}

/** The command that shows a deployment's current state. */
export function stateCommand(ctx: Ctx, deploymentId: string): Promise<string> {
  return suggestCommand(ctx, ["deploy", "get", deploymentId]);
}
