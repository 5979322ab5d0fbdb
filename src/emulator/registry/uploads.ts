// Blob uploads (OCI distribution spec, "Pushing blobs"): a POST starts one (or, with ?digest=,
// is the whole blob; with ?mount=&from=, links a blob another of the caller's repositories
// holds), PATCHes append chunks in order, a PUT with ?digest= ends it once the bytes have that
// digest. Each answer says where the upload is (Location, Range, Docker-Upload-UUID).
import { SHA256_DIGEST } from "../../model/image-reference.js";
import { streamBody } from "./bodies.js";
import { digestInvalid, RegistryError } from "./errors.js";
import {
  allow,
  checkDigest,
  claimsFor,
  mayRead,
  type Registry,
  type RegistryAnswer,
  type RegistryRequest,
} from "./request.js";
import type { RegistryStorage, UploadSession } from "./storage.js";

export async function startUpload(
  registry: Registry,
  r: RegistryRequest,
  name: string,
): Promise<RegistryAnswer> {
  const claims = claimsFor(registry, r, name);
  const { storage } = registry;
  const mount = r.query.get("mount");
  const from = r.query.get("from");
  if (mount !== null && from !== null && SHA256_DIGEST.test(mount) && mayRead(registry, claims, from)) {
    // A blob another of the caller's repositories holds: linked, nothing sent.
    if (storage.mount(name, from, mount)) return blobCreated(name, mount);
  }
  const session = storage.startUpload(name, r.now);
  const digest = r.query.get("digest");
  if (digest === null) {
    // No body is read here: a POST that starts an upload carries none.
    return uploadAccepted(name, session, 202);
  }
  // A monolithic upload: the whole blob in this POST.
  checkDigest(digest);
  await receive(registry, r, session);
  finish(storage, session, digest);
  return blobCreated(name, digest);
}

export async function upload(
  registry: Registry,
  r: RegistryRequest,
  name: string,
  id: string,
): Promise<RegistryAnswer> {
  allow(r, ["GET", "PATCH", "PUT", "DELETE"]);
  claimsFor(registry, r, name);
  const { storage } = registry;
  const session = storage.upload(name, id);
  switch (r.method) {
    case "GET":
      return uploadAccepted(name, session, 204);
    case "DELETE":
      storage.cancel(session);
      return { status: 204, headers: {} };
    case "PATCH": {
      const range = contentRange(r.request.headers["content-range"]);
      if (range && range.start !== session.size) {
        throw new RegistryError(
          416,
          "BLOB_UPLOAD_INVALID",
          `the chunk starts at ${range.start}, but the upload holds ${session.size} bytes: send from there`,
          null,
          progressHeaders(name, session),
        );
      }
      const before = session.size;
      await receive(registry, r, session);
      if (range && session.size - before !== range.end - range.start + 1) {
        storage.cancel(session);
        throw new RegistryError(
          416,
          "BLOB_UPLOAD_INVALID",
          `Content-Range said ${range.end - range.start + 1} bytes but ${session.size - before} came: start the upload again`,
        );
      }
      return uploadAccepted(name, session, 202);
    }
    default: {
      const digest = r.query.get("digest");
      if (digest === null)
        throw digestInvalid("the PUT that ends an upload needs ?digest=<digest of the blob>");
      checkDigest(digest);
      await receive(registry, r, session);
      finish(storage, session, digest);
      return blobCreated(name, digest);
    }
  }
}

function finish(storage: RegistryStorage, session: UploadSession, digest: string): void {
  try {
    storage.complete(session, digest);
  } catch (error) {
    // Bytes that are not the blob they claim to be are worth nothing: the client starts again.
    storage.cancel(session);
    throw error;
  }
}

/** Streams the request body into an upload; one request at a time per upload. */
async function receive(registry: Registry, r: RegistryRequest, session: UploadSession): Promise<void> {
  if (session.busy) {
    throw new RegistryError(
      416,
      "BLOB_UPLOAD_INVALID",
      "another request is writing to this upload: send chunks one after the other",
    );
  }
  session.busy = true;
  try {
    await streamBody(r.request, (chunk) => registry.storage.append(session, chunk, r.now));
  } finally {
    session.busy = false;
  }
}

/** Calls `take` with each chunk of the body; its error stops the reading (the rest is discarded). */
function contentRange(header: string | undefined): { start: number; end: number } | null {
  if (header === undefined) return null;
  const match = /^(?:bytes[ =])?(\d{1,15})-(\d{1,15})$/.exec(header.trim());
  if (!match || Number(match[2]) < Number(match[1])) {
    throw new RegistryError(
      416,
      "BLOB_UPLOAD_INVALID",
      "Content-Range must be <start>-<end> (inclusive byte offsets)",
    );
  }
  return { start: Number(match[1]), end: Number(match[2]) };
}

function progressHeaders(name: string, session: UploadSession): Record<string, string> {
  return {
    Location: `/v2/${name}/blobs/uploads/${session.id}`,
    // The bytes held, as an inclusive range: "0-0" for none (what every registry says).
    Range: `0-${Math.max(0, session.size - 1)}`,
    "Docker-Upload-UUID": session.id,
  };
}

function uploadAccepted(name: string, session: UploadSession, status: 202 | 204): RegistryAnswer {
  return { status, headers: { ...progressHeaders(name, session), "Content-Length": "0" } };
}

export function blobCreated(name: string, digest: string): RegistryAnswer {
  return {
    status: 201,
    headers: {
      Location: `/v2/${name}/blobs/${digest}`,
      "Docker-Content-Digest": digest,
      "Content-Length": "0",
    },
  };
}
