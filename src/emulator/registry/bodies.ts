// Request bodies, read a chunk at a time: blobs are streamed into the storage (a layer of any
// size never sits whole in a Buffer), small bodies (token forms, manifests) read within a limit.
import type { IncomingMessage } from "node:http";
import { RegistryError } from "./errors.js";

export function streamBody(request: IncomingMessage, take: (chunk: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      request.off("data", onData);
      request.resume();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      try {
        take(chunk);
      } catch (error) {
        fail(error);
      }
    };
    request.on("data", onData);
    request.once("end", () => {
      if (!failed) resolve();
    });
    request.once("aborted", () =>
      fail(new RegistryError(400, "BLOB_UPLOAD_INVALID", "the request was cut short")),
    );
    request.once("error", fail);
  });
}

/** A small body whole (token forms, manifests); a 413 past `limit`. */
export async function readSmall(request: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  await streamBody(request, (chunk) => {
    size += chunk.length;
    if (size > limit) throw new RegistryError(413, "SIZE_INVALID", `the body is larger than ${limit} bytes`);
    chunks.push(chunk);
  });
  return Buffer.concat(chunks, size);
}
