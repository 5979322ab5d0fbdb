// The daemon-less push: image archives made in the test (docker-archive and OCI layout, as a
// directory, a tar and a gzipped tar) pushed to the emulator's registry, and what goes wrong on
// the way (dropped connections, tokens refused or expired mid-push, damaged archives).
import { mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../../test/helpers/emulator.js";
import { failure } from "../../test/helpers/failure.js";
import {
  dockerArchive,
  makeTestImage,
  ociLayout,
  sha256,
  tarOf,
  writeTree,
} from "../../test/helpers/images.js";
import { registry } from "../../test/helpers/registry.js";
import { nodeTransport } from "../api/transport.js";
import { PUSH_TOKEN_LIFETIME_MS } from "../emulator/registry/tokens.js";
import { ApiError, UsageError } from "../errors.js";
import { exitCodeOf } from "../exit-codes.js";
import { endOfArchive, entryHeader, padding } from "../upload/tar.js";
import { openImageArchive } from "./archive/open.js";
import { type PushOptions, type PushProgress, pushImage } from "./push.js";
import { registryAddress, repositoryOf } from "./registry/address.js";
import { RegistrySession, type TokenSource } from "./registry/session.js";

/** A tar header of a symbolic link `path` -> `target`. */
function symlinkEntry(path: string, target: string): Buffer {
  const link = entryHeader({ path, type: "file", mode: 0o644, size: 0 });
  link[156] = "2".charCodeAt(0);
  link.write(target, 157, "utf8");
  // Recompute the header checksum after changing the type and link name.
  link.fill(" ", 148, 156);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += link[i]!;
  link.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
  return link;
}

afterEach(closeTestEmulators);

const dir = () => mkdtempSync(join(tmpdir(), "cpctl-image-test-"));

interface Target {
  deploymentId: string;
  tokens: TokenSource & { issued: number };
  registryUrl: string;
}

async function target(em: TestEmulator): Promise<Target> {
  const deployment = await em.createDeployment("internal_container");
  let token = "";
  let registryUrl = "";
  const tokens = {
    issued: 0,
    current: () => token,
    renew: async () => {
      const response = await em.post(`/v2/deployments/${deployment.id}/push-token`);
      tokens.issued++;
      token = response.json.token;
      registryUrl = response.json.registry_url;
      return token;
    },
  };
  await tokens.renew();
  tokens.issued = 0;
  return { deploymentId: deployment.id, tokens, registryUrl };
}

async function push(
  to: Target,
  archive: string,
  overrides: Partial<PushOptions> & { trace?: string[] } = {},
) {
  const opened = await openImageArchive(archive, { cwd: "/" });
  try {
    const address = registryAddress(to.registryUrl);
    const repository = repositoryOf(address, "agent");
    const session = new RegistrySession({
      address,
      repository,
      tokens: to.tokens,
      transport: nodeTransport,
      timeoutMs: 10_000,
      userAgent: "cpctl-test",
      secrets: () => [to.tokens.current()],
      trace: overrides.trace ? (line) => overrides.trace!.push(line) : undefined,
    });
    const result = await pushImage(opened.plan, {
      session,
      repository,
      tag: "v1",
      timeoutMs: 10_000,
      sleep: async () => {},
      ...overrides,
    });
    return { ...result, plan: opened.plan, repository };
  } finally {
    opened.close();
  }
}

function uploads(em: TestEmulator): number {
  return em.emulator.stats().requests["POST /v2/{name}/blobs/uploads/"] ?? 0;
}

async function storedManifest(em: TestEmulator, to: Target, repository: string, reference: string) {
  const response = await registry(em, "GET", `/v2/${repository}/manifests/${reference}`, {
    token: to.tokens.current(),
  });
  expect(response.status).toBe(200);
  return { body: Buffer.from(response.text), type: response.headers["content-type"] };
}

describe("pushing an image archive", () => {
  it("pushes a docker archive: gzipped layers, a docker v2 manifest whose digest is what the registry stored; it deploys", async () => {
    const em = await startTestEmulator();
    const to = await target(em);
    const file = join(dir(), "image.tar");
    const image = makeTestImage("docker");
    writeFileSync(file, dockerArchive(image));

    const result = await push(to, file);
    expect(result.uploaded.blobs).toBe(4);
    const stored = await storedManifest(em, to, result.repository, "v1");
    expect(sha256(stored.body)).toBe(result.digest);
    expect(stored.type).toBe("application/vnd.docker.distribution.manifest.v2+json");
    const manifest = JSON.parse(stored.body.toString());
    expect(manifest.config.digest).toBe(sha256(image.config));
    expect(manifest.layers.map((l: { mediaType: string }) => l.mediaType)).toEqual(
      Array(3).fill("application/vnd.docker.image.rootfs.diff.tar.gzip"),
    );

    const patched = await em.patch(`/v2/deployments/${to.deploymentId}`, {
      revision_source: "internal_container",
      source_revision_config: { image_uri: `${to.registryUrl}/agent@${result.digest}` },
    });
    em.settle();
    const revision = await em.get(
      `/v2/deployments/${to.deploymentId}/revisions/${patched.json.latest_revision_id}`,
    );
    expect(revision.json.status).toBe("DEPLOYED");
  });

  it("sends no blob again on a second push of the same archive, and gets the same digest", async () => {
    const em = await startTestEmulator();
    const to = await target(em);
    const file = join(dir(), "image.tar");
    writeFileSync(file, dockerArchive(makeTestImage("twice")));
    const first = await push(to, file);
    const before = uploads(em);
    const second = await push(to, file);
    expect(uploads(em)).toBe(before);
    expect(second.uploaded).toEqual({ blobs: 0, bytes: 0 });
    expect(second.skipped.blobs).toBe(4);
    expect(second.digest).toBe(first.digest);
  });

  it("pushes an OCI layout byte for byte (directory, tar, gzipped tar): the digest is the layout's own", async () => {
    const em = await startTestEmulator();
    const to = await target(em);
    const image = makeTestImage("oci");
    const layout = ociLayout(image, { gzip: true, refName: "v1" });
    const layoutDir = dir();
    writeTree(layoutDir, layout.files);
    const fromDir = await push(to, layoutDir);
    expect(fromDir.digest).toBe(layout.manifestDigest);
    const stored = await storedManifest(em, to, fromDir.repository, fromDir.digest);
    expect(stored.body).toEqual(layout.files[`blobs/sha256/${layout.manifestDigest.slice(7)}`]);
    expect(stored.type).toBe("application/vnd.oci.image.manifest.v1+json");

    const uncompressed = ociLayout(image);
    const tar = join(dir(), "oci.tar");
    writeFileSync(tar, tarOf(uncompressed.files));
    expect((await push(to, tar)).digest).toBe(uncompressed.manifestDigest);
    const gz = join(dir(), "oci.tar.gz");
    writeFileSync(gz, gzipSync(tarOf(uncompressed.files)));
    const before = uploads(em);
    expect((await push(to, gz)).digest).toBe(uncompressed.manifestDigest);
    expect(uploads(em)).toBe(before);
  });

  it("pushes an index of platforms after the manifests it names", async () => {
    const em = await startTestEmulator();
    const to = await target(em);
    const amd = ociLayout(makeTestImage("amd64"));
    const arm = ociLayout(makeTestImage("arm64"));
    const files = { ...amd.files, ...arm.files };
    const manifests = [amd, arm].map((layout, i) => ({
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      digest: layout.manifestDigest,
      size: layout.files[`blobs/sha256/${layout.manifestDigest.slice(7)}`]!.length,
      platform: { os: "linux", architecture: i === 0 ? "amd64" : "arm64" },
    }));
    const index = Buffer.from(
      JSON.stringify({ schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json", manifests }),
    );
    files[`blobs/sha256/${sha256(index).slice(7)}`] = index;
    files["index.json"] = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        manifests: [
          { mediaType: "application/vnd.oci.image.index.v1+json", digest: sha256(index), size: index.length },
        ],
      }),
    );
    const layoutDir = dir();
    writeTree(layoutDir, files);
    const result = await push(to, layoutDir);
    expect(result.digest).toBe(sha256(index));
    expect(result.uploaded.blobs).toBe(8);
  });

  it("uploads in chunks when a blob is larger than one request should carry", async () => {
    const em = await startTestEmulator();
    const to = await target(em);
    const layoutDir = dir();
    const layout = ociLayout(makeTestImage("chunks"));
    writeTree(layoutDir, layout.files);
    const sent: number[] = [];
    const progress: PushProgress = {
      blob: () => {},
      bytes: (_blob, bytes) => sent.push(bytes),
      manifest: () => {},
      retry: () => {},
    };
    const result = await push(to, layoutDir, { monolithicMaxBytes: 1000, chunkBytes: 1024, progress });
    expect(result.digest).toBe(layout.manifestDigest);
    expect(em.emulator.stats().requests["PATCH /v2/{name}/blobs/uploads/{id}"]).toBeGreaterThan(3);
    expect(sent).toContain(1024);
  });

  it("retries an upload whose connection the registry dropped, and a 503", async () => {
    const em = await startTestEmulator();
    const to = await target(em);
    const file = join(dir(), "image.tar");
    writeFileSync(file, dockerArchive(makeTestImage("drop")));
    em.emulator.addFault({ method: "PUT", path: "/v2/deployments/*/agent/blobs/uploads/*", drop: "before" });
    em.emulator.addFault({ method: "PUT", path: "/v2/deployments/*/agent/blobs/uploads/*", drop: "after" });
    em.emulator.addFault({ method: "PUT", path: "/v2/deployments/*/agent/manifests/v1", status: 503 });
    const retries: string[] = [];
    const result = await push(to, file, {
      progress: { blob: () => {}, bytes: () => {}, manifest: () => {}, retry: (what) => retries.push(what) },
    });
    expect(retries).toHaveLength(3);
    expect(retries.at(-1)).toMatch(/manifest/);
    const stored = await storedManifest(em, to, result.repository, "v1");
    expect(sha256(stored.body)).toBe(result.digest);
  });

  it("gets one new token when the registry refuses one mid-push (expired), and stops with exit 3 when the new one is refused too", async () => {
    const em = await startTestEmulator();
    const to = await target(em);
    const file = join(dir(), "image.tar");
    writeFileSync(file, dockerArchive(makeTestImage("expire")));
    let moved = false;
    const trace: string[] = [];
    const result = await push(to, file, {
      trace,
      progress: {
        blob: (_blob, state) => {
          // The token expires once the first blob is up.
          if (state === "uploaded" && !moved) {
            moved = true;
            em.advance(PUSH_TOKEN_LIFETIME_MS);
          }
        },
        bytes: () => {},
        manifest: () => {},
        retry: () => {},
      },
    });
    expect(to.tokens.issued).toBe(1);
    expect(result.uploaded.blobs).toBe(4);
    expect(trace.join("\n")).toContain("asking the control plane for a new one");
    expect(trace.join("\n")).not.toContain(to.tokens.current());
    expect(trace.join("\n")).not.toMatch(/cpr1\./);

    const refused = await target(em);
    const stale = refused.tokens.current();
    refused.tokens.renew = async () => {
      refused.tokens.issued++;
      return stale;
    };
    em.advance(PUSH_TOKEN_LIFETIME_MS);
    const error = await failure(push(refused, file), ApiError);
    expect(error.status).toBe(401);
    expect(exitCodeOf(error)).toBe(3);
    expect(error.message).toMatch(/refused the push token.*and a new one too/);
    expect(error.message).not.toContain(stale);
    expect(refused.tokens.issued).toBe(1);
  });
});

describe("archives that are not images", () => {
  it("names the formats read for a file that is none of them", async () => {
    const file = join(dir(), "notes.txt");
    writeFileSync(file, "hello");
    const error = await failure(openImageArchive(file, { cwd: "/" }), UsageError);
    expect(error.message).toMatch(/not an image archive.*docker save.*OCI image layout/);
    const tar = join(dir(), "other.tar");
    writeFileSync(tar, tarOf({ "README.md": "hi" }));
    expect((await failure(openImageArchive(tar, { cwd: "/" }), UsageError)).message).toMatch(
      /no manifest\.json or index\.json/,
    );
    expect(
      (await failure(openImageArchive(join(dir(), "missing.tar"), { cwd: "/" }), UsageError)).message,
    ).toMatch(/does not exist/);
  });

  it("refuses an archive of several images, naming them, and a layer that does not match its diff_id", async () => {
    const image = makeTestImage("several");
    const archive = JSON.parse(
      dockerArchive(image)
        .subarray(0)
        .toString("latin1")
        .match(/\[\{"Config".*?\]\}\]/)![0],
    );
    const two = tarOf({
      "manifest.json": JSON.stringify([archive[0], { ...archive[0], RepoTags: ["b:2"] }]),
    });
    const file = join(dir(), "two.tar");
    writeFileSync(file, two);
    expect((await failure(openImageArchive(file, { cwd: "/" }), UsageError)).message).toMatch(
      /holds 2 images \(example\/agent:latest, b:2\)/,
    );

    const broken = { ...image, layers: [...image.layers] };
    const config = JSON.parse(image.config.toString());
    config.rootfs.diff_ids[1] = sha256("something else");
    const damaged = join(dir(), "damaged.tar");
    writeFileSync(damaged, dockerArchive({ ...broken, config: Buffer.from(JSON.stringify(config)) }));
    expect((await failure(openImageArchive(damaged, { cwd: "/" }), UsageError)).message).toMatch(
      /damaged.*layer 2\/3 does not match its diff_id/,
    );
  });

  it("a damaged blob (one byte changed, size kept) is found before anything is sent: OCI layout directory or tar, docker archive", async () => {
    const image = makeTestImage("flipped", 3);
    const flip = (data: Buffer, at = Math.floor(data.length / 2)) => {
      const copy = Buffer.from(data);
      copy[at] = copy[at]! ^ 0x01;
      return copy;
    };
    for (const gzip of [false, true]) {
      const layout = ociLayout(image, { gzip });
      const manifest = JSON.parse(layout.files[`blobs/sha256/${layout.manifestDigest.slice(7)}`]!.toString());
      const layer = `blobs/sha256/${manifest.layers[1].digest.slice(7)}`;
      const files = { ...layout.files, [layer]: flip(layout.files[layer]!) };
      const root = dir();
      writeTree(root, files);
      const tar = join(dir(), "oci.tar");
      writeFileSync(tar, tarOf(files));
      for (const archive of [root, tar]) {
        const error = await failure(openImageArchive(archive, { cwd: "/" }), UsageError);
        expect(error.message).toMatch(
          new RegExp(
            `damaged.*layer 2/3 ${manifest.layers[1].digest} \\(${layer}\\) does not match its digest`,
          ),
        );
      }
      // The config, still valid JSON with one letter changed.
      const config = `blobs/sha256/${manifest.config.digest.slice(7)}`;
      const changed = Buffer.from(layout.files[config]!.toString().replace("amd64", "amd65"));
      const root2 = dir();
      writeTree(root2, { ...layout.files, [config]: changed });
      expect((await failure(openImageArchive(root2, { cwd: "/" }), UsageError)).message).toMatch(
        /damaged.*the config sha256:[a-f0-9]{64} .* does not match its digest/,
      );
    }

    // A docker archive's gzipped layer, checked against its diff_id; its config, against its name.
    const gzipped = dockerArchive({ ...image, layers: image.layers.map((layer) => gzipSync(layer)) });
    const good = join(dir(), "gzipped.tar");
    writeFileSync(good, gzipped);
    (await openImageArchive(good, { cwd: "/" })).close();
    const tampered = { ...image, layers: image.layers.map((layer) => gzipSync(layer)) };
    tampered.layers[0] = flip(tampered.layers[0]!, tampered.layers[0]!.length - 30);
    const bad = join(dir(), "tampered.tar");
    writeFileSync(bad, dockerArchive(tampered));
    expect((await failure(openImageArchive(bad, { cwd: "/" }), UsageError)).message).toMatch(
      /damaged.*layer 1\/3/,
    );
    const configName = `${sha256(image.config).slice(7)}.json`;
    const archive = dir();
    writeTree(archive, {
      [configName]: Buffer.from(image.config.toString().replace("amd64", "amd65")),
      "manifest.json": Buffer.from(JSON.stringify([{ Config: configName, Layers: [] }])),
    });
    expect((await failure(openImageArchive(archive, { cwd: "/" }), UsageError)).message).toMatch(
      /damaged.*the config .* does not match the digest its name gives/,
    );
  });

  it("a gzipped archive that unpacks past its bound (a gzip bomb): exit 2 saying so, how to push a real one", async () => {
    const bomb = join(dir(), "bomb.tar.gz");
    // A tar whose one file is 80 MiB of zeros: about 80 KiB gzipped.
    const header = tarOf({ "manifest.json": "[]" }).subarray(0, 512);
    writeFileSync(bomb, gzipSync(Buffer.concat([header, Buffer.alloc(80 * 1024 * 1024)])));
    const error = await failure(openImageArchive(bomb, { cwd: "/" }), UsageError);
    expect(error.message).toMatch(
      /bomb\.tar\.gz unpacks to more than 64 MiB .*gunzip -k .*bomb\.tar\.gz.* push the \.tar/,
    );
  });

  it("compresses a layer listed many times once (the same path, or links to one entry)", async () => {
    const image = makeTestImage("repeated", 1);
    const config = JSON.parse(image.config.toString());
    config.rootfs.diff_ids = Array(50).fill(config.rootfs.diff_ids[0]);
    const repeated = Buffer.from(JSON.stringify(config));
    const archive = dir();
    writeTree(archive, {
      "config.json": repeated,
      "layer.tar": image.layers[0]!,
      "manifest.json": Buffer.from(
        JSON.stringify([{ Config: "config.json", Layers: Array(50).fill("layer.tar") }]),
      ),
    });
    const notes: string[] = [];
    const opened = await openImageArchive(archive, { cwd: "/", note: (text) => notes.push(text) });
    try {
      expect(notes.filter((note) => note.startsWith("compressing"))).toHaveLength(1);
      expect(opened.plan.blobs).toHaveLength(2);
      const manifest = JSON.parse(opened.plan.manifests[0]!.bytes.toString());
      expect(manifest.layers).toHaveLength(50);
      expect(new Set(manifest.layers.map((layer: { digest: string }) => layer.digest)).size).toBe(1);
    } finally {
      opened.close();
    }

    // In a tar: a second entry that links to the first.
    const tar = join(dir(), "linked.tar");
    const twice = Buffer.from(
      JSON.stringify({ ...config, rootfs: { type: "layers", diff_ids: config.rootfs.diff_ids.slice(0, 2) } }),
    );
    const manifestJson = Buffer.from(
      JSON.stringify([{ Config: "config.json", Layers: ["a/layer.tar", "b/layer.tar"] }]),
    );
    const entries = [
      entryHeader({ path: "config.json", type: "file", mode: 0o644, size: twice.length }),
      twice,
      padding(twice.length),
      entryHeader({ path: "a/layer.tar", type: "file", mode: 0o644, size: image.layers[0]!.length }),
      image.layers[0]!,
      padding(image.layers[0]!.length),
      symlinkEntry("b/layer.tar", "../a/layer.tar"),
      entryHeader({ path: "manifest.json", type: "file", mode: 0o644, size: manifestJson.length }),
      manifestJson,
      padding(manifestJson.length),
      endOfArchive(),
    ];
    writeFileSync(tar, Buffer.concat(entries));
    notes.length = 0;
    (await openImageArchive(tar, { cwd: "/", note: (text) => notes.push(text) })).close();
    expect(notes.filter((note) => note.startsWith("compressing"))).toHaveLength(1);
  });

  it("follows no symbolic link in a directory: a blob, a directory on its path or a JSON file linked, outside or inside", async () => {
    const image = makeTestImage("linked", 1);
    const layout = ociLayout(image);
    const configPath = `blobs/sha256/${sha256(image.config).slice(7)}`;
    // The link's target holds the very bytes expected, so only the link itself is at fault.
    const outside = dir();
    writeTree(outside, layout.files);
    const cases: [string, (root: string) => void, RegExp][] = [
      [
        "a blob linked to a file outside",
        (root) => {
          rmSync(join(root, configPath));
          symlinkSync(join(outside, configPath), join(root, configPath));
        },
        new RegExp(`${configPath} is a symbolic link`),
      ],
      [
        "a directory on the path linked outside",
        (root) => {
          rmSync(join(root, "blobs"), { recursive: true });
          symlinkSync(join(outside, "blobs"), join(root, "blobs"));
        },
        /blobs is a symbolic link/,
      ],
      [
        "index.json linked to a file inside",
        (root) => {
          renameSync(join(root, "index.json"), join(root, "real-index.json"));
          symlinkSync("real-index.json", join(root, "index.json"));
        },
        /index\.json is a symbolic link/,
      ],
    ];
    for (const [what, plant, message] of cases) {
      const root = dir();
      writeTree(root, layout.files);
      plant(root);
      const error = await failure(openImageArchive(root, { cwd: "/" }), UsageError);
      expect(error.message, what).toMatch(message);
      expect(error.message, what).toMatch(/follows no link/);
      expect(exitCodeOf(error)).toBe(2);
    }

    // A docker archive directory whose config is a link out of it.
    const archive = dir();
    writeTree(archive, {
      "manifest.json": Buffer.from(JSON.stringify([{ Config: "config.json", Layers: ["layer.tar"] }])),
      "layer.tar": image.layers[0]!,
    });
    writeFileSync(join(outside, "config.json"), image.config);
    symlinkSync(join(outside, "config.json"), join(archive, "config.json"));
    expect((await failure(openImageArchive(archive, { cwd: "/" }), UsageError)).message).toMatch(
      /config\.json is a symbolic link/,
    );
  });

  it("follows a layer stored as a symbolic link inside the archive (older docker save), never outside it", async () => {
    const em = await startTestEmulator();
    const to = await target(em);
    const image = makeTestImage("links", 1);
    const layout = dir();
    writeTree(layout, {
      "config.json": image.config,
      "a/layer.tar": image.layers[0]!,
      "manifest.json": Buffer.from(JSON.stringify([{ Config: "config.json", Layers: ["b/layer.tar"] }])),
    });
    symlinkSync("../a/layer.tar", join(layout, "b-link"));
    // A directory's own symlinks are not followed out of it: the layer must be a real path.
    const escaping = await failure(openImageArchive(layout, { cwd: "/" }), UsageError);
    expect(escaping.message).toMatch(/layer 1\/1 \(b\/layer.tar\) is missing/);

    const tarWithLink = join(dir(), "linked.tar");
    const link = symlinkEntry("b/layer.tar", "../a/layer.tar");
    const files = [
      entryHeader({ path: "config.json", type: "file", mode: 0o644, size: image.config.length }),
      image.config,
      padding(image.config.length),
      entryHeader({ path: "a/layer.tar", type: "file", mode: 0o644, size: image.layers[0]!.length }),
      image.layers[0]!,
      padding(image.layers[0]!.length),
      link,
    ];
    const manifest = Buffer.from(JSON.stringify([{ Config: "config.json", Layers: ["b/layer.tar"] }]));
    files.push(
      entryHeader({ path: "manifest.json", type: "file", mode: 0o644, size: manifest.length }),
      manifest,
      padding(manifest.length),
      endOfArchive(),
    );
    writeFileSync(tarWithLink, Buffer.concat(files));
    const result = await push(to, tarWithLink);
    expect(result.uploaded.blobs).toBe(2);
  });
});
