// The streams a command writes to and reads from. Commands never touch process.stdout or
// process.stdin directly, so tests run them in-process with captured streams that can
// pretend to be a terminal or not.
import { readFileSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";

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

/** Reads all of stdin as UTF-8 text. */
export async function readAll(input: InStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input.stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** Reads of FIFOs and devices not finished yet: src/cli.ts must not wait for them at exit. */
let waitingReads = 0;
export const readsWaiting = (): number => waitingReads;

/**
 * A file the user named (-f, --secrets-file, --api-key-file) as UTF-8 text; errors are Node's
 * (`code` ENOENT, EACCES, EISDIR...). A regular file is read at once: reading through the event
 * loop would start libuv's thread pool, about 1.5 ms of a short command. Anything else (a FIFO,
 * `/dev/stdin` on a terminal, a device) may wait for a writer for good, so it is read on the
 * thread pool, which keeps the main thread free for Ctrl-C; such a read is counted while it
 * waits (see readsWaiting).
 */
export async function readTextFile(path: string): Promise<string> {
  if (statSync(path).isFile()) return readFileSync(path, "utf8");
  waitingReads++;
  try {
    return await readFile(path, "utf8");
  } finally {
    waitingReads--;
  }
}
