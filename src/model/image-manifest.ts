// Image manifests and indexes, docker v2 (schema 2) and OCI: their media types and their
// shape, read once for the emulator's registry (which checks what it is sent) and for the
// client (which reads an OCI layout's manifests and writes a docker archive's).
import { SHA256_DIGEST } from "./image-reference.js";

export const MEDIA_TYPES = {
  dockerManifest: "application/vnd.docker.distribution.manifest.v2+json",
  dockerManifestList: "application/vnd.docker.distribution.manifest.list.v2+json",
  dockerConfig: "application/vnd.docker.container.image.v1+json",
  dockerLayer: "application/vnd.docker.image.rootfs.diff.tar",
  dockerLayerGzip: "application/vnd.docker.image.rootfs.diff.tar.gzip",
  ociManifest: "application/vnd.oci.image.manifest.v1+json",
  ociIndex: "application/vnd.oci.image.index.v1+json",
  ociConfig: "application/vnd.oci.image.config.v1+json",
} as const;

/** Manifests of one image: a config and layers. */
export const IMAGE_MANIFEST_TYPES: readonly string[] = [MEDIA_TYPES.dockerManifest, MEDIA_TYPES.ociManifest];
/** Manifests that list other manifests (one per platform). */
export const INDEX_TYPES: readonly string[] = [MEDIA_TYPES.dockerManifestList, MEDIA_TYPES.ociIndex];
export const MANIFEST_TYPES: readonly string[] = [...IMAGE_MANIFEST_TYPES, ...INDEX_TYPES];

/** The largest manifest a registry takes (the distribution registry's limit). */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  /** Where a foreign layer is fetched from instead of the registry. */
  urls?: string[];
  annotations?: Record<string, string>;
  platform?: { architecture?: string; os?: string; variant?: string };
}

export type ParsedManifest =
  | { kind: "image"; mediaType: string; config: Descriptor; layers: Descriptor[] }
  | { kind: "index"; mediaType: string; manifests: Descriptor[] };

/**
 * A manifest's bytes read as JSON and checked; `declaredType` is the Content-Type it came
 * with (null: none). Returns what is wrong, in words, when it is not one.
 */
export function parseManifest(bytes: Buffer, declaredType: string | null): ParsedManifest | string {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch {
    return "the manifest is not valid JSON";
  }
  if (json === null || typeof json !== "object" || Array.isArray(json))
    return "the manifest is not a JSON object";
  const body = json as Record<string, unknown>;
  if (body.schemaVersion !== 2) {
    return `schemaVersion must be 2 (docker v2 schema 2 or OCI), not ${JSON.stringify(body.schemaVersion)}`;
  }
  const inBody = typeof body.mediaType === "string" ? body.mediaType : null;
  const declared = declaredType && MANIFEST_TYPES.includes(declaredType) ? declaredType : null;
  if (declared && inBody && declared !== inBody) {
    return `the Content-Type (${declared}) and the manifest's mediaType (${inBody}) differ`;
  }
  const mediaType =
    declared ??
    inBody ??
    (Array.isArray(body.manifests) ? MEDIA_TYPES.ociIndex : body.config ? MEDIA_TYPES.ociManifest : null);
  if (mediaType === null || !MANIFEST_TYPES.includes(mediaType)) {
    return `unsupported manifest media type ${JSON.stringify(mediaType ?? declaredType)}: expected one of ${MANIFEST_TYPES.join(", ")}`;
  }
  if (INDEX_TYPES.includes(mediaType)) {
    const manifests = descriptors(body.manifests, "manifests");
    return typeof manifests === "string" ? manifests : { kind: "index", mediaType, manifests };
  }
  const config = descriptor(body.config, "config");
  if (typeof config === "string") return config;
  const layers = descriptors(body.layers, "layers");
  if (typeof layers === "string") return layers;
  return { kind: "image", mediaType, config, layers };
}

function descriptors(value: unknown, field: string): Descriptor[] | string {
  if (!Array.isArray(value)) return `${field} must be an array of descriptors`;
  const out: Descriptor[] = [];
  for (const [index, item] of value.entries()) {
    const parsed = descriptor(item, `${field}[${index}]`);
    if (typeof parsed === "string") return parsed;
    out.push(parsed);
  }
  return out;
}

/** A descriptor `{mediaType, digest, size}`, or what is wrong with it. */
export function descriptor(value: unknown, field: string): Descriptor | string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return `${field} must be a descriptor ({mediaType, digest, size})`;
  }
  const item = value as Record<string, unknown>;
  if (typeof item.mediaType !== "string" || item.mediaType === "") return `${field}.mediaType is missing`;
  if (typeof item.digest !== "string" || !SHA256_DIGEST.test(item.digest)) {
    return `${field}.digest must be a sha256 digest (sha256: and 64 lower-case hexadecimal digits)`;
  }
  if (typeof item.size !== "number" || !Number.isSafeInteger(item.size) || item.size < 0) {
    return `${field}.size must be a whole number of bytes`;
  }
  return item as unknown as Descriptor;
}
