// A change (PATCH, DELETE, redeploy) that failed in a way that may still have reached the
// server: Ctrl-C while it was in flight, an answer lost or cut short, any 5xx (a server that
// failed half-way, a proxy whose upstream went away after taking it). cpctl never repeats such a request by itself; it says
// that the change may have been applied and gives the command that shows the state.
// (An ambiguous create has its own, stronger answer: create-guard.ts looks the name up.)
import { mayHaveBeenApplied } from "../api/retry.js";
import { RequestInterruptedError } from "../api/transport.js";
import type { Ctx } from "../context.js";
import { type ApiError, InterruptedError, type NetworkError } from "../errors.js";
import { stateCommand, suggestCommand } from "./suggest.js";

interface ChangeCall {
  /** "patch", "delete", "redeploy": as the messages name it. */
  what: string;
  /** The deployment changed: `deploy get` shows its state. */
  deploymentId?: string;
  /** Or the words of another command that shows the state (`listeners get ID`). */
  look?: readonly string[];
  /** The API layer retries this call (DELETE): an earlier attempt may have arrived. */
  retried?: boolean;
}

/** Runs `send`; an uncertain failure comes back saying so, with the command to look. */
export async function sendChange<T>(ctx: Ctx, call: ChangeCall, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof InterruptedError && !mayHaveApplied(error, call)) {
      throw new InterruptedError(`interrupted before the ${call.what} was sent: nothing was changed`);
    }
    if (!mayHaveApplied(error, call)) throw error;
    const command = call.look
      ? await suggestCommand(ctx, call.look)
      : await stateCommand(ctx, call.deploymentId ?? "");
    const look = `See the ${call.look ? "current state" : "deployment's current state"} with: ${command}`;
    if (error instanceof InterruptedError) {
      throw new InterruptedError(
        `interrupted while the ${call.what} was in flight: it may have been applied, or not`,
      ).withHint(look);
    }
    throw (error as NetworkError | ApiError).withHint(look);
  }
}

function mayHaveApplied(error: unknown, call: ChangeCall): boolean {
  // The transport knows whether the request had left when Ctrl-C cut it. Any other
  // interruption came between attempts: before the first for a call that is never retried
  // once it may have arrived (PATCH, redeploy), possibly after one for a retried call.
  if (error instanceof RequestInterruptedError) return error.mayHaveReachedServer;
  if (error instanceof InterruptedError) return Boolean(call.retried);
  return mayHaveBeenApplied(error);
}
