// Redeploy of a revision (a retry or a rollback), the revisions listing's status list, and
// DELETE with delete_tracing_project: through real HTTP on a manual clock.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../../../test/helpers/emulator.js";
import { buildLogsPath, logPage } from "../../../test/helpers/logs.js";
import { Deployment } from "../../model/responses.js";

afterEach(closeTestEmulators);

const STAGE = 1000;
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

const redeployPath = (deploymentId: string, revisionId: string) =>
  `/v2/deployments/${deploymentId}/revisions/${revisionId}/redeploy`;

async function revision(em: TestEmulator, deploymentId: string, revisionId: string) {
  return (await em.get(`/v2/deployments/${deploymentId}/revisions/${revisionId}`)).json;
}

describe("redeploy", () => {
  it("a failed revision redeployed starts a new revision from its configuration, which then succeeds", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    em.emulator.failNextRevision({ stage: "BUILDING", message: "npm ERR! network timeout" });
    const created = await em.createDeployment("gitrepo");
    const failedId = created.latest_revision_id;
    em.advance(10 * STAGE);
    const failed = await revision(em, created.id, failedId);
    expect(failed.status).toBe("BUILD_FAILED");

    const redeployed = await em.post(redeployPath(created.id, failedId));
    expect(redeployed.status).toBe(200);
    expect(Deployment.safeParse(redeployed.json).success).toBe(true);
    const newId = redeployed.json.latest_revision_id;
    expect(newId).not.toBe(failedId);
    expect(redeployed.json.status).toBe("AWAITING_DATABASE");
    const fresh = await revision(em, created.id, newId);
    // The same configuration, the same commit: a retry builds the same code.
    expect(fresh.source_revision_config).toEqual(failed.source_revision_config);
    expect(fresh.source).toBe("gitrepo");
    expect(fresh.status).toBe("CREATING");

    // Its lifecycle and build log are those of any revision.
    const seen: string[] = [];
    for (let step = 0; step < 8 && seen.at(-1) !== "DEPLOYED"; step++) {
      const { status } = await revision(em, created.id, newId);
      if (seen.at(-1) !== status) seen.push(status);
      em.advance(STAGE);
    }
    expect(seen).toEqual([
      "CREATING",
      "QUEUED",
      "AWAITING_BUILD",
      "BUILDING",
      "AWAITING_DEPLOY",
      "DEPLOYING",
      "DEPLOYED",
    ]);
    const log = (await logPage(em, buildLogsPath(created.id, newId), { order: "asc" })).logs;
    expect(log.at(-1)!.message).toMatch(/^Build succeeded/);
    expect(log.some((e) => e.level === "ERROR")).toBe(false);
    // The failed one's log still ends with its error.
    const old = (await logPage(em, buildLogsPath(created.id, failedId), { order: "desc", limit: 1 })).logs;
    expect(old).toMatchObject([{ level: "ERROR", message: "npm ERR! network timeout" }]);

    const after = (await em.get(`/v2/deployments/${created.id}`)).json;
    expect(after).toMatchObject({ status: "READY", active_revision_id: newId, latest_revision_id: newId });
  });

  it("an older revision redeployed is a rollback: the deployment's source_revision_config follows it", async () => {
    const em = await startTestEmulator();
    const created = await em.createDeployment("gitrepo");
    const first = created.latest_revision_id;
    const patched = await em.patch(`/v2/deployments/${created.id}`, {
      source_revision_config: { repo_ref: "release-2", agent_config_path: "agents/main.json" },
    });
    expect(patched.json.source_revision_config.repo_ref).toBe("release-2");
    const firstRevision = await revision(em, created.id, first);

    const rolledBack = await em.post(redeployPath(created.id, first));
    expect(rolledBack.status).toBe(200);
    expect(rolledBack.json.source_revision_config).toEqual(firstRevision.source_revision_config);
    expect(rolledBack.json.active_revision_id).toBe(rolledBack.json.latest_revision_id);
    const revisions = (await em.get(`/v2/deployments/${created.id}/revisions`)).json.resources;
    expect(revisions.map((r: { id: string }) => r.id)).toEqual([
      rolledBack.json.latest_revision_id,
      patched.json.latest_revision_id,
      first,
    ]);
    expect((await em.get(`/v2/deployments/${created.id}`)).json).toEqual(rolledBack.json);
  });

  it("a redeploy supersedes revisions in progress and takes a fail-next rule like any new revision", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const created = await em.createDeployment("internal_container");
    const first = created.latest_revision_id;
    em.advance(4 * STAGE);
    const patched = await em.patch(`/v2/deployments/${created.id}`, {
      source_revision_config: { image_uri: "registry.example.com/agent:2" },
    });
    em.advance(STAGE / 2);
    em.emulator.failNextRevision({ deploymentId: created.id, stage: "DEPLOYING" });
    const back = await em.post(redeployPath(created.id, first));
    expect((await revision(em, created.id, patched.json.latest_revision_id)).status).toBe("SKIPPED");
    em.advance(10 * STAGE);
    expect((await revision(em, created.id, back.json.latest_revision_id)).status).toBe("DEPLOY_FAILED");
    // The first revision still serves.
    expect((await em.get(`/v2/deployments/${created.id}`)).json.active_revision_id).toBe(first);
  });

  it("404 when either ID is unknown to the tenant or the revision is another deployment's; 422 for a bad ID", async () => {
    const em = await startTestEmulator();
    const mine = await em.createDeployment("internal_container");
    const other = await em.createDeployment("internal_container");
    for (const [deploymentId, revisionId] of [
      [UNKNOWN, mine.latest_revision_id],
      [mine.id, UNKNOWN],
      [mine.id, other.latest_revision_id],
    ]) {
      const response = await em.post(redeployPath(deploymentId, revisionId));
      expect(response.status).toBe(404);
      expect(response.json.detail).toMatch(/^(Deployment|Revision) ID \S+ not found\.$/);
    }
    const foreign = await em.post(redeployPath(mine.id, mine.latest_revision_id), undefined, {
      auth: "another-key",
    });
    expect(foreign.status).toBe(404);
    expect((await em.post(redeployPath("x", mine.latest_revision_id))).status).toBe(422);
    // Nothing was created by any of them.
    expect((await em.get(`/v2/deployments/${mine.id}/revisions`)).json.resources).toHaveLength(1);
    expect(
      em.emulator.stats().requests["POST /v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy"],
    ).toBe(5);
  });
});

describe("revisions listing: status is a comma-separated list", () => {
  it("keeps the revisions in any of the statuses, newest first; an unknown status is a 422 naming it", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    em.emulator.failNextRevision({ stage: "BUILDING" });
    const created = await em.createDeployment("gitrepo");
    em.advance(10 * STAGE);
    const second = (await em.post(redeployPath(created.id, created.latest_revision_id))).json
      .latest_revision_id;
    em.advance(10 * STAGE);
    const third = (
      await em.patch(`/v2/deployments/${created.id}`, { source_revision_config: { repo_ref: "x" } })
    ).json.latest_revision_id;
    const list = (status: string) =>
      em.get(`/v2/deployments/${created.id}/revisions?status=${encodeURIComponent(status)}`);
    const ids = async (status: string) =>
      (await list(status)).json.resources.map((r: { id: string }) => r.id);

    expect(await ids("BUILD_FAILED")).toEqual([created.latest_revision_id]);
    expect(await ids("BUILD_FAILED,DEPLOYED")).toEqual([second, created.latest_revision_id]);
    expect(await ids(" CREATING , BUILD_FAILED,,")).toEqual([third, created.latest_revision_id]);
    expect(await ids("DEPLOYED,CREATING,BUILD_FAILED")).toEqual([third, second, created.latest_revision_id]);
    expect(await ids("")).toHaveLength(3);

    const refused = await list("DEPLOYED,deployed,NOPE");
    expect(refused.status).toBe(422);
    expect(refused.json.detail).toEqual([
      {
        loc: ["query", "status"],
        msg: expect.stringContaining('unknown: "deployed", "NOPE"'),
        type: "enum",
      },
    ]);
  });
});

describe("DELETE ?delete_tracing_project", () => {
  it("true also deletes the tracing project created with the deployment; false or absent keeps it", async () => {
    const em = await startTestEmulator();
    const projects = async () =>
      (await em.get("/_emulator/tracing-projects")).json.resources
        .map((p: { name: string }) => p.name)
        .sort();
    const kept = await em.createDeployment("internal_container", "kept-default");
    const keptFalse = await em.createDeployment("internal_container", "kept-false");
    const gone = await em.createDeployment("internal_container", "gone");
    const other = await em.createDeployment("internal_container", "other", undefined);
    expect(await projects()).toEqual(["gone", "kept-default", "kept-false", "other"]);

    expect((await em.delete(`/v2/deployments/${gone.id}?delete_tracing_project=maybe`)).status).toBe(422);
    expect((await em.get(`/v2/deployments/${gone.id}`)).status).toBe(200);

    expect((await em.delete(`/v2/deployments/${kept.id}`)).status).toBe(204);
    expect((await em.delete(`/v2/deployments/${keptFalse.id}?delete_tracing_project=false`)).status).toBe(
      204,
    );
    expect((await em.delete(`/v2/deployments/${gone.id}?delete_tracing_project=true`)).status).toBe(204);
    expect(await projects()).toEqual(["kept-default", "kept-false", "other"]);
    expect((await em.get(`/v2/deployments/${other.id}`)).status).toBe(200);

    // A deployment made again under a kept project's name uses it; deleting it with the flag removes it.
    const again = await em.createDeployment("internal_container", "kept-default");
    expect(await projects()).toEqual(["kept-default", "kept-false", "other"]);
    expect((await em.delete(`/v2/deployments/${again.id}?delete_tracing_project=true`)).status).toBe(204);
    expect(await projects()).toEqual(["kept-false", "other"]);
  });

  it("another tenant's deployment is a 404 and its tracing project stays", async () => {
    const em = await startTestEmulator();
    const mine = await em.createDeployment("internal_container", "mine");
    const response = await em.delete(`/v2/deployments/${mine.id}?delete_tracing_project=true`, {
      auth: "another",
    });
    expect(response.status).toBe(404);
    expect(em.emulator.tracingProjects().map((p) => p.name)).toEqual(["mine"]);
  });
});

describe("revisions listing: remote_reconciled", () => {
  it("keeps the revisions of self-hosted (external_container) deployments when true, the others when false", async () => {
    const em = await startTestEmulator();
    const hosted = await em.createDeployment("internal_container");
    const selfHosted = await em.createDeployment("external_container");
    const count = async (id: string, flag: string) => {
      const response = await em.get(`/v2/deployments/${id}/revisions?remote_reconciled=${flag}`);
      expect(response.status).toBe(200);
      return response.json.resources.length;
    };
    expect([await count(hosted.id, "true"), await count(hosted.id, "false")]).toEqual([0, 1]);
    expect([await count(selfHosted.id, "true"), await count(selfHosted.id, "false")]).toEqual([1, 0]);
    expect((await em.get(`/v2/deployments/${hosted.id}/revisions?remote_reconciled=perhaps`)).status).toBe(
      422,
    );
  });
});
