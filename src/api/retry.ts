// Retries with exponential backoff and full jitter, honouring Retry-After.
//
// The one rule that matters: a request that may have changed something on the server is
// never sent twice. POST/PATCH are retried only when the failure proves the request never
// reached the server (connection refused, DNS failure, connect timeout). Everything that
// can be retried goes through the injected `sleep`, so tests never wait on the clock.
import { ApiError, InterruptedError, NetworkError } from "../errors.js";
import { formatDuration } from "../util/duration.js";
import { abortableSleep } from "../util/sleep.js";

export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error is thrown instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
};

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * A 2xx answer whose JSON body arrived cut short or garbled (the headers said JSON, the bytes
 * do not parse): the exchange failed in transit, not because --base-url points elsewhere. A
 * safe call may simply ask again; for an unsafe one the 2xx status says it was carried out.
 */
export class UnreadableBodyError extends NetworkError {
  constructor(
    message: string,
    /** The 2xx status the server answered with. */
    readonly httpStatus: number,
  ) {
    super(message, "bad_response", true);
  }
}

/**
 * A 2xx answer larger than cpctl reads (client.ts's limits): not read whole, and never asked
 * for again (it would be as large the next time). For a POST or PATCH the 2xx status says it
 * was carried out.
 */
export class ResponseTooLargeError extends NetworkError {
  override readonly code = "response_too_large";
  constructor(message: string) {
    super(message, "bad_response", true);
  }
}

/** Statuses that say "try again later" without the request having been acted upon. */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/** Methods that may be sent twice (RFC 9110 idempotent methods this CLI uses). */
export function isRetrySafeMethod(method: string): boolean {
  return ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].includes(method.toUpperCase());
}

export const defaultSleep: Sleep = abortableSleep;

/**
 * Seconds to wait from a Retry-After value: delta-seconds ("120") or an HTTP-date.
 * Returns null when absent or unparseable; never negative.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/** Full jitter: a random delay between 0 and min(max, base * 2^(failures - 1)). */
export function backoffDelayMs(failures: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failures - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Whether a failed request may still have been carried out: it may have reached the server
 * and its answer, if any, does not say it was refused. A 5xx says only that something went
 * wrong, perhaps after the work (a server that failed half-way, a proxy whose upstream went
 * away after taking the request); a 4xx, 429 included, says it was not done. The one rule for
 * the retry hints below, an uncertain change (operations/send-change.ts) and an uncertain create
 * (operations/create-guard.ts).
 */
export function mayHaveBeenApplied(error: unknown): boolean {
  if (error instanceof NetworkError) return error.mayHaveReachedServer;
  return error instanceof ApiError && error.status >= 500;
}

/** Whether this failure may be retried, given whether the request is safe to repeat. */
export function isRetryable(error: unknown, retrySafe: boolean): boolean {
  if (error instanceof NetworkError) {
    if (error.permanent) return false;
    if (error.kind === "bad_response") return retrySafe && error instanceof UnreadableBodyError;
    return retrySafe || !error.mayHaveReachedServer;
  }
  if (error instanceof ApiError) return retrySafe && RETRYABLE_STATUSES.has(error.status);
  return false;
}

interface RetryOptions {
  policy: RetryPolicy;
  retrySafe: boolean;
  sleep: Sleep;
  random: () => number;
  signal?: AbortSignal;
  /** "POST /v2/deployments", for hints. */
  describe: string;
  /**
   * The request's deadline (--request-timeout), which covers every attempt and the waits
   * between them: `total` in all, `left()` of it now. None: attempts are bounded by count only.
   */
  deadline?: { total: number; left: () => number };
  onRetry?: (info: { attempt: number; delayMs: number; error: Error }) => void;
}

/** Runs `operation` (given the 1-based attempt number) until it succeeds or must give up. */
export async function withRetry<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    if (options.signal?.aborted) throw new InterruptedError(`interrupted (${options.describe})`);
    try {
      return await operation(attempt);
    } catch (error) {
      const delayMs = nextDelay(error, attempt, options);
      if (delayMs === null) throw error;
      options.onRetry?.({ attempt, delayMs, error: error as Error });
      await options.sleep(delayMs, options.signal);
    }
  }
}

/** The delay before the next attempt, or null (after adding hints to the error) to give up. */
function nextDelay(error: unknown, attempt: number, options: RetryOptions): number | null {
  if (!(error instanceof ApiError || error instanceof NetworkError)) return null;
  if (!isRetryable(error, options.retrySafe)) {
    addNotRepeatedHint(error, options);
    return null;
  }
  if (attempt >= options.policy.maxAttempts) {
    if (attempt > 1) error.withHint(`gave up after ${attempt} attempts (${options.describe})`);
    return null;
  }
  const retryAfter = error instanceof ApiError ? error.retryAfterSeconds : null;
  if (retryAfter !== null && retryAfter * 1000 > options.policy.maxRetryAfterMs) {
    error.withHint(
      `the server asked to retry after ${retryAfter}s, longer than the ` +
        `${options.policy.maxRetryAfterMs / 1000}s this command waits; try again later ` +
        `(gave up after ${attempt} ${attempt === 1 ? "attempt" : "attempts"})`,
    );
    return null;
  }
  const delayMs =
    retryAfter === null ? backoffDelayMs(attempt, options.policy, options.random) : retryAfter * 1000;
  if (options.deadline && !fitsDeadline(delayMs, options.deadline)) {
    const total = formatDuration(options.deadline.total, { exact: true });
    if (retryAfter !== null)
      error.withHint(
        `the server asked to retry after ${retryAfter}s, more than is left of --request-timeout (${total}), ` +
          "which covers a request's retries and the waits between them; try again later, or raise --request-timeout",
      );
    else if (attempt > 1 || !(error instanceof NetworkError && error.kind === "timeout"))
      error.withHint(
        `gave up after ${attempt} ${attempt === 1 ? "attempt" : "attempts"} (${options.describe}): --request-timeout (${total}) covers a request's retries and the waits between them`,
      );
    return null;
  }
  return delayMs;
}

/**
 * Whether another attempt after `delayMs` still has time worth having: a quarter of the
 * request's deadline, or a second, whichever is less. A hung server spends the whole deadline
 * in one attempt, so a request gives up at --request-timeout, not at four times it.
 */
function fitsDeadline(delayMs: number, deadline: { total: number; left: () => number }): boolean {
  return deadline.left() - delayMs >= Math.min(1000, deadline.total / 4);
}

/** Explains why a failed POST/PATCH was not sent again, and what that means for the user. */
function addNotRepeatedHint(error: ApiError | NetworkError, options: RetryOptions): void {
  if (options.retrySafe) return;
  if (error instanceof UnreadableBodyError) {
    error.withHint(
      `${options.describe} was carried out (HTTP ${error.httpStatus}) but its answer arrived unreadable; ` +
        `it was not repeated: check the current state before running the command again`,
    );
  } else if (error instanceof NetworkError && error.kind === "bad_response") {
    // Its own message says what the answer was (too large: carried out; not the API's).
  } else if (mayHaveBeenApplied(error)) {
    error.withHint(
      `${options.describe} may have been applied by the server; it was not repeated automatically, ` +
        `so check the current state before running the command again`,
    );
  } else if (isRetryable(error, true)) {
    error.withHint(
      `${options.describe} was not repeated automatically because it is not safe to send twice; ` +
        `run the command again`,
    );
  }
}
