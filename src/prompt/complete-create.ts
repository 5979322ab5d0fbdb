// Fills in missing create values interactively. Filled in by the terminal-experience work.
import type { Ctx } from "../context.js";

export async function completeCreateBody(_ctx: Ctx, _body: Record<string, unknown>): Promise<void> {}
