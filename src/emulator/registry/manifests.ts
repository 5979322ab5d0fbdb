// Manifests (OCI distribution spec, "Pushing manifests", "Pulling manifests"): by tag or by
// digest, docker v2 and OCI, images and indexes. A manifest is taken only when everything it
// names is in the repository already, so that what is stored can always be pulled.
import { createHash } from "node:crypto";
import { MAX_MANIFEST_BYTES, parseManifest } from "../../model/image-manifest.js";
import { isDigest, TAG } from "../../model/image-reference.js";
import { readSmall } from "./bodies.js";
import { digestInvalid, manifestUnknown, RegistryError } from "./errors.js";
import {
  allow,
  checkDigest,
  claimsFor,
  type Registry,
  type RegistryAnswer,
  type RegistryRequest,
  unsupported,
} from "./request.js";

export async function manifest(
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
