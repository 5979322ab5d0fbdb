// Real clients of the OCI distribution API against the emulator's registry: skopeo copies
// images in (an OCI layout, a docker archive) and out again, with a push token in an auth file;
// docker's own `login` goes through the registry's challenge and token service; and
// `deploy push --image` drives a real podman. Each is skipped, visibly, where its client is not
// installed (.ci/run installs skopeo and podman).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { PUSH_TOKEN_LIFETIME_MS } from "../../src/emulator/registry/tokens.js";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { dockerArchive, makeTestImage, ociLayout, sha256, writeTree } from "../helpers/images.js";
import { pushToken, registry, repositoryOf } from "../helpers/registry.js";
import { cliEnv, instantClock, runCli } from "../helpers/run-cli.js";

function installed(command: string): boolean {
  return spawnSync(command, ["--version"], { stdio: "ignore" }).status === 0;
}
/** podman installed and able to run here (its storage and runtime set up), not only on PATH. */
const podmanWorks = () =>
  installed("podman") && spawnSync("podman", ["info"], { stdio: "ignore" }).status === 0;
const HAS = { skopeo: installed("skopeo"), docker: installed("docker"), podman: podmanWorks() };
const needs = (client: keyof typeof HAS) => (HAS[client] ? "" : ` (skipped: ${client} is not installed)`);
for (const client of ["skopeo", "docker", "podman"] as const) {
  if (!HAS[client]) {
    console.warn(
      `SKIPPED: ${client} is not installed (or cannot run here), so it does not push to the emulator's registry (.ci/run installs skopeo and podman)`,
    );
  }
}

afterEach(closeTestEmulators);

const dir = () => mkdtempSync(join(tmpdir(), "cpctl-oci-client-"));

/** Runs a client without blocking: the emulator it talks to runs in this process. */
async function run(command: string, args: string[], input?: string) {
  const result = await execa(command, args, { input, reject: false, timeout: 60_000, all: true });
  return { code: result.exitCode, output: result.all ?? "" };
}

/** An auth file as containers/image reads it: the token stays out of argv. */
function authFile(host: string, token: string): string {
  const file = join(dir(), "auth.json");
  writeFileSync(
    file,
    JSON.stringify({
      auths: { [host]: { auth: Buffer.from(`oauth2accesstoken:${token}`).toString("base64") } },
    }),
  );
  return file;
}

describe.skipIf(!HAS.skopeo)(`skopeo and the emulator's registry${needs("skopeo")}`, () => {
  it("copies an OCI layout and a docker archive in, and an image out; the pushed digest deploys", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_container");
    const target = await pushToken(em, deployment.id);
    const auth = authFile(em.emulator.registry.host, target.token);
    const image = makeTestImage("skopeo");

    const layout = ociLayout(image, { gzip: true });
    const layoutDir = dir();
    writeTree(layoutDir, layout.files);
    const copied = await run("skopeo", [
      "copy",
      "--dest-tls-verify=false",
      "--dest-authfile",
      auth,
      `oci:${layoutDir}`,
      `docker://${target.registry_url}/agent:v1`,
    ]);
    expect(copied.code, copied.output).toBe(0);
    const raw = await run("skopeo", [
      "inspect",
      "--tls-verify=false",
      "--authfile",
      auth,
      "--raw",
      `docker://${target.registry_url}/agent:v1`,
    ]);
    expect(raw.code, raw.output).toBe(0);
    const digest = sha256(raw.output);
    // skopeo sent the layout's manifest as it was (its layers are compressed already).
    expect(digest).toBe(layout.manifestDigest);

    const archive = join(dir(), "image.tar");
    writeFileSync(archive, dockerArchive(makeTestImage("skopeo-docker")));
    const fromArchive = await run("skopeo", [
      "copy",
      "--dest-tls-verify=false",
      "--dest-authfile",
      auth,
      `docker-archive:${archive}`,
      `docker://${target.registry_url}/agent:v2`,
    ]);
    expect(fromArchive.code, fromArchive.output).toBe(0);

    const out = dir();
    const pulled = await run("skopeo", [
      "copy",
      "--src-tls-verify=false",
      "--src-authfile",
      auth,
      `docker://${target.registry_url}/agent:v1`,
      `oci:${out}`,
    ]);
    expect(pulled.code, pulled.output).toBe(0);

    const patched = await em.patch(`/v2/deployments/${deployment.id}`, {
      revision_source: "internal_container",
      source_revision_config: { image_uri: `${target.registry_url}/agent@${digest}` },
    });
    em.settle();
    const revision = await em.get(
      `/v2/deployments/${deployment.id}/revisions/${patched.json.latest_revision_id}`,
    );
    expect(revision.json.status).toBe("DEPLOYED");
    const tags = await registry(em, "GET", `/v2/${repositoryOf(target)}/tags/list`, { token: target.token });
    expect(tags.json.tags).toEqual(["v1", "v2"]);
  });

  it("is refused with a token of another deployment's tenant or an expired one", async () => {
    const em = await startTestEmulator();
    const mine = await em.createDeployment("internal_container");
    const target = await pushToken(em, mine.id);
    const layoutDir = dir();
    writeTree(layoutDir, ociLayout(makeTestImage("refused")).files);
    const theirs = (
      await em.post("/v2/deployments", em.createBody("internal_container", "theirs"), { auth: "other" })
    ).json;
    const theirToken = (
      await em.post(`/v2/deployments/${theirs.id}/push-token`, undefined, { auth: "other" })
    ).json.token;
    const refused = await run("skopeo", [
      "copy",
      "--dest-tls-verify=false",
      "--dest-authfile",
      authFile(em.emulator.registry.host, theirToken),
      `oci:${layoutDir}`,
      `docker://${target.registry_url}/agent:v1`,
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(/403|denied/i);

    em.advance(PUSH_TOKEN_LIFETIME_MS);
    const expired = await run("skopeo", [
      "copy",
      "--dest-tls-verify=false",
      "--dest-authfile",
      authFile(em.emulator.registry.host, target.token),
      `oci:${layoutDir}`,
      `docker://${target.registry_url}/agent:v1`,
    ]);
    expect(expired.code).not.toBe(0);
    expect(expired.output).toMatch(/401|unauthorized|authentication required/i);
  });
});

describe.skipIf(!HAS.docker)(`docker login to the emulator's registry${needs("docker")}`, () => {
  it("logs in with oauth2accesstoken and a push token on stdin, and is refused with a wrong one", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_container");
    const target = await pushToken(em, deployment.id);
    const host = em.emulator.registry.host;
    const login = (token: string) =>
      run(
        "docker",
        ["--config", dir(), "login", "--username", "oauth2accesstoken", "--password-stdin", host],
        `${token}\n`,
      );
    const good = await login(target.token);
    expect(good.code, good.output).toBe(0);
    expect(good.output).toContain("Login Succeeded");
    const bad = await login(`${target.token}x`);
    expect(bad.code).not.toBe(0);
  });
});

describe.skipIf(!HAS.podman)(`deploy push --image with a real podman${needs("podman")}`, () => {
  it("pushes an image from podman's store and deploys its digest; the user's auth files stay unwritten", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const tag = `localhost/cpctl-podman-test:${process.pid}-${Date.now()}`;
    const archive = join(dir(), "image.tar");
    writeFileSync(archive, dockerArchive(makeTestImage("podman"), [tag]));
    const loaded = await run("podman", ["load", "--input", archive]);
    expect(loaded.code, loaded.output).toBe(0);
    const home = dir();
    const runtime = dir();
    try {
      const result = await runCli(
        [
          "deploy",
          "push",
          "--image",
          tag,
          "--engine",
          "podman",
          "--name",
          "podman-agent",
          "--yes",
          "-o",
          "json",
        ],
        {
          env: cliEnv(em, { PATH: process.env.PATH ?? "", HOME: home, XDG_RUNTIME_DIR: runtime }),
          clock: instantClock(Date.now(), (ms) => em.advance(ms)),
        },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ result: "deployed", created: true });
      const deployment = (await em.get("/v2/deployments?name=podman-agent")).json.resources[0];
      const imageUri: string = deployment.source_revision_config.image_uri;
      expect(imageUri).toMatch(new RegExp(`^${em.emulator.registry.host}/.+@sha256:[0-9a-f]{64}$`));
      // The digest patched in is the manifest the registry holds.
      const [repository, digest] = imageUri.slice(em.emulator.registry.host.length + 1).split("@");
      const target = await pushToken(em, deployment.id);
      const manifest = await fetch(
        `http://${em.emulator.registry.host}/v2/${repository}/manifests/${digest}`,
        {
          headers: { Authorization: `Bearer ${target.token}` },
        },
      );
      expect(manifest.status).toBe(200);
      expect(sha256(Buffer.from(await manifest.arrayBuffer()))).toBe(digest);
      // podman's login went to a private directory: none of the user's auth files was written.
      for (const file of [
        join(home, ".config", "containers", "auth.json"),
        join(home, ".docker", "config.json"),
        join(runtime, "containers", "auth.json"),
      ])
        expect(existsSync(file), file).toBe(false);
    } finally {
      await run("podman", ["rmi", "--force", tag]);
    }
  });
});
