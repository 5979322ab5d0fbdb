// The registry's endpoints (OCI distribution spec 1.1), dispatched by path: the ping and the
// token service, blobs, uploads (uploads.ts), manifests (manifests.ts), tags. Each handler
// authenticates, checks the repository is the caller's, then reads or changes the storage and
// returns an answer for the server to write.
import { issueBearer } from "./access.js";
import { readSmall } from "./bodies.js";
import { blobUnknown, RegistryError } from "./errors.js";
import { manifest } from "./manifests.js";
import {
  allow,
  checkDigest,
  claims,
  claimsFor,
  json,
  type Registry,
  type RegistryAnswer,
  type RegistryRequest,
  unsupported,
} from "./request.js";
import { startUpload, upload } from "./uploads.js";

export type { Registry, RegistryAnswer, RegistryRequest } from "./request.js";

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
