// The streams a command writes to and reads from. Commands never touch process.stdout or
// process.stdin directly, so tests run them in-process with captured streams that can
// pretend to be a terminal or not.
import { closeSync, createReadStream, openSync, readSync, statSync } from "node:fs";
import type { Readable } from "node:stream";
import { InterruptedError, UsageError } from "./errors.js";
import { formatBytes } from "./util/bytes.js";

export interface OutStream {
  write(text: string): void;
  readonly isTTY: boolean;
  /** Terminal width when known. */
  readonly columns?: number | undefined;
  /** The real stream behind it, when there is one (spinners draw on it). */
  readonly stream?: NodeJS.WritableStream;
}

export interface InStream {
  readonly isTTY: boolean;
  /** The underlying readable, for reading a file from stdin (`-f -`) and for prompts. */
  readonly stream: Readable;
}

export interface IO {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
}

/**
 * The most cpctl reads from a file or stdin a user names, so that `-f - < /dev/zero`, an
 * endless pipe or a multi-megabyte "key" ends at once with exit 2 instead of filling memory
 * (or a request header). Far above any real use: the API takes request bodies up to 1 MiB.
 */
export interface ReadLimit {
  maxBytes: number;
  /** What is read, for the message: "a deployment file". */
  what: string;
}

const MiB = 1024 * 1024;
export const DEPLOYMENT_FILE_LIMIT: ReadLimit = { maxBytes: 4 * MiB, what: "a deployment file" };
export const SECRETS_FILE_LIMIT: ReadLimit = { maxBytes: 4 * MiB, what: "a secrets file" };
export const KEY_FILE_LIMIT: ReadLimit = { maxBytes: 8 * 1024, what: "an API key file" };

interface ReadOptions {
  limit: ReadLimit;
  /** How the input is named in messages: "-f deploy.yaml", "--api-key-file - (stdin)". */
  label: string;
  /** Ctrl-C or SIGTERM: the read stops at once with InterruptedError. */
  signal?: AbortSignal | undefined;
}

/** The input is over its limit: exit 2, and nothing has been sent. */
export class InputTooLargeError extends UsageError {
  constructor({ limit, label }: ReadOptions) {
    super(
      `${label}: larger than ${formatBytes(limit.maxBytes)}, the most cpctl reads from ${limit.what}; nothing was sent`,
    );
  }
}

const READ_FAILURES: Record<string, string> = {
  ENOENT: "no such file",
  EISDIR: "it is a directory, not a file",
  EACCES: "permission denied",
  EPERM: "permission denied",
  ELOOP: "too many symbolic links",
  ENAMETOOLONG: "the path is too long",
};

/**
 * A file the user named could not be read: exit 2, in plain words (`-f /tmp: cannot read it (it
 * is a directory, not a file)`), with what to give instead when the caller says.
 */
export function unreadableFile(label: string, error: unknown, instead?: string): UsageError {
  if (error instanceof UsageError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const reason = (code && READ_FAILURES[code]) ?? code ?? (error as Error).message;
  return new UsageError(`${label}: cannot read it (${reason})${instead ? `; ${instead}` : ""}`);
}

/** Reads all of stdin as UTF-8 text, up to the limit. */
export async function readAll(input: InStream, options: ReadOptions): Promise<string> {
  return (await readBounded(input.stream, options)).toString("utf8");
}

/** Reads of FIFOs and devices not finished yet: src/cli.ts must not wait for them at exit. */
let waitingReads = 0;
export const readsWaiting = (): number => waitingReads;

/**
 * A file the user named (-f, --secrets-file, --api-key-file) as UTF-8 text, up to the limit;
 * other errors are Node's (`code` ENOENT, EACCES, EISDIR...). A regular file is read at once:
 * reading through the event loop would start libuv's thread pool, about 1.5 ms of a short
 * command. Anything else (a FIFO, `/dev/stdin` on a terminal, a device) may wait for a writer
 * for good, so it is read on the thread pool, which keeps the main thread free for Ctrl-C; such
 * a read is counted while it waits (see readsWaiting).
 */
export async function readTextFile(path: string, options: ReadOptions): Promise<string> {
  if (statSync(path).isFile()) return readRegularFile(path, options).toString("utf8");
  waitingReads++;
  const stream = createReadStream(path);
  // Counted until the file is closed, not until the read gives up: after Ctrl-C a read blocked
  // in a thread (a FIFO nobody writes to) still holds the process, and src/cli.ts must know.
  const closed = new Promise<void>((resolve) => stream.once("close", resolve)).then(() => {
    waitingReads--;
  });
  const data = await readBounded(stream, options);
  await closed;
  return data.toString("utf8");
}

/** Synchronously, a chunk at a time: a file that grows (or lies about its size) stops at the limit. */
function readRegularFile(path: string, options: ReadOptions): Buffer {
  const fd = openSync(path, "r");
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) return Buffer.concat(chunks, total);
      total += read;
      if (total > options.limit.maxBytes) throw new InputTooLargeError(options);
      chunks.push(chunk.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * All of a stream, up to the limit; stops (and destroys the stream, so that nothing keeps
 * the process alive) when the limit is passed or the signal aborts.
 */
function readBounded(stream: Readable, options: ReadOptions): Promise<Buffer> {
  const { signal } = options;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const finish = (error: Error | null) => {
      signal?.removeEventListener("abort", onAbort);
      stream.off("data", onData).off("end", onEnd).off("error", finish);
      if (error === null) return resolve(Buffer.concat(chunks, total));
      stream.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      total += bytes.length;
      if (total > options.limit.maxBytes) return finish(new InputTooLargeError(options));
      chunks.push(bytes);
    };
    const onEnd = () => finish(null);
    const onAbort = () => finish(new InterruptedError());
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort);
    stream.on("data", onData).on("end", onEnd).on("error", finish);
  });
}
