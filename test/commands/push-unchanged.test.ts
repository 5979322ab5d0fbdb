// `deploy push` says "nothing to push" only when the deployment's latest revision is its active
// one and runs exactly what would be shipped, with these settings (issue 32, point 1). A retry
// after a failed revision, or a push of what the active revision runs while a newer revision
// builds (which would replace it), starts a revision, and says why. Directories and images
// alike.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { dockerArchive, makeTestImage } from "../helpers/images.js";
import { cliEnv, freshDir, instantClock, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

function run(em: TestEmulator, args: string[]) {
  return runCli(["deploy", "push", ...args, "--interval", "1s", "-o", "json"], {
    env: cliEnv(em),
    clock: instantClock(Date.now(), (ms) => em.advance(ms)),
  });
}

function project(agent: string): string {
  const root = freshDir("push-unchanged");
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "agent.json"), '{"graphs":{"agent":"./agent.py:graph"}}');
  writeFileSync(join(root, "agent.py"), agent);
  return root;
}

function archive(seed: string): string {
  const file = join(freshDir("push-unchanged-image"), `${seed}.tar`);
  writeFileSync(file, dockerArchive(makeTestImage(seed, 2)));
  return file;
}

async function deployment(em: TestEmulator, name: string) {
  return (await em.get(`/v2/deployments?name=${name}`)).json.resources[0];
}

async function revision(em: TestEmulator, deploymentId: string, revisionId: string) {
  return (await em.get(`/v2/deployments/${deploymentId}/revisions/${revisionId}`)).json;
}

const PATCH = "PATCH /v2/deployments/{deployment_id}";
const patches = (em: TestEmulator) => em.emulator.stats().requests[PATCH] ?? 0;

describe("deploy push DIR: nothing to push only when the latest revision is the active one", () => {
  it("a retry after a failed build of a changed source pushes again", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const a = project("graph = 'A'\n");
    expect((await run(em, [a, "--name", "agent"])).code).toBe(0);
    const b = project("graph = 'B'\n");
    em.emulator.failNextRevision({ stage: "BUILDING" });
    const failed = await run(em, [b, "--name", "agent"]);
    expect(failed.code).toBe(5);

    const retry = await run(em, [b, "--name", "agent"]);
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stderr).not.toContain("nothing to push");
    const result = JSON.parse(retry.stdout);
    expect(result).toMatchObject({ uploaded: true, result: "deployed" });
    const now = await deployment(em, "agent");
    expect(now.active_revision_id).toBe(result.revision.id);
    expect((await revision(em, now.id, now.active_revision_id)).source_tarball_sha256).toBe(result.sha256);
  });

  it("a retry of a changed secret after a failed build: the secret reaches a running revision", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project("graph = 'A'\n");
    expect((await run(em, [dir, "--name", "agent", "--secret", "TOKEN=first-value-1"])).code).toBe(0);
    em.emulator.failNextRevision({ stage: "BUILDING" });
    const failed = await run(em, [dir, "--name", "agent", "--secret", "TOKEN=second-value-2"]);
    expect(failed.code).toBe(5);
    const before = patches(em);

    const retry = await run(em, [dir, "--name", "agent", "--secret", "TOKEN=second-value-2"]);
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stderr).not.toContain("nothing to push");
    expect(retry.stderr).toMatch(/the latest revision [0-9a-f-]{36} ended BUILD_FAILED: pushing again/);
    expect(JSON.parse(retry.stdout)).toMatchObject({ result: "deployed" });
    expect(patches(em)).toBe(before + 1);
    const now = await deployment(em, "agent");
    expect(now.active_revision_id).toBe(now.latest_revision_id);
  });

  it("what the active revision runs, pushed while a newer revision builds: a revision that replaces it", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const a = project("graph = 'A'\n");
    const first = await run(em, [a, "--name", "agent"]);
    expect(first.code).toBe(0);
    const shaA = JSON.parse(first.stdout).sha256;
    const b = project("graph = 'B'\n");
    const building = await run(em, [b, "--name", "agent", "--no-wait"]);
    expect(building.code, building.stderr).toBe(0);
    const revisionB = JSON.parse(building.stdout).revision.id;

    const again = await run(em, [a, "--name", "agent"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain("nothing to push");
    expect(again.stderr).toContain(`revision ${revisionB} is still`);
    expect(again.stderr).toContain("would replace it: pushing again");
    const now = await deployment(em, "agent");
    // A is what runs in the end; B was replaced before it went live.
    expect((await revision(em, now.id, now.active_revision_id)).source_tarball_sha256).toBe(shaA);
    expect((await revision(em, now.id, revisionB)).status).not.toBe("DEPLOYED");
  });

  it("the latest revision active and running this source: nothing to push, as before", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project("graph = 'A'\n");
    expect((await run(em, [dir, "--name", "agent"])).code).toBe(0);
    const before = patches(em);
    const again = await run(em, [dir, "--name", "agent"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("nothing to push");
    expect(JSON.parse(again.stdout).result).toBe("unchanged");
    expect(patches(em)).toBe(before);
  });
});

describe("deploy push --image-archive: the same rule", () => {
  it("a retry after a failed deploy pushes again", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const a = archive("image-a");
    expect((await run(em, ["--image-archive", a, "--name", "img"])).code).toBe(0);
    em.emulator.failNextRevision({ stage: "DEPLOYING" });
    const failed = await run(em, ["--image-archive", a, "--name", "img", "--force"]);
    expect(failed.code).toBe(5);

    const retry = await run(em, ["--image-archive", a, "--name", "img"]);
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stderr).not.toContain("nothing to push");
    expect(retry.stderr).toMatch(/the latest revision [0-9a-f-]{36} ended DEPLOY_FAILED: pushing again/);
    const now = await deployment(em, "img");
    expect(now.active_revision_id).toBe(now.latest_revision_id);
  });

  it("the image the active revision runs, pushed while a newer one deploys: a revision that replaces it", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const a = archive("image-a");
    const first = await run(em, ["--image-archive", a, "--name", "img"]);
    expect(first.code).toBe(0);
    const imageA = JSON.parse(first.stdout).image_uri;
    const building = await run(em, ["--image-archive", archive("image-b"), "--name", "img", "--no-wait"]);
    expect(building.code, building.stderr).toBe(0);

    const again = await run(em, ["--image-archive", a, "--name", "img"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain("nothing to push");
    expect(again.stderr).toContain("would replace it: pushing again");
    const now = await deployment(em, "img");
    expect(now.source_revision_config.image_uri).toBe(imageA);
    expect(now.active_revision_id).toBe(now.latest_revision_id);
  });
});

describe("after a failed build (issue 36)", () => {
  it("the failure says the good revision still serves; rollback changes nothing, --to goes further", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const first = await run(em, [project("graph = 'A0'\n"), "--name", "agent"]);
    expect(first.code, first.stderr).toBe(0);
    const a = await run(em, [project("graph = 'A'\n"), "--name", "agent"]);
    expect(a.code, a.stderr).toBe(0);
    const good = JSON.parse(a.stdout).revision.id;
    em.emulator.failNextRevision({ stage: "BUILDING" });
    const failed = await run(em, [project("graph = 'B'\n"), "--name", "agent"]);
    expect(failed.code).toBe(5);
    expect(failed.stderr).toContain(
      `Revision ${good}, the active one, still serves: the failed revision replaced nothing.`,
    );

    const before = (await deployment(em, "agent")).latest_revision_id;
    const back = await runCli(["deploy", "rollback", "agent", "-o", "json"], { env: cliEnv(em) });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stderr).toMatch(
      /nothing to roll back: the latest revision \S+ ended BUILD_FAILED and never replaced revision \S+, which still serves/,
    );
    expect(JSON.parse(back.stdout).active_revision_id).toBe(good);
    expect((await deployment(em, "agent")).latest_revision_id).toBe(before);

    const further = await runCli(
      ["deploy", "rollback", "agent", "--to", JSON.parse(first.stdout).revision.id, "-o", "json"],
      {
        env: cliEnv(em),
      },
    );
    expect(further.code, further.stderr).toBe(0);
    expect((await deployment(em, "agent")).latest_revision_id).not.toBe(before);
  });
});

describe("deploy revisions of a pushed deployment (issue 36)", () => {
  it("shows each pushed revision's tarball by its short digest in REF", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const pushed = await run(em, [project("graph = 'A'\n"), "--name", "agent"]);
    expect(pushed.code, pushed.stderr).toBe(0);
    const sha = JSON.parse(pushed.stdout).sha256 as string;
    const r = await runCli(["deploy", "revisions", "agent"], { env: cliEnv(em) });
    const [latest] = r.stdout
      .trim()
      .split("\n")
      .map((line) => line.split("\t"));
    expect(latest![3]).toBe(`tarball sha256:${sha.slice(0, 12)}`);
  });
});
