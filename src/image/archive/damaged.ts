// Reading the JSON an archive describes itself with, and saying plainly when an archive is
// not what it claims: a UsageError (exit 2) that names the archive and the file at fault.
import { createHash } from "node:crypto";
import { InterruptedError, UsageError } from "../../errors.js";
import type { FileBytes, ImageFiles } from "./files.js";

/** The formats cpctl reads, as every message about a file that is none of them lists them. */
export const FORMATS_READ =
  "a `docker save` or `podman save` tarball (docker-archive), an OCI image layout directory, or an OCI layout tar (`podman save --format oci-archive`, `docker buildx build --output type=oci`, `skopeo copy ... oci-archive:`), optionally gzipped";

export function damaged(files: ImageFiles, problem: string): UsageError {
  return new UsageError(`--image-archive: ${files.describe} is damaged or incomplete: ${problem}`);
}

/** A JSON file of the archive, at most `limit` bytes. */
export function readJson(files: ImageFiles, path: string, limit: number): unknown {
  const file = files.file(path);
  if (!file) throw damaged(files, `${path} is missing`);
  if (file.size > limit)
    throw damaged(files, `${path} is ${file.size} bytes, more than the ${limit} a ${path} can be`);
  try {
    return JSON.parse(file.read(0, file.size).toString("utf8"));
  } catch {
    throw damaged(files, `${path} is not valid JSON`);
  }
}

/** The sha256 digest of a file, streamed (a layer can be gigabytes; Ctrl-C stops it). */
export async function digestOf(file: FileBytes, signal?: AbortSignal): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of file.stream().iterator({ destroyOnReturn: true })) {
    if (signal?.aborted) throw new InterruptedError();
    hash.update(chunk as Buffer);
  }
  return `sha256:${hash.digest("hex")}`;
}
