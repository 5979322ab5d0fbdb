// The registry with --state: blobs and repository records in FILE.registry/, kept across a
// restart, never torn, tidied after a crash (uploads under way, temp files, blobs nothing names).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../../../test/helpers/emulator.js";
import { failure } from "../../../test/helpers/failure.js";
import { makeTestImage, sha256 } from "../../../test/helpers/images.js";
import { pushToken, rawPush, registry, repositoryOf } from "../../../test/helpers/registry.js";
import { ManualClock } from "../clock.js";
import { EmulatorStartError } from "../start-error.js";

afterEach(closeTestEmulators);

const stateFile = () => join(mkdtempSync(join(tmpdir(), "cpctl-registry-state-")), "cp.state.json");

describe("the registry with --state", () => {
  it("keeps blobs, manifests and tags across a restart; a token issued before still works", async () => {
    const path = stateFile();
    const clock = new ManualClock();
    const first = await startTestEmulator({ statePath: path, clock });
    const deployment = await first.createDeployment("internal_container");
    const target = await pushToken(first, deployment.id);
    const image = makeTestImage("restart");
    const { digest, manifest } = await rawPush(first, target.token, repositoryOf(target), image, "v1");
    await first.close();

    const blobs = readdirSync(join(`${path}.registry`, "blobs", "sha256"));
    expect(blobs.sort()).toEqual(
      [image.config, ...image.layers, manifest].map((d) => sha256(d).slice(7)).sort(),
    );
    expect(readdirSync(join(`${path}.registry`, "repositories"))).toHaveLength(1);

    const second = await startTestEmulator({ statePath: path, clock });
    const stored = await registry(second, "GET", `/v2/${repositoryOf(target)}/manifests/v1`, {
      token: target.token,
    });
    expect(stored.status).toBe(200);
    expect(stored.headers["docker-content-digest"]).toBe(digest);
    const layer = await registry(
      second,
      "GET",
      `/v2/${repositoryOf(target)}/blobs/${sha256(image.layers[0]!)}`,
      {
        token: target.token,
      },
    );
    expect(layer.status).toBe(200);
    expect(layer.headers["content-length"]).toBe(String(image.layers[0]!.length));
  });

  it("removes what a crash leaves (uploads under way, temp files, blobs nothing names) and keeps the rest", async () => {
    const path = stateFile();
    const first = await startTestEmulator({ statePath: path });
    const deployment = await first.createDeployment("internal_container");
    const target = await pushToken(first, deployment.id);
    const { digest } = await rawPush(first, target.token, repositoryOf(target), makeTestImage("crash"));
    await first.close();

    const root = `${path}.registry`;
    mkdirSync(join(root, "uploads"), { recursive: true });
    writeFileSync(join(root, "uploads", "half-an-upload"), "partial");
    const orphan = sha256("uploaded, never named");
    writeFileSync(join(root, "blobs", "sha256", orphan.slice(7)), "uploaded, never named");
    writeFileSync(join(root, "blobs", "sha256", `.${"a".repeat(64)}.123.1.tmp`), "torn");
    writeFileSync(join(root, "repositories", ".record.123.1.tmp"), "{");

    const second = await startTestEmulator({ statePath: path });
    expect(existsSync(join(root, "uploads", "half-an-upload"))).toBe(false);
    expect(existsSync(join(root, "blobs", "sha256", orphan.slice(7)))).toBe(false);
    expect(readdirSync(join(root, "blobs", "sha256")).some((name) => name.endsWith(".tmp"))).toBe(false);
    expect(readdirSync(join(root, "repositories"))).toHaveLength(1);
    const stored = await registry(second, "HEAD", `/v2/${repositoryOf(target)}/manifests/${digest}`, {
      token: target.token,
    });
    expect(stored.status).toBe(200);
  });

  it("refuses to start on a repository record that is not one, naming it", async () => {
    const path = stateFile();
    const first = await startTestEmulator({ statePath: path });
    const deployment = await first.createDeployment("internal_container");
    const target = await pushToken(first, deployment.id);
    await rawPush(first, target.token, repositoryOf(target), makeTestImage("bad-record"));
    await first.close();
    const records = join(`${path}.registry`, "repositories");
    const [record] = readdirSync(records);
    writeFileSync(join(records, record!), "not json");
    const error = await failure(startTestEmulator({ statePath: path }), EmulatorStartError);
    expect(error.message).toContain(record!);
    // The state file's lock was released: a start after fixing it works.
    writeFileSync(
      join(records, record!),
      JSON.stringify({ name: "x/y", blobs: [], manifests: {}, tags: {} }),
    );
    await startTestEmulator({ statePath: path });
  });

  it("removes a deleted deployment's repository and the blobs only it held", async () => {
    const path = stateFile();
    const em = await startTestEmulator({ statePath: path });
    const kept = await em.createDeployment("internal_container");
    const gone = await em.createDeployment("internal_container");
    const shared = makeTestImage("shared");
    await rawPush(
      em,
      (await pushToken(em, kept.id)).token,
      repositoryOf(await pushToken(em, kept.id)),
      shared,
    );
    const goneTarget = await pushToken(em, gone.id);
    await rawPush(em, goneTarget.token, repositoryOf(goneTarget), shared);
    await rawPush(em, goneTarget.token, repositoryOf(goneTarget, "other"), makeTestImage("only-gone", 1));
    const root = `${path}.registry`;
    expect(readdirSync(join(root, "repositories"))).toHaveLength(3);
    expect((await em.delete(`/v2/deployments/${gone.id}`)).status).toBe(204);
    expect(readdirSync(join(root, "repositories"))).toHaveLength(1);
    const left = readdirSync(join(root, "blobs", "sha256"));
    for (const data of [shared.config, ...shared.layers]) expect(left).toContain(sha256(data).slice(7));
    expect(left).toHaveLength(5);
  });
});
