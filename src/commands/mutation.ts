// Before a command changes anything on the server. On a terminal, stderr names the profile and
// the host about to be changed. A profile with `confirm: true` (or a command that always asks,
// like delete) asks on a terminal, and requires --yes off one. The prompt library is loaded
// only when a question is actually asked.
import { displayUrl } from "../config/values.js";
import type { Ctx } from "../context.js";
import { InterruptedError, OperationError, UsageError } from "../errors.js";

/** Asks a yes/no question; resolves to the answer, rejects with InterruptedError on Ctrl-C. */
export type ConfirmPrompt = (ctx: Ctx, message: string) => Promise<boolean>;

export interface GuardOptions {
  /** Ask even when the profile does not require confirmation (delete does). */
  always?: boolean;
  /** The question asker; tests inject one. Default: @inquirer/prompts' confirm, answer No by default. */
  prompt?: ConfirmPrompt;
}

export const CANCELLED_MESSAGE = "cancelled: nothing was changed";

/** `action` says what will happen, e.g. "delete deployment my-agent". */
export async function guardMutation(ctx: Ctx, action: string, options: GuardOptions = {}): Promise<void> {
  const settings = await ctx.settings();
  const target = `${settings.profile ? `profile ${settings.profile}` : "no profile"} (${settings.baseUrl ? displayUrl(settings.baseUrl) : "no address"})`;
  if (ctx.io.stderr.isTTY) ctx.io.stderr.write(`${ctx.paint.bold("→")} ${target}: ${action}\n`);

  const mustConfirm = settings.confirm || Boolean(options.always);
  if (!mustConfirm || ctx.flags.yes) return;

  const why = settings.confirm
    ? `profile ${settings.profile ?? "in use"} requires confirmation (confirm: true${settings.origin.confirm ? ` in ${settings.origin.confirm}` : ""})`
    : `${action.split(" ")[0]} asks for confirmation`;
  if (!ctx.interactive) {
    throw new UsageError(`${why}: pass --yes to ${action} without a prompt`).withHint(
      ctx.flags.input === false
        ? "--no-input was given, so cpctl will not ask."
        : "cpctl asks only when stdin and stdout are a terminal (and CI is not set).",
    );
  }
  const ask = options.prompt ?? inquirerConfirm;
  const yes = await ask(ctx, `${capitalize(action)} on ${target}?`);
  if (!yes) throw new OperationError(CANCELLED_MESSAGE, "cancelled");
}

/** The prompt goes to stderr when it is a terminal (stdout stays clean), else to stdout; Ctrl-C is InterruptedError. */
const inquirerConfirm: ConfirmPrompt = async (ctx, message) => {
  const [{ confirm }, { Writable }] = await Promise.all([import("@inquirer/prompts"), import("node:stream")]);
  const out = ctx.io.stderr.isTTY ? ctx.io.stderr : ctx.io.stdout;
  // Captured streams (tests) have no real stream behind them: write through theirs.
  const output =
    out.stream ??
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        out.write(chunk.toString());
        done();
      },
    });
  try {
    return await confirm(
      { message, default: false },
      { input: ctx.io.stdin.stream, output, signal: ctx.signal, clearPromptOnDone: false },
    );
  } catch (error) {
    const name = (error as Error | null)?.name;
    if (name === "ExitPromptError" || name === "AbortPromptError" || ctx.signal.aborted) {
      throw new InterruptedError(`interrupted: ${CANCELLED_MESSAGE.replace("cancelled: ", "")}`);
    }
    throw error;
  }
};

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
