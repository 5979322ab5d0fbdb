// The revision-polling state machine (CLI.md "Waiting"). Pure of I/O but for the API client,
// the clock and the reporter it is given, so tests drive it with a fake clock.
import type { ApiClient } from "../api/client.js";
import { getRevision } from "../api/endpoints.js";
import type { Clock } from "../clock.js";
import { ApiError, InterruptedError, NetworkError } from "../errors.js";
import { isTerminalRevisionStatus, REVISION_SUCCESS } from "../model/enums.js";
import type { LogEntry, RevisionT } from "../model/responses.js";

export type WaitResult = "deployed" | "failed" | "timed_out" | "interrupted";

/** The JSON verdict of CLI.md. */
export interface WaitVerdict {
  deployment_id: string;
  revision_id: string;
  status: string | null;
  result: WaitResult;
  elapsed_seconds: number;
  /**
   * The revision had ended before the wait began (its first poll found it DEPLOYED or failed):
   * messages say "already", not "after 26ms". Not enumerable: not part of any output.
   */
  readonly endedBeforeWait?: boolean;
  /**
   * The last in-progress status the wait saw (BUILDING before BUILD_FAILED): the stage a failed
   * revision failed in. Not enumerable, as endedBeforeWait.
   */
  readonly lastStage?: string;
}

interface WaitSettings {
  timeoutMs: number;
  /**
   * Gap between polls, however long the wait has run: the end of a revision is noticed within
   * about one interval of it happening (CLI.md "Waiting").
   */
  intervalMs: number;
  /** While polls fail (network, 429, 5xx) the gap grows by BACKOFF_FACTOR up to this; a success resets it. */
  maxIntervalMs: number;
  /** Deadline of one poll (--request-timeout); the time left of timeoutMs bounds it too. */
  requestTimeoutMs?: number;
}

export interface WaitReporter {
  /** The revision's status changed (or was first seen; `already`: seen first as a final one). */
  status(status: string, elapsedMs: number, already?: boolean): void;
  /** No change for a while: proof of life for CI logs that time out on silence. */
  heartbeat(status: string | null, elapsedMs: number): void;
  /** A poll failed in a way worth retrying. */
  transient(message: string, elapsedMs: number): void;
  /** An entry of the revision's log (`--logs`). */
  log(entry: LogEntry): void;
  /** Called once when waiting ends, whatever the outcome. */
  stop(): void;
}

const BACKOFF_FACTOR = 1.5;
export const MAX_INTERVAL_MS = 60_000;
export const HEARTBEAT_MS = 60_000;

/** Runs after every poll that read the revision (the terminal one too), before the next sleep. */
export type AfterPoll = (revision: RevisionT) => Promise<void>;

export async function pollRevision(
  api: ApiClient,
  clock: Clock,
  signal: AbortSignal,
  target: { deploymentId: string; revisionId: string },
  settings: WaitSettings,
  reporter: WaitReporter,
  afterPoll?: AfterPoll,
): Promise<WaitVerdict> {
  const started = clock.now();
  const elapsed = () => clock.now() - started;
  let status: string | null = null;
  let lastStage: string | null = null;
  // The gap after the next failed poll: it grows while polls keep failing, never otherwise.
  let failureDelay = settings.intervalMs;
  let lastSaid = started;
  const verdict = (result: WaitResult): WaitVerdict => {
    const made = {
      deployment_id: target.deploymentId,
      revision_id: target.revisionId,
      status,
      result,
      elapsed_seconds: Math.round(elapsed() / 100) / 10,
    };
    return lastStage === null ? made : Object.defineProperty(made, "lastStage", { value: lastStage });
  };

  try {
    for (;;) {
      let serverDelayMs = 0;
      let delay = settings.intervalMs;
      try {
        const budget = Math.max(1, settings.timeoutMs - elapsed());
        const revision = await getRevision(api, target.deploymentId, target.revisionId, {
          // The wait's deadline bounds each poll too: a hung server cannot hold it past --timeout.
          timeoutMs: Math.min(budget, settings.requestTimeoutMs ?? budget),
          // This loop is the retry: it reports each failure, backs off and honours Retry-After.
          maxAttempts: 1,
        });
        const first = status === null;
        if (revision.status !== status) {
          status = revision.status;
          if (!isTerminalRevisionStatus(status)) lastStage = status;
          reporter.status(status, elapsed(), first && isTerminalRevisionStatus(status));
          lastSaid = clock.now();
        }
        await afterPoll?.(revision);
        if (isTerminalRevisionStatus(status)) {
          const ended = verdict(status === REVISION_SUCCESS ? "deployed" : "failed");
          return first ? Object.defineProperty(ended, "endedBeforeWait", { value: true }) : ended;
        }
        failureDelay = settings.intervalMs;
      } catch (error) {
        if (!isTransient(error)) throw error;
        delay = failureDelay;
        failureDelay = Math.round(Math.min(failureDelay * BACKOFF_FACTOR, settings.maxIntervalMs));
        serverDelayMs =
          error instanceof ApiError && error.retryAfterSeconds !== null ? error.retryAfterSeconds * 1000 : 0;
        reporter.transient(error.message, elapsed());
        lastSaid = clock.now();
      }

      const remaining = settings.timeoutMs - elapsed();
      if (remaining <= 0) return verdict("timed_out");
      if (clock.now() - lastSaid >= HEARTBEAT_MS) {
        reporter.heartbeat(status, elapsed());
        lastSaid = clock.now();
      }
      // Retry-After may ask for more than our own gap, never for more than the time left.
      await clock.sleep(Math.min(Math.max(delay, serverDelayMs), remaining), signal);
    }
  } catch (error) {
    if (error instanceof InterruptedError || signal.aborted) return verdict("interrupted");
    throw error;
  } finally {
    reporter.stop();
  }
}

/** Worth another poll: the network, rate limiting, and server-side failures. */
function isTransient(error: unknown): error is Error {
  if (error instanceof NetworkError) return true;
  return error instanceof ApiError && (error.status === 429 || error.status >= 500);
}
