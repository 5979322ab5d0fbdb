// Before a command changes anything on the server. On a terminal, stderr names the profile and
// the host about to be changed. A profile with `confirm: true` (or a command that always asks,
// like delete) asks on a terminal, and requires --yes off one. The prompt library is loaded
// only when a question is actually asked.
import { requireSet } from "../config/settings.js";
import { displayUrl } from "../config/values.js";
import type { Ctx } from "../context.js";
import { OperationError, UsageError } from "../errors.js";
import { styled, visible, writeText } from "../output/safe-text.js";

/** Asks a yes/no question; resolves to the answer, rejects with InterruptedError on Ctrl-C. */
export type ConfirmPrompt = (ctx: Ctx, message: string) => Promise<boolean>;

interface GuardOptions {
  /** Ask even when the profile does not require confirmation (delete does). */
  always?: boolean;
  /** The question asker; tests inject one. Default: the terminal prompter of src/prompt, answering No unless told. */
  prompt?: ConfirmPrompt;
}

export const CANCELLED_MESSAGE = "cancelled: nothing was changed";

/**
 * Runs whose mutation was already confirmed. One command asks once: `upload --patch` asks
 * before uploading, and the patch that follows does not ask again. (Interactive create skips
 * its own question when the profile will ask here.)
 */
const confirmedRuns = new WeakSet<Ctx>();

/** Records that the user has confirmed this run's change (see confirmedRuns). */
function markConfirmed(ctx: Ctx): void {
  confirmedRuns.add(ctx);
}

/**
 * `action` says what will happen, e.g. "delete deployment my-agent". Resolves to true when a
 * question was asked and answered yes: the user took time, and the deployment may have been
 * changed by someone else meanwhile.
 */
export async function guardMutation(ctx: Ctx, action: string, options: GuardOptions = {}): Promise<boolean> {
  if (confirmedRuns.has(ctx)) return false;
  const settings = await ctx.settings();
  requireSet(settings, ["confirm"]);
  const target = `${settings.profile ? `profile ${settings.profile}` : "no profile"} (${settings.baseUrl ? displayUrl(settings.baseUrl) : "no address"})`;
  if (ctx.io.stderr.isTTY) writeText(ctx.io.stderr, styled`${ctx.paint.bold("→")} ${target}: ${action}\n`);

  const mustConfirm = settings.confirm || Boolean(options.always);
  if (!mustConfirm || ctx.flags.yes) {
    markConfirmed(ctx);
    return false;
  }

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
  const ask = options.prompt ?? terminalConfirm;
  // The question names what a server or a file called things: shown, never acted on.
  const yes = await ask(ctx, visible(`${capitalize(action)} on ${target}?`));
  if (!yes) throw new OperationError(CANCELLED_MESSAGE, "cancelled");
  markConfirmed(ctx);
  return true;
}

const terminalConfirm: ConfirmPrompt = (ctx, message) => askYesNo(ctx, message, false);

/**
 * A yes/no question on the terminal, through the shared terminal prompter (stderr when it is a
 * terminal, else stdout; plain under --no-color; Ctrl-C is InterruptedError); Enter answers
 * `defaultAnswer`. Captured streams with no real stream behind them (in-process tests that
 * claim a terminal) get the same prompt written through them. Only for an interactive run.
 */
export async function askYesNo(ctx: Ctx, message: string, defaultAnswer: boolean): Promise<boolean> {
  const out = ctx.io.stderr.isTTY ? ctx.io.stderr : ctx.io.stdout;
  const { terminalPrompter, promptError } = await import("../prompt/prompter.js");
  if (out.stream) return (await terminalPrompter(ctx)).confirm({ message, default: defaultAnswer });
  const [{ default: confirm }, { Writable }] = await Promise.all([
    import("@inquirer/confirm"),
    import("node:stream"),
  ]);
  const output = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      // The prompt library's own cursor moves show as escapes here: no terminal acts on them.
      writeText(out, chunk.toString());
      done();
    },
  });
  try {
    return await confirm(
      { message, default: defaultAnswer },
      { input: ctx.io.stdin.stream, output, signal: ctx.signal, clearPromptOnDone: false },
    );
  } catch (error) {
    throw promptError(error);
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
