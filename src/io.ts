// The streams a command writes to and reads from. Commands never touch process.stdout or
// process.stdin directly, so tests run them in-process with captured streams that can
// pretend to be a terminal or not.
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
