// The change preview of a run, kept for the CI summary ("what changed"). Its own module, with
// no imports, because every preview records it, a dry run's included.
import type { Ctx } from "../context.js";
import type { Change } from "../model/changes.js";

const previews = new WeakMap<Ctx, readonly Change[]>();

export function rememberChanges(ctx: Ctx, changes: readonly Change[]): void {
  previews.set(ctx, changes);
}

export function rememberedChanges(ctx: Ctx): readonly Change[] | undefined {
  return previews.get(ctx);
}
