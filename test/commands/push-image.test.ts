// `deploy push --image IMAGE | --image-archive FILE` (issue 21), end to end against the
// emulator and its registry: find or create the internal_container deployment, a push token,
// the push (over the OCI distribution API from an archive made here, or through stand-in docker
// and podman), image_uri patched as REGISTRY/NAME@sha256:..., the wait; and everything that goes
// wrong on the way.
import { createHash } from "node:crypto";
import { existsSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { makeStandIns } from "../helpers/engine-standin.js";
import { dockerArchive, makeTestImage, ociLayout, sha256, tarOf, writeTree } from "../helpers/images.js";
import { startProxy } from "../helpers/proxy.js";
import { registry } from "../helpers/registry.js";
import { cliEnv, freshDir, instantClock, runCli } from "../helpers/run-cli.js";
import { ctrlCAt, emulatorEvent } from "../reliability/helpers.js";

afterEach(closeTestEmulators);

const count = (em: TestEmulator, route: string) => em.emulator.stats().requests[route] ?? 0;
const CREATE = "POST /v2/deployments";
const TOKEN = "POST /v2/deployments/{deployment_id}/push-token";
const PATCH = "PATCH /v2/deployments/{deployment_id}";
const BLOB_UPLOAD = "POST /v2/{name}/blobs/uploads/";
/** Every push token the emulator signs starts so: none may reach any output. */
const TOKEN_MARK = "cpr1.";

function run(em: TestEmulator, args: string[], extra: Parameters<typeof runCli>[1] = {}) {
  return runCli(["deploy", "push", ...args, "--interval", "1s"], {
    env: cliEnv(em, { ...(extra.env as Record<string, string>) }),
    clock: instantClock(Date.now(), (ms) => em.advance(ms)),
    ...Object.fromEntries(Object.entries(extra).filter(([key]) => key !== "env")),
  });
}

function archiveFile(seed: string, layers = 3): string {
  const file = join(freshDir("image"), `${seed}.tar`);
  writeFileSync(file, dockerArchive(makeTestImage(seed, layers)));
  return file;
}

async function deploymentNamed(em: TestEmulator, name: string) {
  return (await em.get(`/v2/deployments?name=${name}`)).json.resources;
}

/** The manifest the registry stored under image_uri, read with a fresh token. */
async function storedManifest(em: TestEmulator, deploymentId: string, imageUri: string): Promise<Buffer> {
  const token = (await em.post(`/v2/deployments/${deploymentId}/push-token`)).json.token;
  const [name, digest] = imageUri.slice(imageUri.indexOf("/") + 1).split("@");
  const response = await registry(em, "GET", `/v2/${name}/manifests/${digest}`, { token });
  expect(response.status).toBe(200);
  return Buffer.from(response.text);
}

describe("deploy push --image-archive", () => {
  it("creates the internal_container deployment, pushes, patches image_uri by digest, waits for DEPLOYED", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const r = await run(em, ["--image-archive", archiveFile("fresh"), "--name", "My Agent", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ created: true, uploaded: true, result: "deployed" });
    expect(result.revision.status).toBe("DEPLOYED");
    expect(result.deployment.source).toBe("internal_container");
    const [deployment] = await deploymentNamed(em, "My%20Agent");
    const imageUri: string = deployment.source_revision_config.image_uri;
    expect(imageUri).toBe(result.image_uri);
    expect(imageUri).toMatch(
      new RegExp(`^${em.emulator.registry.host}/deployments/${deployment.id}/my-agent@sha256:[a-f0-9]{64}$`),
    );
    // The digest deployed is the sha256 of the manifest the registry stored.
    const manifest = await storedManifest(em, deployment.id, imageUri);
    expect(imageUri.endsWith(`@${sha256(manifest)}`)).toBe(true);
    expect(result.sha256).toBe(sha256(manifest).slice(7));
    const revision = await em.get(`/v2/deployments/${deployment.id}/revisions/${result.revision.id}`);
    expect(revision.json.source).toBe("internal_container");
    expect([r.stdout, r.stderr].join("\n")).not.toContain(TOKEN_MARK);
  });

  it("numbers its steps on stderr, the push's summary among them", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const r = await run(em, ["--image-archive", archiveFile("steps"), "--name", "steps"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^1\. Read docker archive \S+ \(example\/agent:latest\): 4 blobs, .* sha256:/m);
    expect(r.stderr).toMatch(/^2\. Created deployment steps \(/m);
    expect(r.stderr).toMatch(
      /^3\. Pushed \S+\/steps:\d{8}-\d{6}-[a-f0-9]{12} \(sha256:[a-f0-9]{64}\): 4 blobs, 4 uploaded/m,
    );
    expect(r.stderr).toMatch(/^4\. Started revision /m);
    expect(r.stdout).toMatch(/^image\t\S+\/steps@sha256:/m);
    expect(r.stdout).toMatch(/^result\tdeployed after /m);
  });

  it("an OCI layout: its own manifest digest is deployed; pushed again, nothing is sent; --force sends no blob", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const layout = ociLayout(makeTestImage("oci"), { gzip: true });
    const dir = freshDir("layout");
    writeTree(dir, layout.files);
    const first = await run(em, ["--image-archive", dir, "--name", "oci", "--tag", "v1", "-o", "json"]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).image_uri).toMatch(new RegExp(`/oci@${layout.manifestDigest}$`));

    const sent = [CREATE, TOKEN, PATCH, BLOB_UPLOAD].map((route) => count(em, route));
    const again = await run(em, ["--image-archive", dir, "--name", "oci", "-o", "json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`runs this image (${layout.manifestDigest}) already`);
    expect(JSON.parse(again.stdout)).toMatchObject({
      result: "unchanged",
      uploaded: false,
      image_uri: JSON.parse(first.stdout).image_uri,
    });
    expect([CREATE, TOKEN, PATCH, BLOB_UPLOAD].map((route) => count(em, route))).toEqual(sent);

    const forced = await run(em, ["--image-archive", dir, "--name", "oci", "--force", "-o", "json"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(forced.stdout).result).toBe("deployed");
    expect(count(em, BLOB_UPLOAD)).toBe(sent[3]);
    expect(count(em, PATCH)).toBe(sent[2]! + 1);
  });

  it("a new image to an existing deployment: a new revision; layers the registry has are not sent again", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const base = makeTestImage("base", 3);
    const file = join(freshDir("image"), "v1.tar");
    writeFileSync(file, dockerArchive(base));
    expect(
      (await run(em, ["--image-archive", file, "--name", "agent", "--secret", "KEEP=keep-1"])).code,
    ).toBe(0);
    // The same layers, another config: only the config goes.
    const next = { ...base, config: Buffer.from(base.config.toString().replace("layer 0", "layer 0 (v2)")) };
    writeFileSync(file, dockerArchive(next));
    const uploads = count(em, BLOB_UPLOAD);
    const r = await run(em, ["--image-archive", file, "--name", "agent", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(count(em, BLOB_UPLOAD) - uploads).toBe(1);
    expect(r.stderr).toMatch(/4 blobs, 1 uploaded .*, 3 already in the registry/);
    const [deployment] = await deploymentNamed(em, "agent");
    expect(deployment.secrets).toEqual([{ name: "KEEP", value: "keep-1" }]);
    expect(JSON.parse(r.stdout)).toMatchObject({ created: false, result: "deployed" });
  });

  it("-o ndjson: image, created, pushed, patched, status ... done, no token anywhere", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const r = await run(em, [
      "--image-archive",
      archiveFile("ndjson"),
      "--name",
      "nd",
      "-o",
      "ndjson",
      "--debug",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.map((e) => e.event).filter((e) => e !== "status" && e !== "log")).toEqual([
      "image",
      "created",
      "pushed",
      "patched",
      "done",
    ]);
    const pushed = events.find((e) => e.event === "pushed");
    expect(pushed.image_uri).toMatch(/\/nd@sha256:/);
    expect(pushed.blobs).toMatchObject({ uploaded: 4, skipped: 0 });
    expect(events.at(-1)).toMatchObject({ event: "done", result: "deployed", image_uri: pushed.image_uri });
    // --debug traced the registry too, and hid every credential.
    expect(r.stderr).toMatch(/HEAD http:\/\/127\.0\.0\.1:\d+\/v2\/deployments\//);
    expect(r.stderr).toContain("[redacted]");
    expect(r.stdout + r.stderr).not.toContain(TOKEN_MARK);
  });

  it("--dry-run reads the archive and says what would be created and pushed; nothing changes", async () => {
    const em = await startTestEmulator();
    const r = await run(em, [
      "--image-archive",
      archiveFile("dry"),
      "--name",
      "dry",
      "--dry-run",
      "-o",
      "json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout);
    expect(shown).toMatchObject({ action: "create", format: "docker-archive" });
    expect(shown.create).toMatchObject({ name: "dry", source: "internal_container" });
    expect(shown.blobs).toHaveLength(4);
    expect(r.stderr).toContain("dry run: nothing was created or pushed or patched");
    expect([CREATE, TOKEN, PATCH, BLOB_UPLOAD].map((route) => count(em, route))).toEqual([0, 0, 0, 0]);
  });
});

describe("deploy push --image (docker or podman)", () => {
  it("docker: the token only on stdin, a private --config gone afterwards; the pushed digest deploys", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const standIns = makeStandIns(makeTestImage("docker-cli"));
    const r = await run(em, ["--image", "my-agent:dev", "--name", "from-docker", "-o", "json", "--debug"], {
      env: { ...standIns.env, DOCKER_CONFIG: "/users/own/docker-config" },
    });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.image_uri).toMatch(new RegExp(`/from-docker@${standIns.digest}$`));
    expect(result).toMatchObject({ created: true, result: "deployed", bytes: null });

    const calls = standIns.calls();
    expect(calls.map((call) => call.args.find((a) => !a.startsWith("-") && !a.startsWith("/")))).toEqual([
      "image",
      "context",
      "login",
      "tag",
      "push",
    ]);
    const login = calls.find((call) => call.args.includes("login"))!;
    expect(login.stdin).toMatch(/^cpr1\.\S+\n$/);
    for (const call of calls) expect(call.args.join(" ")).not.toContain(TOKEN_MARK);
    for (const call of calls.filter((c) => !c.args.includes("login"))) expect(call.stdin).toBe("");
    // The user's own docker config is never what docker is pointed at.
    expect(login.configDir).not.toBe("/users/own/docker-config");
    expect(existsSync(login.configDir!)).toBe(false);
    expect(r.stdout + r.stderr).not.toContain(TOKEN_MARK);
    expect(r.stderr).toMatch(/^1\. Found docker image my-agent:dev \([a-f0-9]{12}\)$/m);
    const tag = calls.find((call) => call.args[0] === "tag")!.args.at(-1)!;
    expect(tag).toMatch(/\/from-docker:\d{8}-\d{6}-[a-f0-9]{12}$/);
  });

  it("the engine's own lines are relayed with the push token masked", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const standIns = makeStandIns(makeTestImage("echo-token"));
    const r = await run(em, ["--image", "my-agent:dev", "--name", "echo"], {
      env: { ...standIns.env, STANDIN_ECHO_TOKEN: "1" },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("  debug: pushing as oauth2accesstoken:**** (Authorization: Basic ****)\n");
    expect(r.stdout + r.stderr).not.toContain(TOKEN_MARK);
  });

  it("podman, chosen by --engine, with --tag", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const standIns = makeStandIns(makeTestImage("podman-cli"));
    const r = await run(
      em,
      ["--image", "localhost/agent:1", "--engine", "podman", "--name", "pod", "--tag", "v1.2"],
      {
        env: standIns.env,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const calls = standIns.calls();
    expect(calls.every((call) => call.engine === "podman")).toBe(true);
    expect(calls.find((call) => call.args[0] === "push")!.args.at(-1)).toMatch(/\/pod:v1\.2$/);
    const [deployment] = await deploymentNamed(em, "pod");
    expect(deployment.source_revision_config.image_uri).toMatch(new RegExp(`/pod@${standIns.digest}$`));
  });

  it("a push that keeps failing: exit 1, nothing patched and the message says so; the config directory is gone", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const standIns = makeStandIns(makeTestImage("failing-cli"));
    const r = await run(em, ["--image", "my-agent:dev", "--name", "failing"], {
      env: { ...standIns.env, STANDIN_FAIL_PUSHES: "9" },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/docker push \S+ failed 3 times.*connection reset by peer/);
    expect(r.stderr).toContain("Nothing was deployed");
    expect(r.stderr).toMatch(/deployment failing was created \([0-9a-f-]{36}\) but has no source yet/);
    expect(count(em, PATCH)).toBe(0);
    for (const call of standIns.calls()) if (call.configDir) expect(existsSync(call.configDir)).toBe(false);
  });

  it("no docker or podman: exit 2 naming both and --image-archive, nothing sent", async () => {
    const em = await startTestEmulator();
    const r = await run(em, ["--image", "my-agent:dev", "--name", "x"], {
      env: { PATH: freshDir("empty-path") },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/needs docker or podman, and neither is on PATH.*--image-archive/);
    expect(em.emulator.stats().total).toBe(0);
  });

  it("an image the engine does not have: exit 2 with the engine's words, nothing sent", async () => {
    const em = await startTestEmulator();
    const standIns = makeStandIns(makeTestImage("absent"));
    const r = await run(em, ["--image", "nope:1", "--name", "x"], {
      env: { ...standIns.env, STANDIN_MISSING: "nope:1" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("No such image: nope:1");
    expect(em.emulator.stats().total).toBe(0);
  });
});

describe("deploy push with an image through a proxy", () => {
  it("sends the push token request and every registry request through HTTP_PROXY", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const proxy = await startProxy();
    const r = await run(em, ["--image-archive", archiveFile("proxied", 1), "--name", "proxied"], {
      env: { HTTP_PROXY: proxy.url },
    });
    expect(r.code, r.stderr).toBe(0);
    const registryHost = em.emulator.registry.host;
    expect(proxy.forwarded).toContainEqual(
      expect.stringMatching(/^POST http:\/\/127\.0\.0\.1:\d+\/v2\/deployments\/[0-9a-f-]{36}\/push-token$/),
    );
    expect(proxy.forwarded).toContainEqual(
      expect.stringMatching(new RegExp(`^HEAD http://${registryHost}/v2/deployments/`)),
    );
    expect(proxy.forwarded).toContainEqual(
      expect.stringMatching(new RegExp(`^PUT http://${registryHost}/v2/.*/manifests/`)),
    );
    await proxy.close();
  });
});

describe("deploy push with an image: bad input and faults", () => {
  it("a file that is not an image archive: exit 2 saying which formats are read, nothing sent", async () => {
    const em = await startTestEmulator();
    const notes = join(freshDir("bad"), "notes.tar");
    writeFileSync(notes, tarOf({ "README.md": "hello" }));
    const r = await run(em, ["--image-archive", notes, "--name", "x"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not an image archive.*docker save.*OCI image layout/);
    expect(em.emulator.stats().total).toBe(0);
  });

  it("an OCI layout directory whose layer links out of it: exit 2 naming the file, nothing sent", async () => {
    const em = await startTestEmulator();
    const image = makeTestImage("link-out", 1);
    const layout = ociLayout(image, { gzip: true });
    const root = freshDir("layout");
    writeTree(root, layout.files);
    const layer = Object.keys(layout.files).find(
      (path) => path.startsWith("blobs/") && layout.files[path]![0] === 0x1f,
    )!;
    // Elsewhere on the machine, with the very bytes the layout expects.
    const elsewhere = join(freshDir("elsewhere"), "anything");
    writeFileSync(elsewhere, layout.files[layer]!);
    rmSync(join(root, layer));
    symlinkSync(elsewhere, join(root, layer));
    for (const extra of [[], ["--dry-run"]]) {
      const r = await run(em, ["--image-archive", root, "--name", "linked", ...extra]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${layer} is a symbolic link`);
    }
    expect(em.emulator.stats().total).toBe(0);
  });

  it("a damaged OCI layout (one byte of a layer changed, size kept): exit 2 with --dry-run and without, nothing sent", async () => {
    const em = await startTestEmulator();
    const layout = ociLayout(makeTestImage("damaged", 2), { gzip: true });
    const root = freshDir("layout");
    writeTree(root, layout.files);
    const layer = Object.keys(layout.files).find(
      (path) => path.startsWith("blobs/") && layout.files[path]![0] === 0x1f,
    )!;
    const bytes = Buffer.from(layout.files[layer]!);
    bytes[20] = bytes[20]! ^ 0xff;
    writeFileSync(join(root, layer), bytes);
    for (const extra of [["--dry-run"], []]) {
      const r = await run(em, ["--image-archive", root, "--name", "damaged", ...extra]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        /is damaged or incomplete: the layer \d\/2 sha256:\S+ \(blobs\/sha256\/\S+\) does not match its digest/,
      );
    }
    expect(em.emulator.stats().total).toBe(0);
  });

  it("flags that do not go together: exit 2, nothing sent", async () => {
    const em = await startTestEmulator();
    const file = archiveFile("flags", 1);
    const cases: [string[], RegExp][] = [
      [["--image", "a:1", "--image-archive", file], /--image and --image-archive: give one/],
      [[".", "--image-archive", file], /give no DIR/],
      [
        ["--image-archive", file, "--agent-config-path", "agent.json"],
        /--agent-config-path: only for a project directory/,
      ],
      [["--image-archive", file, "--max-size", "1MiB"], /--max-size: only for a project directory/],
      [["--image-archive", file, "--engine", "docker"], /--engine goes with --image/],
      [[".", "--tag", "v1"], /--tag go with --image or --image-archive/],
      [["--image-archive", file, "--tag", "-bad"], /--tag "-bad" is not a valid tag/],
    ];
    for (const [args, message] of cases) {
      const r = await run(em, [...args, "--name", "x"]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(em.emulator.stats().total).toBe(0);
  });

  it("an --image that starts with -: exit 2 naming --image, no engine run, nothing sent", async () => {
    const em = await startTestEmulator();
    const standIns = makeStandIns(makeTestImage("dash"));
    for (const args of [["--image=--config=/x"], ["--image", "-q"]]) {
      const r = await run(em, [...args, "--name", "x"], { env: standIns.env });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/--image "-[^"]*" starts with "-"/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(standIns.calls()).toEqual([]);
    expect(em.emulator.stats().total).toBe(0);
  });

  it("a deployment of another source: exit 2 naming it and the command that fits", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "source-agent");
    const r = await run(em, ["--image-archive", archiveFile("other", 1), "--name", "source-agent"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "has source internal_source: deploy push --image and --image-archive ship an image",
    );
    expect(r.stderr).toContain("cpctl deploy push DIR --name source-agent");
    expect(count(em, TOKEN)).toBe(0);
  });

  it("a registry that drops connections: retried, and the image deploys", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    em.emulator.addFault({
      method: "PUT",
      path: "/v2/deployments/*/drops/blobs/uploads/*",
      drop: "before",
      count: 2,
    });
    em.emulator.addFault({ method: "PUT", path: "/v2/deployments/*/drops/manifests/*", drop: "after" });
    const r = await run(em, ["--image-archive", archiveFile("drops"), "--name", "drops", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/retrying to upload .* \(attempt 2\)/);
    expect(JSON.parse(r.stdout).result).toBe("deployed");
  });

  it("a registry that keeps dropping: exit 1, and the deployment is not patched (the message says so)", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    await run(em, ["--image-archive", archiveFile("first", 1), "--name", "keeps"]);
    em.emulator.addFault({
      method: "PUT",
      path: "/v2/deployments/*/keeps/manifests/*",
      drop: "before",
      count: 50,
    });
    const patches = count(em, PATCH);
    const r = await run(em, ["--image-archive", archiveFile("second", 1), "--name", "keeps"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/connection to 127\.0\.0\.1:\d+ was reset|closed/);
    expect(r.stderr).toContain("nothing was patched: deployment keeps is unchanged");
    expect(r.stderr).toContain("patched only once the registry holds the whole image");
    expect(count(em, PATCH)).toBe(patches);
  });

  it("a token the registry refuses: one new token and the push goes on; refused again, exit 3 and nothing patched", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    em.emulator.addFault({ method: "POST", path: "/v2/deployments/*/once/blobs/uploads", status: 401 });
    const once = await run(em, ["--image-archive", archiveFile("once"), "--name", "once"]);
    expect(once.code, once.stderr).toBe(0);
    expect(count(em, TOKEN)).toBe(2);

    em.emulator.addFault({
      method: "HEAD",
      path: "/v2/deployments/*/twice/blobs/*",
      status: 401,
      count: 100,
    });
    const twice = await run(em, ["--image-archive", archiveFile("twice"), "--name", "twice"]);
    expect(twice.code).toBe(3);
    expect(twice.stderr).toMatch(/refused the push token .*and a new one too/);
    expect(twice.stderr + twice.stdout).not.toContain(TOKEN_MARK);
    const [deployment] = await deploymentNamed(em, "twice");
    expect(deployment.source_revision_config.image_uri).toBeNull();
  });

  it("Ctrl-C during the image push: exit 130, and the message says nothing was patched", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const file = archiveFile("ctrl-c");
    await run(em, ["--image-archive", archiveFile("ctrl-c-first", 1), "--name", "interrupted"]);
    em.emulator.addFault({
      method: "PUT",
      path: "/v2/deployments/*/interrupted/manifests/*",
      latency_ms: 600_000,
    });
    const pushing = emulatorEvent(
      em,
      (e) => e.phase === "handled" && e.route === "PUT /v2/{name}/manifests/{reference}",
    );
    const patches = count(em, PATCH);
    const r = await ctrlCAt(pushing, ["deploy", "push", "--image-archive", file, "--name", "interrupted"], {
      env: cliEnv(em),
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain(
      "interrupted during the image push; nothing was patched: deployment interrupted is unchanged",
    );
    expect(count(em, PATCH)).toBe(patches);
  });

  it("the image's own tag name never leaks a secret: the default tag is the time and the image's short ID", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const image = makeTestImage("tagged", 1);
    const file = join(freshDir("image"), "tagged.tar");
    writeFileSync(file, dockerArchive(image));
    const r = await run(em, ["--image-archive", file, "--name", "tagged", "-o", "ndjson"]);
    expect(r.code, r.stderr).toBe(0);
    const pushed = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .find((e) => e.event === "pushed");
    const short = createHash("sha256").update(image.config).digest("hex").slice(0, 12);
    expect(pushed.tag).toMatch(new RegExp(`:\\d{8}-\\d{6}-${short}$`));
  });
});
