// Revisions on a manual clock: stages computed from time (no sleeping), superseding, the
// deployment status and active revision following them, patch semantics, failing on
// purpose and pushes.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../../../test/helpers/emulator.js";
import { failureStatusFor, revisionStages, SOURCES } from "../../model/enums.js";

afterEach(closeTestEmulators);

const STAGE = 1000;

async function revision(em: TestEmulator, deploymentId: string, revisionId: string) {
  const response = await em.get(`/v2/deployments/${deploymentId}/revisions/${revisionId}`);
  expect(response.status).toBe(200);
  return response.json;
}

async function deployment(em: TestEmulator, id: string) {
  return (await em.get(`/v2/deployments/${id}`)).json;
}

/** Statuses seen polling once per stage until the revision is terminal. */
async function walk(em: TestEmulator, deploymentId: string, revisionId: string): Promise<string[]> {
  const seen: string[] = [];
  for (let step = 0; step < 12; step++) {
    const { status } = await revision(em, deploymentId, revisionId);
    if (seen.at(-1) !== status) seen.push(status);
    if (
      ["DEPLOYED", "CREATE_FAILED", "BUILD_FAILED", "DEPLOY_FAILED", "SKIPPED", "INTERRUPTED"].includes(
        status,
      )
    )
      break;
    em.advance(STAGE);
  }
  return seen;
}

describe("first revision of each source", () => {
  for (const source of SOURCES) {
    it(`${source}: walks the model's stages to DEPLOYED; the deployment becomes READY`, async () => {
      const em = await startTestEmulator({ stageMs: STAGE });
      const created = await em.createDeployment(source);
      expect(created.status).toBe("AWAITING_DATABASE");
      const statuses = await walk(em, created.id, created.latest_revision_id);
      expect(statuses).toEqual([...revisionStages(source), "DEPLOYED"]);
      const built = source === "gitrepo" || source === "internal_source";
      expect(statuses.includes("AWAITING_BUILD") && statuses.includes("BUILDING")).toBe(built);

      const after = await deployment(em, created.id);
      expect(after).toMatchObject({ status: "READY", active_revision_id: created.latest_revision_id });
      expect(after.image_version).toEqual(expect.any(String));
    });
  }

  it("reports updated_at as the moment the current stage began", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const start = em.clock.now();
    const created = await em.createDeployment("gitrepo");
    em.advance(2500);
    const during = await revision(em, created.id, created.latest_revision_id);
    expect(during.status).toBe("AWAITING_BUILD");
    expect(during.created_at).toBe(new Date(start).toISOString());
    expect(during.updated_at).toBe(new Date(start + 2000).toISOString());
  });

  it("with stage 0 ms a revision is DEPLOYED at once", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    const created = await em.createDeployment("internal_source");
    expect(created.status).toBe("READY");
    expect((await revision(em, created.id, created.latest_revision_id)).status).toBe("DEPLOYED");
  });
});

describe("superseded revisions", () => {
  it("a new revision ends older in-progress ones: SKIPPED up to QUEUED, INTERRUPTED after; frozen", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const created = await em.createDeployment("gitrepo");
    const first = created.latest_revision_id;
    em.advance(STAGE + 10); // QUEUED
    const second = (
      await em.patch(`/v2/deployments/${created.id}`, { source_revision_config: { repo_ref: "dev" } })
    ).json.latest_revision_id;
    const skipped = await revision(em, created.id, first);
    expect(skipped.status).toBe("SKIPPED");
    const supersededAt = em.clock.now();
    expect(skipped.updated_at).toBe(new Date(supersededAt).toISOString());

    em.advance(3 * STAGE); // second is in BUILDING
    expect((await revision(em, created.id, second)).status).toBe("BUILDING");
    const third = (await em.patch(`/v2/deployments/${created.id}`, { secrets: [{ name: "A", value: "1" }] }))
      .json.latest_revision_id;
    expect((await revision(em, created.id, second)).status).toBe("INTERRUPTED");

    em.advance(100 * STAGE);
    expect((await revision(em, created.id, first)).status).toBe("SKIPPED");
    expect((await revision(em, created.id, first)).updated_at).toBe(new Date(supersededAt).toISOString());
    expect((await revision(em, created.id, second)).status).toBe("INTERRUPTED");
    expect((await revision(em, created.id, third)).status).toBe("DEPLOYED");
    expect(await deployment(em, created.id)).toMatchObject({
      status: "READY",
      active_revision_id: third,
      latest_revision_id: third,
    });
  });

  it("keeps the older DEPLOYED revision active while a newer one is in progress or failed", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const created = await em.createDeployment("internal_container");
    em.settle();
    em.emulator.failNextRevision({ deploymentId: created.id, stage: "DEPLOYING" });
    const patched = await em.patch(`/v2/deployments/${created.id}`, {
      source_revision_config: { image_uri: "registry.example.com/agent:2" },
    });
    expect(patched.json).toMatchObject({ status: "READY", active_revision_id: created.latest_revision_id });
    expect(patched.json.latest_revision_id).not.toBe(created.latest_revision_id);
    em.settle();
    expect((await revision(em, created.id, patched.json.latest_revision_id)).status).toBe("DEPLOY_FAILED");
    expect(await deployment(em, created.id)).toMatchObject({
      status: "READY",
      active_revision_id: created.latest_revision_id,
    });
  });
});

describe("patch semantics", () => {
  it("creates a revision only for the model's triggers", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const git = await em.createDeployment("gitrepo");
    const quiet = await em.patch(`/v2/deployments/${git.id}`, {
      source_config: { install_command: "npm ci", build_on_push: false },
      secret_references: null,
    });
    expect(quiet.status).toBe(200);
    expect(quiet.json.latest_revision_id).toBe(git.latest_revision_id);
    expect(quiet.json.source_config).toMatchObject({ install_command: "npm ci", build_on_push: false });
    expect((await em.get(`/v2/deployments/${git.id}/revisions`)).json.resources).toHaveLength(1);

    const loud = await em.patch(`/v2/deployments/${git.id}`, {
      source_revision_config: { agent_config_path: "sub/agent.json" },
    });
    expect(loud.json.latest_revision_id).not.toBe(git.latest_revision_id);
  });

  it("merges source_revision_config field by field; null leaves a field unchanged", async () => {
    const em = await startTestEmulator();
    const git = await em.createDeployment("gitrepo");
    const patched = await em.patch(`/v2/deployments/${git.id}`, {
      source_config: { build_command: null, install_command: "pnpm i" },
      source_revision_config: { agent_config_path: "apps/agent.json", repo_ref: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.source_revision_config).toMatchObject({
      repo_ref: "main",
      agent_config_path: "apps/agent.json",
    });
    expect(patched.json.source_revision_config.repo_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(patched.json.source_revision_config.repo_commit_sha).not.toBe(
      git.source_revision_config.repo_commit_sha,
    );
    expect(patched.json.source_config).toMatchObject({
      install_command: "pnpm i",
      build_command: null,
      repo_url: git.source_config.repo_url,
    });
    const latest = await revision(em, git.id, patched.json.latest_revision_id);
    expect(latest.source_revision_config).toEqual(patched.json.source_revision_config);
  });

  it("replaces resource_spec and secrets wholesale", async () => {
    const em = await startTestEmulator();
    const body = em.createBody("external_container");
    (body.source_config as Record<string, unknown>).resource_spec = { cpu: 1, memory_mb: 1024 };
    body.secrets = [
      { name: "A", value: "1" },
      { name: "B", value: "2" },
    ];
    const created = (await em.post("/v2/deployments", body)).json;
    const patched = await em.patch(`/v2/deployments/${created.id}`, {
      source_config: { resource_spec: { max_scale: 4 } },
      secrets: [{ name: "C", value: "3" }],
    });
    expect(patched.json.source_config.resource_spec).toEqual({ max_scale: 4, queue_max_scale: 4 });
    expect(patched.json.secrets).toEqual([{ name: "C", value: "3" }]);
  });

  it("revision_source sets the new revision's source (and so its stages)", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const git = await em.createDeployment("gitrepo");
    const patched = await em.patch(`/v2/deployments/${git.id}`, {
      revision_source: "internal_container",
      source_revision_config: { image_uri: "registry.example.com/agent:3" },
    });
    expect(patched.status).toBe(200);
    const latest = await revision(em, git.id, patched.json.latest_revision_id);
    expect(latest.source).toBe("internal_container");
    expect(latest.source_revision_config.repo_commit_sha).toBeNull();
    expect(await walk(em, git.id, latest.id)).toEqual([...revisionStages("internal_container"), "DEPLOYED"]);
  });
});

describe("making revisions fail", () => {
  it("fail-next for a deployment: the next revision fails at the end of the chosen stage", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const git = await em.createDeployment("gitrepo");
    em.settle();
    const rule = await em.post("/_emulator/revisions/fail-next", {
      deployment_id: git.id,
      stage: "BUILDING",
    });
    expect(rule.status).toBe(201);
    expect((await em.get("/_emulator/revisions/fail-next")).json.rules).toHaveLength(1);
    const patched = await em.patch(`/v2/deployments/${git.id}`, {
      source_revision_config: { repo_ref: "next" },
    });
    const statuses = await walk(em, git.id, patched.json.latest_revision_id);
    expect(statuses).toEqual([
      "CREATING",
      "QUEUED",
      "AWAITING_BUILD",
      "BUILDING",
      failureStatusFor("BUILDING"),
    ]);
    expect(statuses.at(-1)).toBe("BUILD_FAILED");
    // Used up: the following revision deploys.
    const again = await em.patch(`/v2/deployments/${git.id}`, {
      source_revision_config: { repo_ref: "next2" },
    });
    expect((await walk(em, git.id, again.json.latest_revision_id)).at(-1)).toBe("DEPLOYED");
  });

  it("fail-next for any deployment waits for a revision that passes through the stage", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    em.emulator.failNextRevision({ stage: "AWAITING_BUILD" });
    const container = await em.createDeployment("internal_container");
    const source = await em.createDeployment("gitrepo");
    em.settle();
    expect((await revision(em, container.id, container.latest_revision_id)).status).toBe("DEPLOYED");
    expect((await revision(em, source.id, source.latest_revision_id)).status).toBe("BUILD_FAILED");
    expect((await deployment(em, source.id)).status).toBe("AWAITING_DATABASE");
  });

  it("fail-next for a build stage passes over an internal_source create's revision, which has nothing to build", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    expect((await em.post("/_emulator/revisions/fail-next", { stage: "BUILDING" })).status).toBe(201);
    const created = await em.createDeployment("internal_source");
    expect((await em.get("/_emulator/revisions/fail-next")).json.rules).toHaveLength(1);
    em.settle();
    expect((await revision(em, created.id, created.latest_revision_id)).status).not.toBe("BUILD_FAILED");
  });

  it("failing at CREATING gives CREATE_FAILED, at once with stage 0 ms", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    em.emulator.failNextRevision({ stage: "CREATING" });
    const created = await em.createDeployment("internal_container");
    expect((await revision(em, created.id, created.latest_revision_id)).status).toBe("CREATE_FAILED");
    expect(created.status).toBe("AWAITING_DATABASE");
  });

  it("fails an existing revision at a later stage; refuses a stage it passed or never has", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const created = await em.createDeployment("internal_container");
    const path = `/_emulator/deployments/${created.id}/revisions/${created.latest_revision_id}/fail`;
    expect((await em.post(path, { stage: "BUILDING" })).status).toBe(409);
    expect((await em.post(path, { stage: "NOPE" })).status).toBe(422);
    const failed = await em.post(path, { stage: "AWAITING_DEPLOY" });
    expect(failed.status).toBe(200);
    expect(failed.json.status).toBe("CREATING");
    em.advance(2 * STAGE);
    expect((await revision(em, created.id, created.latest_revision_id)).status).toBe("AWAITING_DEPLOY");
    em.advance(STAGE);
    expect((await revision(em, created.id, created.latest_revision_id)).status).toBe("DEPLOY_FAILED");
    const ended = await em.post(path, { stage: "DEPLOYING" });
    expect(ended.status).toBe(409);

    const other = await em.createDeployment("internal_container");
    em.advance(2 * STAGE);
    expect(() => em.emulator.failRevision(other.id, other.latest_revision_id, "QUEUED")).toThrow(
      /already past QUEUED/,
    );
  });

  it("answers 404 and 422 for unknown deployments and bad bodies", async () => {
    const em = await startTestEmulator();
    const missing = "7c0e7c52-1b1f-4c36-a0cf-5d2b6c0a0c11";
    expect(
      (await em.post("/_emulator/revisions/fail-next", { deployment_id: missing, stage: "QUEUED" })).status,
    ).toBe(404);
    expect((await em.post("/_emulator/revisions/fail-next", { stage: "DEPLOYED" })).status).toBe(422);
    expect((await em.post("/_emulator/revisions/fail-next", [1])).status).toBe(422);
  });
});

describe("push simulation", () => {
  it("builds a new revision at the pushed SHA when build_on_push is true and the branch matches", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const git = await em.createDeployment("gitrepo");
    const sha = "a".repeat(40);
    const pushed = await em.post(`/_emulator/deployments/${git.id}/push`, { branch: "main", sha });
    expect(pushed.status).toBe(201);
    expect(pushed.json).toMatchObject({
      source: "gitrepo",
      status: "CREATING",
      source_revision_config: { repo_ref: "main", repo_commit_sha: sha },
    });
    const after = await deployment(em, git.id);
    expect(after.latest_revision_id).toBe(pushed.json.id);
    expect(after.source_revision_config.repo_commit_sha).toBe(sha);
    expect((await revision(em, git.id, git.latest_revision_id)).status).toBe("SKIPPED");

    // No body: a push to the tracked branch with a new SHA.
    const bare = await em.post(`/_emulator/deployments/${git.id}/push`, undefined, {
      headers: { "Content-Type": "application/json" },
    });
    expect(bare.status).toBe(201);
    expect(bare.json.source_revision_config.repo_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(em.emulator.push(git.id, { branch: "refs/heads/main" }).source).toBe("gitrepo");
  });

  it("refuses (409, with the reason) when nothing would build", async () => {
    const em = await startTestEmulator();
    const git = await em.createDeployment("gitrepo");
    const other = await em.post(`/_emulator/deployments/${git.id}/push`, { branch: "feature" });
    expect(other.status).toBe(409);
    expect(other.json.detail).toMatch(/tracks 'main'/);

    await em.patch(`/v2/deployments/${git.id}`, { source_config: { build_on_push: false } });
    const off = await em.post(`/_emulator/deployments/${git.id}/push`, {});
    expect(off.status).toBe(409);
    expect(off.json.detail).toMatch(/build_on_push/);

    const container = await em.createDeployment("internal_container");
    const notGit = await em.post(`/_emulator/deployments/${container.id}/push`, {});
    expect(notGit.status).toBe(409);
    expect(() => em.emulator.push(container.id)).toThrow(/only gitrepo/);

    expect((await em.post(`/_emulator/deployments/${git.id}/push`, { sha: "xyz" })).status).toBe(422);
    expect((await em.post("/_emulator/deployments/nope/push", {})).status).toBe(422);
  });
});
