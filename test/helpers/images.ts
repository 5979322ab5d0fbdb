// Small container images made in the test, in the formats cpctl reads: a `docker save` archive
// (manifest.json, a config, a directory and layer.tar per layer), and an OCI image layout
// (oci-layout, index.json, blobs/sha256/...) as a directory or a tar. Layers are real tars of a
// few files; the config names their diff_ids, as a builder's does.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { MEDIA_TYPES } from "../../src/model/image-manifest.js";
import { endOfArchive, entryHeader, padding } from "../../src/upload/tar.js";

export interface TestImage {
  /** The config JSON. */
  config: Buffer;
  /** Uncompressed layer tars, base first. */
  layers: Buffer[];
}

export const sha256 = (data: Buffer | string) => `sha256:${createHash("sha256").update(data).digest("hex")}`;

/** A tar of `files` (path -> content). */
export function tarOf(files: Record<string, string | Buffer>): Buffer {
  const parts: Buffer[] = [];
  for (const [path, content] of Object.entries(files)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
    parts.push(
      entryHeader({ path, type: "file", mode: 0o644, size: data.length }),
      data,
      padding(data.length),
    );
  }
  parts.push(endOfArchive());
  return Buffer.concat(parts);
}

/** An image of `layers` small layers whose contents depend on `seed` (same seed, same bytes). */
export function makeTestImage(seed: string, layers = 3): TestImage {
  const tars = Array.from({ length: layers }, (_, i) =>
    tarOf({
      [`app/layer-${i}.txt`]: `${seed} layer ${i}\n`.repeat(20 + i),
      [`app/data-${i}.bin`]: createHash("sha512").update(`${seed}/${i}`).digest(),
    }),
  );
  const config = Buffer.from(
    JSON.stringify({
      architecture: "amd64",
      os: "linux",
      config: { Cmd: ["/app/run"], Env: [`SEED=${seed}`] },
      rootfs: { type: "layers", diff_ids: tars.map((tar) => sha256(tar)) },
      history: tars.map((_, i) => ({ created_by: `layer ${i}` })),
    }),
  );
  return { config, layers: tars };
}

/** The image as `docker save` (before Docker 25) and `podman save` write it. */
export function dockerArchive(image: TestImage, repoTags: string[] = ["example/agent:latest"]): Buffer {
  const configName = `${sha256(image.config).slice(7)}.json`;
  const files: Record<string, Buffer | string> = { [configName]: image.config };
  const layerNames = image.layers.map((tar, i) => {
    const name = `${createHash("sha256").update(`layer-dir-${i}`).update(tar).digest("hex")}/layer.tar`;
    files[name] = tar;
    return name;
  });
  files["manifest.json"] = JSON.stringify([{ Config: configName, RepoTags: repoTags, Layers: layerNames }]);
  return tarOf(files);
}

export interface OciLayout {
  /** Path -> content of the layout's files. */
  files: Record<string, Buffer>;
  /** The image manifest's digest (what a registry stores it under). */
  manifestDigest: string;
}

/** The image as an OCI layout; `gzip` compresses the layers (as buildx does). */
export function ociLayout(image: TestImage, options: { gzip?: boolean; refName?: string } = {}): OciLayout {
  const files: Record<string, Buffer> = {};
  const blob = (data: Buffer, mediaType: string) => {
    const digest = sha256(data);
    files[`blobs/sha256/${digest.slice(7)}`] = data;
    return { mediaType, digest, size: data.length };
  };
  const layers = image.layers.map((tar) =>
    options.gzip
      ? blob(gzipSync(tar), "application/vnd.oci.image.layer.v1.tar+gzip")
      : blob(tar, "application/vnd.oci.image.layer.v1.tar"),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.ociManifest,
      config: blob(image.config, MEDIA_TYPES.ociConfig),
      layers,
    }),
  );
  const descriptor = blob(manifest, MEDIA_TYPES.ociManifest);
  files["oci-layout"] = Buffer.from(JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  files["index.json"] = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.ociIndex,
      manifests: [
        {
          ...descriptor,
          ...(options.refName
            ? { annotations: { "org.opencontainers.image.ref.name": options.refName } }
            : {}),
        },
      ],
    }),
  );
  return { files, manifestDigest: descriptor.digest };
}

export function writeTree(dir: string, files: Record<string, Buffer>): void {
  for (const [path, data] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), data);
  }
}
