// Reading request bodies without trusting them: a size cap enforced while reading (never
// buffer more than the cap), and JSON parsing that turns every way a body can be wrong into
// a 400 or 422, never a 500.
import type { IncomingMessage } from "node:http";
import { HttpError } from "./responses.js";

/** Deeper JSON than this is refused: serialising it back would overflow the stack. */
export const MAX_JSON_DEPTH = 64;

/**
 * What is read and thrown away of a body already refused as too large, before the 413 goes
 * out. A server that answers and closes while the client is still sending has its system
 * reset the connection when more bytes arrive, and the client's system then drops the 413 it
 * had received: the client sees a reset, not the answer (cpctl said "network error" for 13 of
 * 20 bodies of 4 MB). So the rest is drained first, as a lingering close does. Bounded: past
 * this many bytes, or this long, the 413 goes and the connection closes anyway.
 */
const DRAIN_BYTES = 64 * 1024 * 1024;
const DRAIN_MS = 10_000;

/**
 * The whole body, or a 413 as soon as it is known to be over `limit` bytes: from the
 * Content-Length header before keeping anything, or while reading a chunked body. Nothing past
 * the limit is kept; the rest is drained (up to DRAIN_BYTES) before the 413, which closes the
 * connection.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = () =>
    new HttpError(413, `Request body is too large: the limit is ${limit} bytes.`, { Connection: "close" });
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return drainThen(request, tooLarge());
  // Gone before we started to read: no event would ever come.
  if (request.destroyed && !request.readableEnded) return Promise.reject(clientGone());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        chunks.length = 0;
        drainThen(request, tooLarge()).catch(reject);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    // The client went away before the end of its body ("aborted", ECONNRESET, or a close
    // without an end): its doing, not a fault of the emulator's, so a 4xx like any other
    // bad request, never an internal error.
    const onGone = () => {
      cleanup();
      reject(clientGone());
    };
    const cleanup = () => {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onGone);
      request.off("close", onGone);
    };
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", onGone);
    request.on("close", onGone);
  });
}

/** Reads the rest of the body into nothing (bounded), then rejects with `error`. */
function drainThen(request: IncomingMessage, error: HttpError): Promise<never> {
  return new Promise((_resolve, reject) => {
    let drained = 0;
    const done = () => {
      clearTimeout(timer);
      request.off("data", onData).off("end", done).off("error", done).off("close", done);
      request.pause();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > DRAIN_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_MS);
    if (request.readableEnded || request.destroyed) return done();
    request.on("data", onData).on("end", done).on("error", done).on("close", done);
    request.resume();
  });
}

function clientGone(): HttpError {
  return new HttpError(400, "The client closed the connection before sending the whole request body.", {
    Connection: "close",
  });
}

/**
 * Parses a JSON request body. Empty: `undefined`, so that validation reports the body as
 * missing (422), as the service does. Not JSON: 400. Nested deeper than MAX_JSON_DEPTH: 400.
 */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  const depth = jsonDepth(body);
  if (depth > MAX_JSON_DEPTH) {
    throw new HttpError(
      400,
      `Request body is nested too deeply: more than ${MAX_JSON_DEPTH} levels of arrays and objects.`,
    );
  }
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (error) {
    throw new HttpError(400, `Request body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * Deepest nesting of `[`/`{` outside strings. Works on bytes: those characters and `"` and
 * `\` never occur inside a multi-byte UTF-8 sequence. Stops counting once over the cap.
 */
function jsonDepth(body: Buffer): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === 0x5c) i++;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > MAX_JSON_DEPTH) return deepest;
      }
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
  return deepest;
}
