// The one mapping from errors to the exit codes of CLI.md.
import {
  ApiError,
  ExitSignal,
  InterruptedError,
  NotFoundError,
  UnverifiedError,
  UsageError,
  WaitFailedError,
  WaitTimeoutError,
} from "./errors.js";

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  revisionFailed: 5,
  waitTimedOut: 6,
  unverified: 7,
  interrupted: 130,
} as const;

export function exitCodeOf(error: unknown): number {
  if (error instanceof ExitSignal) return error.exitCode;
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof NotFoundError) return EXIT.notFound;
  if (error instanceof WaitFailedError) return EXIT.revisionFailed;
  if (error instanceof WaitTimeoutError) return EXIT.waitTimedOut;
  if (error instanceof UnverifiedError) return EXIT.unverified;
  if (error instanceof InterruptedError) return EXIT.interrupted;
  if (error instanceof ApiError) return exitCodeOfStatus(error.status);
  return EXIT.failure;
}

function exitCodeOfStatus(status: number): number {
  if (status === 400 || status === 422 || status === 413) return EXIT.usage;
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  return EXIT.failure;
}
