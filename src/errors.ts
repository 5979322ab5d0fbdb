// Typed errors. Commands and libraries throw these; only src/main.ts turns them into a
// message, a JSON error object and an exit code (see exitCodeOf in src/exit-codes.ts). The
// model's refusal of a request body, with its issues, is model/validation-error.ts's.

export abstract class CliError extends Error {
  /** Stable machine-readable code used in `{"error":{"code",...}}`. */
  abstract readonly code: string;
  /** HTTP status when the error came from the API, otherwise null. */
  readonly status: number | null = null;
  /** Structured details for JSON output (validation issues, API body...). */
  details: unknown = null;
  /** Extra lines printed after the message on stderr (hints, commands to run). */
  hints: string[] = [];
  /** Nothing is printed: the exit code says it all (Ctrl-C at a prompt, `diff --exit-code`). */
  quiet = false;

  withHint(hint: string): this {
    this.hints.push(hint);
    return this;
  }
}

/** Bad flags, bad file, a rule broken client-side. Exit 2. */
export class UsageError extends CliError {
  readonly code: string = "usage";
  constructor(message: string, details: unknown = null) {
    super(message);
    this.details = details;
  }
}

/** The server answered with an error status. Exit code depends on the status. */
export class ApiError extends CliError {
  readonly code: string;
  override readonly status: number;
  constructor(
    status: number,
    message: string,
    readonly body: unknown,
    readonly method: string,
    readonly path: string,
    /** Seconds from a Retry-After header, when the server sent one. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.status = status;
    this.code = apiErrorCode(status);
    // A body that is not JSON (an HTML page from a proxy) is no detail worth printing.
    this.details = typeof body === "string" ? null : body;
  }
}

function apiErrorCode(status: number): string {
  if (status === 400 || status === 422) return "invalid_request";
  if (status === 401) return "unauthenticated";
  if (status === 403) return "forbidden";
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  if (status === 413) return "payload_too_large";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "server_error";
  return "api_error";
}

/** The server could not be reached, or the connection failed before a full answer. Exit 1. */
export class NetworkError extends CliError {
  readonly code: string;
  /**
   * Asking again cannot help (a certificate not trusted, a proxy that refuses or wants
   * credentials): never retried, whatever the method.
   */
  readonly permanent: boolean;
  constructor(
    message: string,
    /** "unreachable" | "timeout" | "connection_reset" | "bad_response" */
    readonly kind: "unreachable" | "timeout" | "connection_reset" | "bad_response",
    /** True when the request may have reached the server (so a create might have happened). */
    readonly mayHaveReachedServer: boolean,
    options: { permanent?: boolean } = {},
  ) {
    super(message);
    this.code = kind === "timeout" ? "timeout" : "network";
    this.permanent = options.permanent ?? false;
  }
}

/** No deployment by that name (or ID) exists. Exit 4. */
export class NotFoundError extends CliError {
  readonly code = "not_found";
}

/** A log entry as an error carries it (the end of a failed revision's log). */
export interface LoggedLine {
  id: string;
  timestamp: number | string;
  level: string;
  message: string;
}

/** Why a revision failed, as a command's result on stdout says it. */
export interface FailureDetail {
  /** The stage it failed in (BUILDING), or its final status when no stage was seen. */
  stage: string;
  /** The error that ended its log (its last ERROR line, or its last line), masked. */
  message: string;
  /** The end of its log, masked. */
  log_tail: LoggedLine[];
}

/** The revision ended unsuccessfully. Exit 5. */
export class WaitFailedError extends CliError {
  readonly code = "wait_failed";
  /** The end of the revision's log, when it could be read (for CI summaries). */
  logTail: LoggedLine[] = [];
  /** Why it failed, for the result on stdout. */
  failure: FailureDetail | null = null;
}

/** The wait ran out of time. Exit 6. */
export class WaitTimeoutError extends CliError {
  readonly code = "wait_timeout";
}

/**
 * The revision deployed, but its address did not pass the check (`--verify`), or `deploy
 * status --check` found it unhealthy. Exit 7.
 */
export class UnverifiedError extends CliError {
  readonly code = "unverified";
}

/** The user pressed Ctrl-C (or answered a prompt with it). Exit 130. */
export class InterruptedError extends CliError {
  readonly code = "interrupted";
  constructor(message = "interrupted", options: { quiet?: boolean } = {}) {
    super(message);
    this.quiet = options.quiet ?? false;
  }
}

/** Anything else that is the CLI's own failure to do what was asked. Exit 1. */
export class OperationError extends CliError {
  readonly code: string;
  constructor(message: string, code = "failed") {
    super(message);
    this.code = code;
  }
}

/**
 * Not a failure to report: the command's answer is its exit code (`diff --exit-code` exits 1
 * when there are differences, as git does). Nothing is printed for it.
 */
export class ExitSignal extends CliError {
  readonly code = "exit";
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
    this.quiet = true;
  }
}
