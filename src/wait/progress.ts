// How a wait shows progress on stderr.
// - On a terminal (stderr a TTY of a known width, TERM not dumb, CI unset): an ora spinner
//   (loaded only then) with the revision status and the elapsed time, ticking every second,
//   and each streamed log line written whole above it (they stay on screen); when the wait
//   ends it leaves one line with the final status. Colour only where ctx.paint
//   allows it (never with NO_COLOR, --no-color or TERM=dumb, never off a terminal).
// - Anywhere else: one timestamped line per status change, and a heartbeat line after 60 s
//   without one (so CI jobs do not time out for silence); never spinner frames or colour.
//   A terminal that says it is 0 columns wide is "anywhere else": ora divides by the width, and
//   with 0 it cleared an endless number of lines in a synchronous loop that never let the
//   process see SIGTERM. A terminal resized to 0 while the spinner runs turns it into lines.

import { onGitHubActions, onGitLab } from "../ci/detect.js";
import { isTerminalRevisionStatus, REVISION_SUCCESS } from "../model/enums.js";
import type { LogEntry } from "../model/responses.js";
import { isCi } from "../output/format.js";
import { logLine } from "../output/log-lines.js";
import { styled, visible, writeText } from "../output/safe-text.js";
import { writeWorkflowCommand } from "../output/workflow-commands.js";
import type { RunContext } from "../run-context.js";
import { formatDuration } from "../util/duration.js";
import { HEARTBEAT_MS, type WaitReporter } from "./poll.js";

/** What showing a wait's progress uses of a run. */
export type ProgressContext = Pick<RunContext, "io" | "env" | "clock" | "paint">;

/**
 * A spinner on a terminal; anywhere else (a CI job that gives its steps a terminal included:
 * it keeps a log) lines and heartbeats, not spinner frames (ora's own rule too).
 */
export function showsSpinner(ctx: Pick<ProgressContext, "io" | "env">): boolean {
  return Boolean(
    ctx.io.stderr.isTTY &&
      hasWidth(ctx.io.stderr.columns) &&
      ctx.io.stderr.stream &&
      ctx.env.TERM !== "dumb" &&
      !isCi(ctx.env),
  );
}

/** A width a spinner can lay a frame out in (what ora divides by). */
function hasWidth(columns: number | undefined): boolean {
  return columns !== undefined && columns > 0;
}

export async function createReporter(ctx: ProgressContext, revisionId: string): Promise<WaitReporter> {
  const stream = ctx.io.stderr.stream;
  if (showsSpinner(ctx) && stream) return spinnerReporter(ctx, revisionId, stream);
  return folded(ctx, `Waiting for revision ${visible(revisionId)}`, lineReporter(ctx, revisionId));
}

/**
 * In a CI log, the wait's lines folded under one heading: a `::group::` on GitHub Actions, a
 * collapsed section on GitLab. Opened with the first line, closed when the wait ends.
 */
function folded(ctx: ProgressContext, title: string, reporter: WaitReporter): WaitReporter {
  const github = onGitHubActions(ctx.env);
  const gitlab = !github && onGitLab(ctx.env);
  if (!github && !gitlab) return reporter;
  const section = `cpctl_wait_${Math.floor(ctx.clock.now() / 1000)}`;
  let open = false;
  const opening =
    <A extends unknown[]>(speak: (...args: A) => void) =>
    (...args: A) => {
      if (!open) {
        open = true;
        if (github) writeWorkflowCommand(ctx.io.stderr, "group", title);
        else
          writeText(
            ctx.io.stderr,
            styled`\u001b[0Ksection_start:${Math.floor(ctx.clock.now() / 1000)}:${section}[collapsed=true]\r\u001b[0K${title}\n`,
          );
      }
      speak(...args);
    };
  return {
    status: opening(reporter.status),
    heartbeat: opening(reporter.heartbeat),
    transient: opening(reporter.transient),
    log: opening(reporter.log),
    stop: () => {
      reporter.stop();
      if (!open) return;
      open = false;
      if (github) writeWorkflowCommand(ctx.io.stderr, "endgroup", "");
      else
        writeText(
          ctx.io.stderr,
          styled`\u001b[0Ksection_end:${Math.floor(ctx.clock.now() / 1000)}:${section}\r\u001b[0K\n`,
        );
    },
  };
}

/**
 * Tracks the last status and elapsed time the poller told, so that time keeps moving between
 * polls (the spinner's ticking clock, the line reporter's own heartbeat).
 */
function tracker(ctx: ProgressContext) {
  let status: string | null = null;
  let elapsedMs = 0;
  let at = ctx.clock.now();
  return {
    seen(next: string | null, elapsed: number) {
      if (next !== null) status = visible(next);
      elapsedMs = elapsed;
      at = ctx.clock.now();
    },
    get status() {
      return status;
    },
    elapsed: () => elapsedMs + Math.max(0, ctx.clock.now() - at),
  };
}

interface LineReporterOptions {
  /**
   * Also write a heartbeat from a timer, 60 s after the last line, for when the poller is
   * asleep (failures grow its gaps to 60 s, or a Retry-After asks for more). It starts with the first
   * line, so nothing is left behind if the wait fails before it begins. Default true.
   */
  timer?: boolean;
}

export function lineReporter(
  ctx: ProgressContext,
  revisionId: string,
  options: LineReporterOptions = {},
): WaitReporter {
  const state = tracker(ctx);
  let lastLineAt = ctx.clock.now();
  let timer: NodeJS.Timeout | undefined;
  const say = (text: string) => {
    lastLineAt = ctx.clock.now();
    writeText(
      ctx.io.stderr,
      `${new Date(lastLineAt).toISOString()} revision ${visible(revisionId)}: ${text}\n`,
    );
    schedule();
  };
  const beat = () => say(`still ${state.status ?? "waiting"} after ${formatDuration(state.elapsed())}`);
  const schedule = () => {
    if (options.timer === false) return;
    clearTimeout(timer);
    // Real time, unref'd: it never keeps the process alive, and stop() clears it.
    timer = setTimeout(beat, HEARTBEAT_MS);
    timer.unref();
  };
  return {
    status: (status, elapsedMs, already) => {
      state.seen(status, elapsedMs);
      say(already ? `already ${visible(status)}` : `${visible(status)} (${formatDuration(elapsedMs)})`);
    },
    heartbeat: (status, elapsedMs) => {
      state.seen(status, elapsedMs);
      // The timer may have spoken already: at most one heartbeat a minute.
      if (ctx.clock.now() - lastLineAt >= HEARTBEAT_MS) beat();
    },
    transient: (message, elapsedMs) => {
      state.seen(null, elapsedMs);
      say(`poll failed, retrying (${formatDuration(elapsedMs)}): ${firstLine(message)}`);
    },
    log: (entry) => {
      // A log line is proof of life too: no heartbeat needed while the log moves.
      lastLineAt = ctx.clock.now();
      writeText(ctx.io.stderr, styled`  | ${logLine(entry, ctx.paint)}\n`);
      schedule();
    },
    stop: () => {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

async function spinnerReporter(
  ctx: ProgressContext,
  revisionId: string,
  stream: NodeJS.WritableStream,
): Promise<WaitReporter> {
  const { default: ora } = await import("ora");
  const short = visible(revisionId.slice(0, 8));
  const state = tracker(ctx);
  const paint = ctx.paint;
  let retrying: string | null = null;
  /** The first poll found it ended: nothing was waited for. */
  let already = false;
  // ora draws it: every piece of data in it escaped, the colours ours.
  const text = () =>
    styled`revision ${short}: ${state.status ?? "waiting"} ${paint.dim(formatDuration(state.elapsed()))}${retrying ? paint.dim(`, retrying: ${retrying}`) : ""}`
      .text;
  // Colour of the frames is ours to decide (ora's own detection looks at stdout), so none.
  const spinner = ora({
    stream: stream as NodeJS.WriteStream,
    text: text(),
    color: false,
    isEnabled: true,
    discardStdin: false,
  });
  let ticker: NodeJS.Timeout | undefined;
  /** Once the terminal has lost its width: the rest of the wait in lines. */
  let lines: WaitReporter | null = null;
  // Node sets the new width, then emits "resize", in one go: heard first, no frame is drawn
  // at width 0 (ora reads the width at every frame).
  const onResize = () => {
    if (lines || hasWidth((stream as NodeJS.WriteStream).columns)) return;
    clearInterval(ticker);
    ticker = undefined;
    // Clearing erases the lines counted at the last frame, drawn at a width that was known.
    if (spinner.isSpinning) spinner.stop();
    lines = lineReporter(ctx, revisionId);
    // The frame is gone: say where the wait stands, in the first of its lines.
    if (state.status !== null) lines.status(state.status, state.elapsed());
  };
  stream.prependListener("resize", onResize);
  // Started on the first news from the poller, so that nothing is left spinning if the wait
  // fails before it begins.
  const show = () => {
    spinner.text = text();
    if (spinner.isSpinning) return;
    spinner.start();
    ticker = setInterval(() => {
      spinner.text = text();
    }, 1000);
    ticker.unref();
  };
  return {
    status: (status, elapsedMs, seenEnded) => {
      if (lines) return lines.status(status, elapsedMs, seenEnded);
      state.seen(status, elapsedMs);
      already = Boolean(seenEnded);
      retrying = null;
      show();
    },
    heartbeat: (status, elapsedMs) => {
      if (lines) return lines.heartbeat(status, elapsedMs);
      state.seen(status, elapsedMs);
      show();
    },
    transient: (message, elapsedMs) => {
      if (lines) return lines.transient(message, elapsedMs);
      state.seen(null, elapsedMs);
      retrying = firstLine(message);
      show();
    },
    log: (entry: LogEntry) => {
      if (lines) return lines.log(entry);
      // Whole, above the spinner, to stay on screen: the frame is cleared, the line written,
      // the frame drawn again below it (the spinner keeps the stage and the time).
      if (spinner.isSpinning) spinner.clear();
      writeText(ctx.io.stderr, styled`  | ${logLine(entry, paint)}\n`);
      if (spinner.isSpinning) spinner.render();
      else show();
    },
    stop: () => {
      stream.removeListener("resize", onResize);
      if (lines) return lines.stop();
      clearInterval(ticker);
      ticker = undefined;
      const status = state.status;
      const symbol =
        status === REVISION_SUCCESS
          ? paint.green("✔").text
          : status && isTerminalRevisionStatus(status)
            ? paint.red("✖").text
            : "•";
      const final = already
        ? `revision ${short}: already ${status}`
        : `revision ${short}: ${status ?? "no status yet"} after ${formatDuration(state.elapsed())}`;
      if (spinner.isSpinning) spinner.stopAndPersist({ symbol, text: final });
    },
  };
}

function firstLine(message: string): string {
  return visible(message.split("\n")[0] ?? "");
}
