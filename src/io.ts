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

/**
 * A file the user named (-f, --secrets-file, --api-key-file) as UTF-8 text; errors are Node's
 * (`code` ENOENT, EACCES, EISDIR...). A regular file is read at once: reading through the event
 * loop would start libuv's thread pool, about 1.5 ms of a short command. Anything else (a FIFO,
 * /dev/stdin, a device) is read through the event loop, so that Ctrl-C still interrupts a read
 * that waits for a writer.
 */
export async function readTextFile(path: string): Promise<string> {
  return statSync(path).isFile() ? readFileSync(path, "utf8") : readFile(path, "utf8");
}
