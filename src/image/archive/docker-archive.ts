// A `docker save` / `podman save` archive (docker-archive): manifest.json names the image's
// config file and its layer tars. It holds no registry manifest, so one is made, as `docker
// push` makes it: a docker v2 (schema 2) manifest, the config as it is, and each layer gzipped
// (layers the archive already holds gzipped are sent as they are). Gzip at a fixed level over
// the same bytes gives the same bytes, so pushing the same archive twice sends nothing again.
//
// Layers are compressed into a private temporary directory, each checked against the diff_id
// the config gives it (the digest of the uncompressed tar); a gzipped layer is inflated to be
// checked the same way, in the one read that gives its digest (nothing written); a config
// named by its digest (`HEX.json`, `blobs/sha256/HEX`, as docker and podman write it) is
// checked against its name. A damaged archive stops here, with nothing sent.
import { createHash } from "node:crypto";
import { createWriteStream, statSync } from "node:fs";
import { join } from "node:path";
import { Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import { UsageError } from "../../errors.js";
import { MEDIA_TYPES } from "../../model/image-manifest.js";
import { formatBytes } from "../../util/bytes.js";
import type { PlanBlob, PushPlan } from "../plan.js";
import { damaged, digestOf, readJson } from "./damaged.js";
import { DirectoryFiles } from "./directory.js";
import type { FileBytes, ImageFiles } from "./files.js";

const MAX_MANIFEST_JSON_BYTES = 1024 * 1024;
const MAX_CONFIG_BYTES = 16 * 1024 * 1024;
const GZIP = [0x1f, 0x8b];
/** Where docker (before and since version 25) and podman put a config: named by its digest. */
const CONFIG_NAMED_BY_DIGEST = /^(?:\.\/)?(?:blobs\/sha256\/([a-f0-9]{64})|([a-f0-9]{64})\.json)$/;
const ZSTD = [0x28, 0xb5, 0x2f, 0xfd];

interface ArchiveEntry {
  Config: string;
  RepoTags?: string[] | null;
  Layers: string[];
}

export interface PlanOptions {
  /** A private directory for the compressed layers (removed by the caller). */
  tempDir: string;
  signal?: AbortSignal;
  /** Told what takes time ("compressing layer 2/3 (40 MiB)"). */
  note?: (text: string) => void;
}

export async function dockerArchivePlan(files: ImageFiles, options: PlanOptions): Promise<PushPlan> {
  const entry = soleImage(files, readJson(files, "manifest.json", MAX_MANIFEST_JSON_BYTES));
  const configFile = files.file(entry.Config);
  if (!configFile) throw damaged(files, `the config ${entry.Config} that manifest.json names is missing`);
  if (configFile.size > MAX_CONFIG_BYTES) throw damaged(files, `the config ${entry.Config} is too large`);
  const config = configFile.read(0, configFile.size);
  const configDigest = `sha256:${createHash("sha256").update(config).digest("hex")}`;
  const named = CONFIG_NAMED_BY_DIGEST.exec(entry.Config);
  if (named && `sha256:${named[1] ?? named[2]}` !== configDigest) {
    throw damaged(
      files,
      `the config ${entry.Config} does not match the digest its name gives: its bytes give ${configDigest}`,
    );
  }
  const diffIds = diffIdsOf(config);
  if (diffIds && diffIds.length !== entry.Layers.length) {
    throw damaged(files, `the config lists ${diffIds.length} layers, manifest.json ${entry.Layers.length}`);
  }

  const blobs = new Map<string, PlanBlob>();
  blobs.set(configDigest, {
    digest: configDigest,
    size: config.length,
    mediaType: MEDIA_TYPES.dockerConfig,
    bytes: configFile,
    label: "config",
  });
  const layers: { mediaType: string; digest: string; size: number }[] = [];
  // A layer listed again (the same path, a link to the same entry, a hard link) is read and
  // compressed once: listed 50 times, a 20 MB layer wrote 1 GB of temporary files.
  const read = new Map<string, LayerRead>();
  for (const [index, path] of entry.Layers.entries()) {
    const label = `layer ${index + 1}/${entry.Layers.length}`;
    const file = files.file(path);
    if (!file) throw damaged(files, `${label} (${path}) is missing`);
    let layer = read.get(file.key);
    if (!layer) {
      layer = await readLayer(files, file, label, diffIds !== null, index, options);
      read.set(file.key, layer);
    }
    const diffId = diffIds?.[index];
    if (diffId !== undefined && diffId !== layer.uncompressed) {
      throw damaged(
        files,
        `${label} does not match its diff_id in the config (${diffId}; its bytes give ${layer.uncompressed})`,
      );
    }
    const { blob } = layer;
    layers.push({ mediaType: blob.mediaType, digest: blob.digest, size: blob.size });
    if (!blobs.has(blob.digest)) blobs.set(blob.digest, blob);
  }

  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.dockerManifest,
      config: { mediaType: MEDIA_TYPES.dockerConfig, digest: configDigest, size: config.length },
      layers,
    }),
  );
  const tags = entry.RepoTags?.length ? ` (${entry.RepoTags.join(", ")})` : "";
  return {
    format: "docker-archive",
    source: `docker archive ${files.describe}${tags}`,
    blobs: [...blobs.values()],
    manifests: [
      {
        digest: `sha256:${createHash("sha256").update(manifest).digest("hex")}`,
        mediaType: MEDIA_TYPES.dockerManifest,
        bytes: manifest,
      },
    ],
    imageId: configDigest,
  };
}

/** The one image manifest.json describes; an archive of several is refused, naming them. */
function soleImage(files: ImageFiles, json: unknown): ArchiveEntry {
  if (!Array.isArray(json)) throw damaged(files, "manifest.json is not a list of images");
  if (json.length === 0) throw damaged(files, "manifest.json lists no image");
  if (json.length > 1) {
    const names = json.map((item, i) => {
      const tags = (item as ArchiveEntry | null)?.RepoTags;
      return Array.isArray(tags) && tags.length ? tags.join(" ") : `image ${i + 1} (untagged)`;
    });
    throw new UsageError(
      `--image-archive: ${files.describe} holds ${json.length} images (${names.join(", ")}); cpctl pushes one: save one image per file (docker save IMAGE -o FILE)`,
    );
  }
  const entry = json[0] as Partial<ArchiveEntry> | null;
  if (
    !entry ||
    typeof entry.Config !== "string" ||
    !Array.isArray(entry.Layers) ||
    entry.Layers.some((layer) => typeof layer !== "string")
  ) {
    throw damaged(files, "manifest.json's entry needs Config (a path) and Layers (a list of paths)");
  }
  return entry as ArchiveEntry;
}

function diffIdsOf(config: Buffer): string[] | null {
  try {
    const ids = (JSON.parse(config.toString("utf8")) as { rootfs?: { diff_ids?: unknown } }).rootfs?.diff_ids;
    return Array.isArray(ids) && ids.every((id) => typeof id === "string") ? (ids as string[]) : null;
  } catch {
    return null;
  }
}

/** A layer read: the blob pushed, and the digest of its uncompressed tar (null: not asked for). */
interface LayerRead {
  blob: PlanBlob;
  uncompressed: string | null;
}

/**
 * A layer as pushed: gzipped ones as they are, tars gzipped into the temporary directory.
 * `diffIds`: the config gives the uncompressed digests, so a gzipped layer is inflated (into
 * a hash) to give its own.
 */
async function readLayer(
  files: ImageFiles,
  file: FileBytes,
  label: string,
  diffIds: boolean,
  index: number,
  options: PlanOptions,
): Promise<LayerRead> {
  const head = file.read(0, Math.min(4, file.size));
  if (startsWith(head, ZSTD)) {
    throw new UsageError(
      `--image-archive: ${label} of ${files.describe} is zstd-compressed, which a docker v2 manifest cannot name; save the image as an OCI layout instead (it is pushed as it is)`,
    );
  }
  const blob = (digest: string, size: number, bytes: FileBytes): PlanBlob => ({
    digest,
    size,
    mediaType: MEDIA_TYPES.dockerLayerGzip,
    bytes,
    label,
  });
  if (startsWith(head, GZIP)) {
    if (!diffIds)
      return { blob: blob(await digestOf(file, options.signal), file.size, file), uncompressed: null };
    const digests = await gzippedDigests(files, file, label, options);
    return { blob: blob(digests.compressed, file.size, file), uncompressed: digests.uncompressed };
  }
  options.note?.(`compressing ${label} (${formatBytes(file.size)})`);
  const name = `layer-${index}.tar.gz`;
  const target = join(options.tempDir, name);
  const uncompressed = createHash("sha256");
  const compressed = createHash("sha256");
  await pipeline(
    file.stream(),
    tap(uncompressed),
    createGzip({ level: 6 }),
    tap(compressed),
    createWriteStream(target, { mode: 0o600 }),
    { signal: options.signal },
  );
  const bytes = new DirectoryFiles(options.tempDir, "the temporary directory").file(name);
  if (!bytes) throw new Error(`the compressed ${label} vanished from ${options.tempDir}`);
  return {
    blob: blob(`sha256:${compressed.digest("hex")}`, statSync(target).size, bytes),
    uncompressed: `sha256:${uncompressed.digest("hex")}`,
  };
}

/** The digests of a gzipped layer as it is and inflated (into the hash alone), in one read. */
async function gzippedDigests(
  files: ImageFiles,
  file: FileBytes,
  label: string,
  options: PlanOptions,
): Promise<{ compressed: string; uncompressed: string }> {
  const compressed = createHash("sha256");
  const uncompressed = createHash("sha256");
  try {
    await pipeline(file.stream(), tap(compressed), createGunzip(), tap(uncompressed), discard(), {
      signal: options.signal,
    });
  } catch (error) {
    if (options.signal?.aborted || (error as Error).name === "AbortError") throw error;
    throw damaged(files, `${label} is not a whole gzip stream (${(error as Error).message})`);
  }
  return {
    compressed: `sha256:${compressed.digest("hex")}`,
    uncompressed: `sha256:${uncompressed.digest("hex")}`,
  };
}

function discard(): Writable {
  return new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });
}

function tap(hash: ReturnType<typeof createHash>): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
}

function startsWith(data: Buffer, magic: number[]): boolean {
  return data.length >= magic.length && magic.every((byte, i) => data[i] === byte);
}
