// Before a command changes anything on the server. Filled in by the profiles work: a profile
// with `confirm: true` asks on a terminal or requires --yes.
import type { Ctx } from "../context.js";

export interface GuardOptions {
  /** Ask even when the profile does not require confirmation (delete does). */
  always?: boolean;
}

/** `action` says what will happen, e.g. "delete deployment my-agent". */
export async function guardMutation(_ctx: Ctx, _action: string, _options: GuardOptions = {}): Promise<void> {}
