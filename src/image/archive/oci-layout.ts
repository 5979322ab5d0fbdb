// An OCI image layout (image-layout spec): `oci-layout`, `index.json`, and every blob under
// `blobs/sha256/`. Its manifests are pushed byte for byte, so the digest the registry stores is
// the one the builder wrote (buildx prints it, `skopeo inspect` shows it); an index is pushed
// after the manifests it names. index.json must name one image (a manifest, or an index of
// platforms): a layout holding several is refused, naming them.
//
// Every manifest and blob is checked against its digest before anything is sent (--dry-run
// too): a blob with one byte changed and its size kept would otherwise pass, and fail only
// once the deployment was created and the upload hashed it. Each blob is read once for it
// (blobs shared by platforms once in all); the upload hashes what it sends again, so a file
// changed in between is caught there.
import { createHash } from "node:crypto";
import { UsageError } from "../../errors.js";
import {
  type Descriptor,
  descriptor,
  MANIFEST_TYPES,
  MAX_MANIFEST_BYTES,
  parseManifest,
} from "../../model/image-manifest.js";
import { formatBytes } from "../../util/bytes.js";
import type { PlanBlob, PlanManifest, PushPlan } from "../plan.js";
import { damaged, digestOf, readJson } from "./damaged.js";
import type { FileBytes, ImageFiles } from "./files.js";

const MAX_INDEX_JSON_BYTES = 4 * 1024 * 1024;
/** Indexes within indexes, at most: a loop of digests cannot be made, but depth is bounded anyway. */
const MAX_DEPTH = 4;
const REF_NAME = "org.opencontainers.image.ref.name";

export interface LayoutOptions {
  signal?: AbortSignal;
  /** Told what takes time ("checking the digests of 4 blobs (40 MiB)"). */
  note?: (text: string) => void;
}

export async function ociLayoutPlan(files: ImageFiles, options: LayoutOptions = {}): Promise<PushPlan> {
  const index = readJson(files, "index.json", MAX_INDEX_JSON_BYTES) as { manifests?: unknown } | null;
  if (!index || !Array.isArray(index.manifests)) throw damaged(files, "index.json lists no manifests");
  const entries = index.manifests.map((item, i) => {
    const parsed = descriptor(item, `index.json manifests[${i}]`);
    if (typeof parsed === "string") throw damaged(files, parsed);
    return parsed;
  });
  if (entries.length === 0) throw damaged(files, "index.json lists no image");
  if (entries.length > 1) {
    const names = entries.map(
      (entry) => entry.annotations?.[REF_NAME] ?? describePlatform(entry) ?? entry.digest,
    );
    throw new UsageError(
      `--image-archive: ${files.describe} holds ${entries.length} images (${names.join(", ")}); cpctl pushes one: export one image, or one index of its platforms`,
    );
  }
  const top = entries[0]!;
  const walk = new Walk(files);
  walk.manifest(top, 0);
  await verifyBlobs(files, [...walk.blobs.values()], options);
  const name = top.annotations?.[REF_NAME];
  return {
    format: "oci-layout",
    source: `OCI layout ${files.describe}${name ? ` (${name})` : ""}`,
    blobs: [...walk.blobs.values()],
    manifests: walk.manifests,
    imageId: walk.firstConfig ?? top.digest,
  };
}

class Walk {
  readonly blobs = new Map<string, PlanBlob>();
  readonly manifests: PlanManifest[] = [];
  firstConfig: string | null = null;
  private readonly seen = new Set<string>();

  constructor(private readonly files: ImageFiles) {}

  manifest(item: Descriptor, depth: number): void {
    if (this.seen.has(item.digest)) return;
    if (depth > MAX_DEPTH) throw damaged(this.files, "indexes nest deeper than any image needs");
    if (!MANIFEST_TYPES.includes(item.mediaType)) {
      throw damaged(this.files, `${item.digest} is a ${item.mediaType}, not an image manifest or index`);
    }
    if (item.size > MAX_MANIFEST_BYTES) throw damaged(this.files, `the manifest ${item.digest} is too large`);
    const bytes = this.file(item, "manifest").read(0, item.size);
    const actual = sha256Of(bytes);
    if (actual !== item.digest) {
      throw damaged(
        this.files,
        `the manifest ${item.digest} (${blobPath(item.digest)}) does not match its digest: its bytes give ${actual}`,
      );
    }
    const parsed = parseManifest(bytes, item.mediaType);
    if (typeof parsed === "string") throw damaged(this.files, `the manifest ${item.digest}: ${parsed}`);
    if (parsed.kind === "index") {
      for (const child of parsed.manifests) this.manifest(child, depth + 1);
    } else {
      this.firstConfig ??= parsed.config.digest;
      this.blob(parsed.config, "config");
      const layers = parsed.layers.filter((layer) => !layer.urls?.length);
      for (const [i, layer] of layers.entries()) this.blob(layer, `layer ${i + 1}/${layers.length}`);
    }
    this.seen.add(item.digest);
    this.manifests.push({ digest: item.digest, mediaType: parsed.mediaType, bytes });
  }

  private blob(item: Descriptor, label: string): void {
    if (this.blobs.has(item.digest)) return;
    this.blobs.set(item.digest, {
      digest: item.digest,
      size: item.size,
      mediaType: item.mediaType,
      bytes: this.file(item, label),
      label,
    });
  }

  /** The blob a descriptor names; missing or of another size, the layout is incomplete. */
  private file(item: Descriptor, what: string): FileBytes {
    const path = blobPath(item.digest);
    const file = this.files.file(path);
    const platform = describePlatform(item);
    if (!file) {
      throw damaged(
        this.files,
        `the ${what} ${item.digest}${platform ? ` (${platform})` : ""} is not in it (${path}); export every platform, or one`,
      );
    }
    if (file.size !== item.size) {
      throw damaged(this.files, `${path} is ${file.size} bytes, its descriptor says ${item.size}`);
    }
    return file;
  }
}

/** Each blob hashed once and compared with its digest. */
async function verifyBlobs(files: ImageFiles, blobs: PlanBlob[], options: LayoutOptions): Promise<void> {
  const bytes = blobs.reduce((sum, blob) => sum + blob.size, 0);
  options.note?.(`checking the digests of ${blobs.length} blobs (${formatBytes(bytes)})`);
  for (const blob of blobs) {
    const actual = await digestOf(blob.bytes, options.signal);
    if (actual !== blob.digest) {
      throw damaged(
        files,
        `the ${blob.label} ${blob.digest} (${blobPath(blob.digest)}) does not match its digest: its bytes give ${actual}; export the image again`,
      );
    }
  }
}

function blobPath(digest: string): string {
  return `blobs/sha256/${digest.slice("sha256:".length)}`;
}

function sha256Of(data: Buffer): string {
  return `sha256:${createHash("sha256").update(data).digest("hex")}`;
}

function describePlatform(item: Descriptor): string | null {
  const platform = item.platform;
  if (!platform?.os && !platform?.architecture) return null;
  return [platform.os, platform.architecture, platform.variant].filter(Boolean).join("/");
}
