// One wait as the commands run it: pick the progress display, poll, and turn an
// unsuccessful verdict into the error that carries its exit code (5, 6 or 130).
import { getRevision, type LogSource } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { ApiError, InterruptedError, WaitFailedError, WaitTimeoutError } from "../errors.js";
import { BUILDABLE_SOURCES } from "../model/enums.js";
import type { LogEntry, RevisionT } from "../model/responses.js";
import { isMachineFormat } from "../output/format.js";
import { logLine } from "../output/log-lines.js";
import { joinLines, styled, visible, writeText } from "../output/safe-text.js";
import { formatDuration } from "../util/duration.js";
import {
  type AfterPoll,
  MAX_INTERVAL_MS,
  pollRevision,
  type WaitReporter,
  type WaitVerdict,
} from "../wait/poll.js";
import { createReporter } from "../wait/progress.js";
import { LogFollower, type LogReader, logReader, newestEntries } from "./logs.js";
import { suggestCommand } from "./suggest.js";

export interface WaitFlags {
  timeout: number;
  interval: number;
  /** Stream the revision's log to stderr while waiting. */
  logs?: boolean;
}

/** What a caller may follow of a wait besides its display: `deploy push -o ndjson` events. */
export interface WaitEvents {
  status(revisionId: string, status: string, elapsedMs: number): void;
  /** Each log entry streamed (with `logs`), before it is shown. */
  log(revisionId: string, entry: LogEntry): void;
}

/** How many lines of a failed revision's log a wait shows. */
const FAILURE_TAIL_LINES = 20;

export async function waitForRevision(
  ctx: Ctx,
  target: { deploymentId: string; revisionId: string },
  flags: WaitFlags,
  events?: WaitEvents,
): Promise<WaitVerdict> {
  const reporter = withEvents(await createReporter(ctx, target.revisionId), target.revisionId, events);
  const api = await ctx.api();
  const streamLogs = flags.logs
    ? logStreamer(ctx, await logReader(ctx), target, reporter, events)
    : undefined;
  return pollRevision(
    api,
    ctx.clock,
    ctx.signal,
    target,
    {
      timeoutMs: flags.timeout,
      intervalMs: flags.interval,
      maxIntervalMs: Math.max(MAX_INTERVAL_MS, flags.interval),
      requestTimeoutMs: ctx.requestTimeoutMs,
    },
    reporter,
    streamLogs,
  );
}

function withEvents(
  reporter: WaitReporter,
  revisionId: string,
  events: WaitEvents | undefined,
): WaitReporter {
  if (!events) return reporter;
  return {
    ...reporter,
    status: (status, elapsedMs) => {
      events.status(revisionId, status, elapsedMs);
      reporter.status(status, elapsedMs);
    },
  };
}

/**
 * `--logs`: after each poll, the log lines that came since the last one, to the reporter. A
 * built revision's build log (from AWAITING_BUILD on), any other's runtime log. A log that
 * cannot be read is said once and then left alone: the wait is what matters.
 */
function logStreamer(
  ctx: Ctx,
  reader: LogReader,
  target: WaitTarget,
  reporter: WaitReporter,
  events: WaitEvents | undefined,
): AfterPoll {
  let follower: LogFollower | undefined;
  let givenUp = false;
  return async (revision) => {
    if (givenUp) return;
    const source = logOf(target, revision);
    if (!source) return;
    follower ??= new LogFollower(reader, source);
    try {
      for (const entry of await follower.next()) {
        events?.log(target.revisionId, entry);
        reporter.log(entry);
      }
    } catch (error) {
      if (error instanceof InterruptedError) throw error;
      // Not there yet (a log appears with its stage): ask again after the next poll.
      if (error instanceof ApiError && error.status === 404) return;
      givenUp = true;
      ctx.log.warn(
        `cannot stream the revision's log (${(error as Error).message.split("\n")[0]}); still waiting`,
      );
    }
  };
}

interface WaitTarget {
  deploymentId: string;
  revisionId: string;
}

/** The log that tells what a revision is doing: its build log while built, its runtime log after. */
function logOf(target: WaitTarget, revision: RevisionT): LogSource | null {
  const built = BUILDABLE_SOURCES.includes(revision.source);
  if (built && BEFORE_BUILD.has(revision.status)) return null;
  return built && revision.status !== "DEPLOY_FAILED"
    ? { kind: "build", ...target }
    : { kind: "runtime", ...target };
}

const BEFORE_BUILD = new Set(["CREATING", "QUEUED"]);

/**
 * A failed revision: the last lines of the log that says why (build log, or the runtime log of
 * a revision that failed to deploy), on stderr before the error, or in the JSON error's
 * details; and the command that prints the whole log.
 */
async function explainFailure(ctx: Ctx, verdict: WaitVerdict, error: WaitFailedError): Promise<void> {
  error.failure = {
    stage: verdict.lastStage ?? verdict.status ?? "UNKNOWN",
    message: error.message,
    log_tail: [],
  };
  if (!["CREATE_FAILED", "BUILD_FAILED", "DEPLOY_FAILED"].includes(verdict.status ?? "")) return;
  const target = { deploymentId: verdict.deployment_id, revisionId: verdict.revision_id };
  try {
    const reader = await logReader(ctx);
    const revision = await getRevision(reader.api, target.deploymentId, target.revisionId);
    const source = logOf(target, revision) ?? { kind: "build" as const, ...target };
    const tail = await newestEntries(reader, source, {}, FAILURE_TAIL_LINES);
    error.logTail = tail;
    error.failure = {
      ...error.failure,
      message: failureMessage(tail) ?? error.failure.message,
      log_tail: tail,
    };
    const words = [
      "deploy",
      "logs",
      target.deploymentId,
      ...(source.kind === "build" ? ["--build"] : []),
      "--revision",
      target.revisionId,
    ];
    if (tail.length > 0) {
      const printer = await ctx.printer();
      if (isMachineFormat(printer.options.format)) error.details = { log: source.kind, tail };
      else {
        const name = source.kind === "build" ? "build log" : "log";
        const lines = tail.map((entry) => styled`  ${logLine(entry, ctx.paint)}`);
        writeText(
          ctx.io.stderr,
          styled`The last ${tail.length} lines of the ${name} of revision ${visible(target.revisionId)}:\n${joinLines(lines)}\n`,
        );
      }
    }
    error.withHint(`See the whole log with: ${await suggestCommand(ctx, words)}`);
  } catch (readError) {
    if (readError instanceof InterruptedError) throw readError;
    error.withHint(`(its log could not be read: ${(readError as Error).message.split("\n")[0]})`);
  }
}

/** The error that ended a failed revision's log: its last ERROR (or CRITICAL) line, else its last line. */
function failureMessage(tail: readonly LogEntry[]): string | null {
  const line =
    [...tail].reverse().find((entry) => /^(ERROR|CRITICAL)$/i.test(String(entry.level))) ?? tail.at(-1);
  return line ? String(line.message) : null;
}

/**
 * The command that resumes this wait, for the messages after Ctrl-C and time-outs: it reaches
 * the same deployment from another shell (see suggest.ts), never with a credential in it.
 */
function resumeCommand(ctx: Ctx, verdict: WaitVerdict): Promise<string> {
  return suggestCommand(ctx, ["deploy", "wait", verdict.deployment_id, "--revision", verdict.revision_id]);
}

/** Throws the error whose exit code tells the verdict; returns for "deployed". */
export async function assertDeployed(ctx: Ctx, verdict: WaitVerdict): Promise<void> {
  const revision = `revision ${verdict.revision_id}`;
  const after = formatDuration(verdict.elapsed_seconds * 1000);
  switch (verdict.result) {
    case "deployed":
      return;
    case "failed": {
      const failed = new WaitFailedError(
        verdict.endedBeforeWait
          ? `${revision} had already ended ${verdict.status}`
          : `${revision} ended ${verdict.status} after ${after}`,
      );
      await explainFailure(ctx, verdict, failed);
      throw failed.withHint(
        `See its history with: ${await suggestCommand(ctx, ["deploy", "revisions", verdict.deployment_id])}`,
      );
    }
    case "timed_out":
      throw new WaitTimeoutError(
        `timed out after ${after} waiting for ${revision} (last status: ${verdict.status ?? "unknown"})`,
      ).withHint(`Resume with: ${await resumeCommand(ctx, verdict)}`);
    case "interrupted":
      throw new InterruptedError(
        `interrupted while waiting for ${revision} (last status: ${verdict.status ?? "unknown"})`,
      ).withHint(`Resume with: ${await resumeCommand(ctx, verdict)}`);
  }
}
