// The registry's endpoints (OCI distribution spec 1.1): the ping, blobs, uploads (monolithic,
// chunked, and mounts from another repository), manifests by tag or digest, tags. Each handler
// authenticates, checks the repository is the caller's, then reads or changes the storage and
// returns an answer for the server to write. Request bodies are streamed into the storage, so
// a layer of any size never sits whole in a Buffer here.
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { MAX_MANIFEST_BYTES, parseManifest } from "../../model/image-manifest.js";
import { isDigest, SHA256_DIGEST, TAG } from "../../model/image-reference.js";
import type { Core } from "../core.js";
import type { RequestEvent } from "../request-pipeline.js";
import { authenticate, authorize, issueBearer } from "./access.js";
import type { BlobBody } from "./backend.js";
import { blobUnknown, digestInvalid, manifestUnknown, RegistryError } from "./errors.js";
import type { RegistryPath } from "./paths.js";
import type { RegistryStorage, UploadSession } from "./storage.js";
import type { PushTokenClaims } from "./tokens.js";

export interface RegistryAnswer {
  status: number;
  headers: Record<string, string>;
  body?: BlobBody;
}

export interface RegistryRequest {
  method: string;
  path: RegistryPath;
  query: URLSearchParams;
  request: IncomingMessage;
  /** The emulator's time, read once for the request. */
  now: number;
  /** http://HOST:PORT as the client addressed the registry. */
  origin: string;
}

export interface Registry {
  core: Core;
  storage: RegistryStorage;
  observers: ReadonlySet<(event: RequestEvent) => void>;
}

const JSON_TYPE = "application/json";

export async function handle(registry: Registry, r: RegistryRequest): Promise<RegistryAnswer> {
  const { path } = r;
  switch (path.kind) {
    case "ping":
      allow(r, ["GET", "HEAD"]);
      claims(registry, r, null);
      return json(200, {});
    case "token":
      return token(registry, r);
    case "blob":
      return blob(registry, r, path.name, path.digest);
    case "uploads":
      allow(r, ["POST"]);
      return startUpload(registry, r, path.name);
    case "upload":
      return upload(registry, r, path.name, path.id);
    case "manifest":
      return manifest(registry, r, path.name, path.reference);
    case "tags":
      allow(r, ["GET", "HEAD"]);
      return tags(registry, r, path.name);
    case "unknown":
      throw new RegistryError(404, "UNSUPPORTED", "not an endpoint of the OCI distribution API");
  }
}

async function token(registry: Registry, r: RegistryRequest): Promise<RegistryAnswer> {
  allow(r, ["GET", "POST"]);
  let form: URLSearchParams | null = null;
  if (r.method === "POST")
    form = new URLSearchParams((await readSmall(r.request, 64 * 1024)).toString("utf8"));
  return json(200, issueBearer(registry.core, r.request.headers, form, r.now, r.origin));
}

function blob(registry: Registry, r: RegistryRequest, name: string, digest: string): RegistryAnswer {
  allow(r, ["GET", "HEAD", "DELETE"]);
  claimsFor(registry, r, name);
  if (r.method === "DELETE") throw unsupported("deleting blobs");
  checkDigest(digest);
  const body =
    registry.storage.blobSize(name, digest) === undefined
      ? undefined
      : registry.storage.readBlob(name, digest);
  if (!body) throw blobUnknown(digest);
  return {
    status: 200,
    headers: {
      "Content-Type": "application/octet-stream",
      "Content-Length": String(body.kind === "buffer" ? body.data.length : body.size),
      "Docker-Content-Digest": digest,
      ETag: `"${digest}"`,
    },
    body,
  };
}

async function startUpload(registry: Registry, r: RegistryRequest, name: string): Promise<RegistryAnswer> {
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

async function upload(
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

async function manifest(
  registry: Registry,
  r: RegistryRequest,
  name: string,
  reference: string,
): Promise<RegistryAnswer> {
  allow(r, ["GET", "HEAD", "PUT", "DELETE"]);
  claimsFor(registry, r, name);
  const { storage } = registry;
  const byDigest = isDigest(reference);
  if (byDigest) checkDigest(reference);
  else if (!TAG.test(reference)) {
    throw new RegistryError(400, "TAG_INVALID", "invalid tag: up to 128 letters, digits, _, . and -", {
      tag: reference.slice(0, 200),
    });
  }
  if (r.method === "DELETE") throw unsupported("deleting manifests");
  if (r.method !== "PUT") {
    const found = storage.manifest(name, reference);
    if (!found) throw manifestUnknown(reference);
    return {
      status: 200,
      headers: {
        "Content-Type": found.mediaType,
        "Content-Length": String(found.body.length),
        "Docker-Content-Digest": found.digest,
        ETag: `"${found.digest}"`,
      },
      body: { kind: "buffer", data: found.body },
    };
  }

  let body: Buffer;
  try {
    body = await readSmall(r.request, MAX_MANIFEST_BYTES);
  } catch (error) {
    if (error instanceof RegistryError && error.status === 413) {
      throw new RegistryError(
        413,
        "MANIFEST_INVALID",
        `a manifest may be at most ${MAX_MANIFEST_BYTES} bytes`,
      );
    }
    throw error;
  }
  const contentType = (r.request.headers["content-type"] ?? "").split(";")[0]!.trim() || null;
  const parsed = parseManifest(body, contentType);
  if (typeof parsed === "string")
    throw new RegistryError(400, "MANIFEST_INVALID", `manifest invalid: ${parsed}`);
  const digest = `sha256:${createHash("sha256").update(body).digest("hex")}`;
  if (byDigest && digest !== reference) {
    throw digestInvalid(`the manifest's digest is ${digest}, not ${reference}`, {
      digest: reference,
      actual: digest,
    });
  }
  // Everything a manifest names must be here already: pulls would fail otherwise.
  const named =
    parsed.kind === "image" ? [parsed.config, ...parsed.layers.filter((layer) => !layer.urls?.length)] : [];
  for (const item of named) {
    const size = storage.blobSize(name, item.digest);
    if (size === undefined) {
      throw new RegistryError(400, "MANIFEST_BLOB_UNKNOWN", `blob unknown to registry: ${item.digest}`, {
        digest: item.digest,
      });
    }
    if (size !== item.size) {
      throw new RegistryError(
        400,
        "MANIFEST_INVALID",
        `manifest invalid: ${item.digest} is ${size} bytes, the manifest says ${item.size}`,
      );
    }
  }
  if (parsed.kind === "index") {
    for (const item of parsed.manifests) {
      if (!storage.hasManifest(name, item.digest)) {
        throw new RegistryError(
          400,
          "MANIFEST_BLOB_UNKNOWN",
          `manifest unknown to registry: ${item.digest}`,
          {
            digest: item.digest,
          },
        );
      }
    }
  }
  storage.checkRoom(body.length);
  storage.putManifest(name, { digest, mediaType: parsed.mediaType, body }, byDigest ? null : reference);
  return {
    status: 201,
    headers: {
      Location: `/v2/${name}/manifests/${digest}`,
      "Docker-Content-Digest": digest,
      "Content-Length": "0",
    },
  };
}

function tags(registry: Registry, r: RegistryRequest, name: string): RegistryAnswer {
  claimsFor(registry, r, name);
  const all = registry.storage.tags(name);
  if (!all) throw new RegistryError(404, "NAME_UNKNOWN", "repository name not known to registry", { name });
  const last = r.query.get("last");
  const n = r.query.get("n");
  let page = last === null ? all : all.filter((tag) => tag > last);
  const headers: Record<string, string> = {};
  if (n !== null && /^\d{1,6}$/.test(n)) {
    const limit = Number(n);
    if (page.length > limit) {
      page = page.slice(0, limit);
      const after = page.at(-1);
      if (after !== undefined)
        headers.Link = `</v2/${name}/tags/list?n=${limit}&last=${encodeURIComponent(after)}>; rel="next"`;
    }
  }
  const answer = json(200, { name, tags: page });
  return { ...answer, headers: { ...answer.headers, ...headers } };
}

// --- helpers ---

function claims(registry: Registry, r: RegistryRequest, name: string | null): PushTokenClaims {
  return authenticate(registry.core, r.request.headers, r.now, {
    origin: r.origin,
    scope: name === null ? null : `repository:${name}:pull,push`,
  });
}

function claimsFor(registry: Registry, r: RegistryRequest, name: string): PushTokenClaims {
  const found = claims(registry, r, name);
  authorize(registry.core, found, name);
  return found;
}

function mayRead(registry: Registry, found: PushTokenClaims, name: string): boolean {
  try {
    authorize(registry.core, found, name);
    return true;
  } catch {
    return false;
  }
}

function allow(r: RegistryRequest, methods: string[]): void {
  if (!methods.includes(r.method)) {
    throw new RegistryError(405, "UNSUPPORTED", `${r.method} is not supported here`, null, {
      Allow: methods.join(", "),
    });
  }
}

function unsupported(what: string): RegistryError {
  return new RegistryError(405, "UNSUPPORTED", `${what} is not supported by the emulator's registry`);
}

function checkDigest(digest: string): void {
  if (!SHA256_DIGEST.test(digest)) {
    throw digestInvalid(
      isDigest(digest)
        ? `unsupported digest algorithm: the emulator's registry takes sha256 digests only`
        : "invalid digest: expected sha256: and 64 lower-case hexadecimal digits",
      { digest: digest.slice(0, 200) },
    );
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
function streamBody(request: IncomingMessage, take: (chunk: Buffer) => void): Promise<void> {
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
async function readSmall(request: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  await streamBody(request, (chunk) => {
    size += chunk.length;
    if (size > limit) throw new RegistryError(413, "SIZE_INVALID", `the body is larger than ${limit} bytes`);
    chunks.push(chunk);
  });
  return Buffer.concat(chunks, size);
}

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

function blobCreated(name: string, digest: string): RegistryAnswer {
  return {
    status: 201,
    headers: {
      Location: `/v2/${name}/blobs/${digest}`,
      "Docker-Content-Digest": digest,
      "Content-Length": "0",
    },
  };
}

function json(status: number, value: unknown): RegistryAnswer {
  const data = Buffer.from(JSON.stringify(value));
  return {
    status,
    headers: { "Content-Type": JSON_TYPE, "Content-Length": String(data.length) },
    body: { kind: "buffer", data },
  };
}
