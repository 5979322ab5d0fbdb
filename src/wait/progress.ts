// How a wait shows progress on stderr. Off a terminal: one timestamped line per status
// change and a heartbeat line every minute, never spinner frames. On a terminal: a spinner
// with the status and elapsed time (ora, loaded only then).
import type { Ctx } from "../context.js";
import { formatDuration } from "../util/duration.js";
import type { WaitReporter } from "./poll.js";

export async function createReporter(ctx: Ctx, revisionId: string): Promise<WaitReporter> {
  const stream = ctx.io.stderr.stream;
  if (ctx.io.stderr.isTTY && stream && ctx.env.TERM !== "dumb") return spinnerReporter(ctx, revisionId, stream);
  return lineReporter(ctx, revisionId);
}

export function lineReporter(ctx: Ctx, revisionId: string): WaitReporter {
  const say = (text: string) => ctx.io.stderr.write(`${new Date(ctx.clock.now()).toISOString()} revision ${revisionId}: ${text}\n`);
  return {
    status: (status, elapsedMs) => say(`${status} (${formatDuration(elapsedMs)})`),
    heartbeat: (status, elapsedMs) => say(`still ${status ?? "waiting"} after ${formatDuration(elapsedMs)}`),
    transient: (message, elapsedMs) => say(`poll failed, retrying (${formatDuration(elapsedMs)}): ${message.split("\n")[0]}`),
    stop: () => {},
  };
}

async function spinnerReporter(ctx: Ctx, revisionId: string, stream: NodeJS.WritableStream): Promise<WaitReporter> {
  const { default: ora } = await import("ora");
  const short = revisionId.slice(0, 8);
  const colour = ctx.flags.color !== false && ctx.env.NO_COLOR === undefined;
  const spinner = ora({ stream: stream as NodeJS.WriteStream, text: `revision ${short}: waiting`, color: colour ? "cyan" : false, isEnabled: true, discardStdin: false }).start();
  let status = "waiting";
  let elapsed = 0;
  const render = () => {
    spinner.text = `revision ${short}: ${status} (${formatDuration(elapsed)})`;
  };
  return {
    status: (next, elapsedMs) => {
      status = next;
      elapsed = elapsedMs;
      render();
    },
    heartbeat: (_status, elapsedMs) => {
      elapsed = elapsedMs;
      render();
    },
    transient: (message, elapsedMs) => {
      elapsed = elapsedMs;
      spinner.text = `revision ${short}: ${status} (${formatDuration(elapsed)}), retrying: ${message.split("\n")[0]}`;
    },
    stop: () => {
      spinner.stopAndPersist({ symbol: "•", text: `revision ${short}: ${status} (${formatDuration(elapsed)})` });
    },
  };
}
