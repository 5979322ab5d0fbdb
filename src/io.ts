// The streams a command writes to and reads from. Commands never touch process.stdout or
// process.stdin directly, so tests run them in-process with captured streams that can
// pretend to be a terminal or not.
import {
  closeSync,
  createReadStream,
  constants as fsConstants,
  fstatSync,
  openSync,
  readSync,
  type Stats,
  statSync,
} from "node:fs";
import type { Readable } from "node:stream";
import { InterruptedError, UsageError } from "./errors.js";
import { formatBytes } from "./util/bytes.js";

/** The environment variables of a run (process.env, or a test's). */
export type Env = Readonly<Record<string, string | undefined>>;

export interface OutStream {
  write(text: string): void;
  readonly isTTY: boolean;
  /** Terminal width when known: a positive number, undefined otherwise (a terminal saying 0 included). */
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
  /**
   * The terminal job this process is, where the system tells (Linux): a background job
   * (`cpctl emulator &`) is not reached by Ctrl-C, which goes to the shell. Undefined without
   * a controlling terminal, or where it cannot be known.
   */
  readonly job?: TerminalJob | undefined;
}

export interface TerminalJob {
  readonly background: boolean;
  readonly pid: number;
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

/** Reads of devices not finished yet: src/cli.ts must not wait for them at exit. */
let waitingReads = 0;
export const readsWaiting = (): number => waitingReads;

/**
 * open(2) flags for a file whose kind is not known yet: a FIFO opened without O_NONBLOCK waits
 * for a writer inside open(), in a thread nothing can stop (not Ctrl-C, not process.exit); a
 * terminal must not become the controlling one. Neither flag changes how a regular file reads.
 */
const OPEN_WITHOUT_WAITING =
  fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOCTTY ?? 0);

/**
 * A file the user named (-f, --secrets-file, --api-key-file) as UTF-8 text, up to the limit;
 * other errors are Node's (`code` ENOENT, EACCES, EISDIR...). Opened without waiting, then:
 * - a regular file is read at once (reading through the event loop would start libuv's
 *   thread pool, about 1.5 ms of a short command);
 * - a FIFO or a pipe (`-f <(...)`, `-f /dev/stdin` in a pipeline) and a terminal are read
 *   through the event loop (libuv polls them): nothing waits in a thread, so Ctrl-C and
 *   SIGTERM end the read at once and the process exits as after any interruption (130);
 * - any other device (/dev/zero, /dev/urandom) on the thread pool, stopped at the limit, and
 *   counted while it reads (see readsWaiting).
 */
export async function readTextFile(path: string, options: ReadOptions): Promise<string> {
  const fd = openSync(path, OPEN_WITHOUT_WAITING);
  let info: Stats;
  try {
    info = fstatSync(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (info.isFile() || info.isDirectory()) {
    try {
      if (info.isDirectory()) throw Object.assign(new Error(`EISDIR: ${path}`), { code: "EISDIR" });
      return readWhole(fd, options).toString("utf8");
    } finally {
      closeSync(fd);
    }
  }
  const tty = process.getBuiltinModule("node:tty");
  if (info.isFIFO() || info.isSocket() || tty.isatty(fd)) {
    // libuv polls these (and sets O_NONBLOCK itself); the stream owns the descriptor.
    const stream = tty.isatty(fd)
      ? new tty.ReadStream(fd)
      : new (process.getBuiltinModule("node:net").Socket)({ fd, readable: true, writable: false });
    try {
      return (await readBounded(stream, options)).toString("utf8");
    } finally {
      stream.destroy();
    }
  }
  waitingReads++;
  const stream = createReadStream("", { fd });
  // Counted until the file is closed, not until the read gives up: after Ctrl-C a read blocked
  // in a thread still holds the process, and src/cli.ts must know.
  const closed = new Promise<void>((resolve) => stream.once("close", resolve)).then(() => {
    waitingReads--;
  });
  const data = await readBounded(stream, options);
  await closed;
  return data.toString("utf8");
}

/** Why a file is not read: it is not a regular file (`code` ENOTREG), and what it is instead. */
export class NotRegularFileError extends Error {
  readonly code = "ENOTREG";
  constructor(
    readonly path: string,
    /** "a FIFO", "a device", "a socket", "a directory". */
    readonly kind: string,
  ) {
    super(`${path}: not a regular file (${kind})`);
  }
}

/** Why a file is not read: it is larger than the caller reads (`code` EFBIG). */
export class FileTooLargeError extends Error {
  readonly code = "EFBIG";
  constructor(
    readonly path: string,
    readonly size: number,
  ) {
    super(`${path}: ${size} bytes`);
  }
}

/**
 * A file cpctl finds by itself (a config file, the "cpctl" field of a package.json):
 * only a regular file, at most `maxBytes`, read at once. A FIFO, a device or a socket is never
 * read (NotRegularFileError), even behind a symbolic link: git stores links, so a clone can
 * ship `package.json -> /dev/zero`. It is opened without waiting, and checked again once open.
 * Other errors are Node's (ENOENT, EACCES, ...).
 */
export function readRegularFile(path: string, maxBytes: number): Buffer {
  refuseIrregular(path, statSync(path));
  const fd = openSync(path, OPEN_WITHOUT_WAITING);
  try {
    const info = fstatSync(fd);
    refuseIrregular(path, info);
    if (info.size > maxBytes) throw new FileTooLargeError(path, info.size);
    return readWhole(fd, { limit: { maxBytes, what: "" }, label: path }, () => {
      throw new FileTooLargeError(path, maxBytes + 1);
    });
  } finally {
    closeSync(fd);
  }
}

function refuseIrregular(path: string, info: Stats): void {
  if (info.isFile()) return;
  const kind = info.isFIFO()
    ? "a FIFO"
    : info.isSocket()
      ? "a socket"
      : info.isDirectory()
        ? "a directory"
        : info.isCharacterDevice() || info.isBlockDevice()
          ? "a device"
          : "not a file";
  throw new NotRegularFileError(path, kind);
}

/** Synchronously, a chunk at a time: a file that grows (or lies about its size) stops at the limit. */
function readWhole(
  fd: number,
  options: ReadOptions,
  tooLarge = (): never => {
    throw new InputTooLargeError(options);
  },
): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(64 * 1024);
    const read = readSync(fd, chunk, 0, chunk.length, null);
    if (read === 0) return Buffer.concat(chunks, total);
    total += read;
    if (total > options.limit.maxBytes) tooLarge();
    chunks.push(chunk.subarray(0, read));
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
