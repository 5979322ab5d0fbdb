// Every endpoint of the spec and service-facts, through real HTTP: success codes, shapes
// (checked with the model's own response schemas) and the general error answers.
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { closeTestEmulators, startTestEmulator } from "../../../test/helpers/emulator.js";
import { SOURCES } from "../../model/enums.js";
import { withResourceDefaults } from "../../model/resource-spec.js";
import {
  Deployment,
  DeploymentList,
  ErrorDetailBody,
  GitIntegrationList,
  GitRepository,
  ListenerList,
  Revision,
  RevisionList,
  UploadUrlResponse,
  ValidationErrorBody,
} from "../../model/responses.js";

afterEach(closeTestEmulators);

const MISSING = "0b1e6f0e-3a53-4c2f-9a39-2a0d2f6c1d11";

describe("deployments", () => {
  it("creates a deployment of each source (201) in the spec's shape", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    for (const source of SOURCES) {
      const response = await em.post("/v2/deployments", em.createBody(source, `create-${source}`));
      expect(response.status).toBe(201);
      expect(response.headers["content-type"]).toBe("application/json");
      expect(Deployment.safeParse(response.json).success).toBe(true);
      expect(response.json).toMatchObject({
        name: `create-${source}`,
        source,
        tenant_id: em.tenantId,
        status: "AWAITING_DATABASE",
        active_revision_id: null,
      });
      expect(response.json.latest_revision_id).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("gives gitrepo deployments the address of their agent server as custom_url, and a commit SHA", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("gitrepo", "My Agent!");
    expect(deployment.source_config.custom_url).toBe(`${em.emulator.agents.url}/${deployment.id}`);
    expect(deployment.source_revision_config.repo_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    const container = await em.createDeployment("internal_container");
    expect(container.source_revision_config.repo_commit_sha).toBeNull();
  });

  it("stores resource_spec with the model's defaults applied", async () => {
    const em = await startTestEmulator();
    const spec = { cpu: 0.25, memory_mb: 512, min_scale: 1, max_scale: 3, redis_memory_mb: 256 };
    const body = em.createBody("external_container");
    (body.source_config as Record<string, unknown>).resource_spec = spec;
    const response = await em.post("/v2/deployments", body);
    expect(response.status).toBe(201);
    expect(response.json.source_config.resource_spec).toEqual(withResourceDefaults(spec));
    expect(response.json.source_config.resource_spec).toMatchObject({
      cpu: 0.3,
      cpu_limit: 0.6,
      redis_memory_limit_mb: 256,
    });
  });

  it("reads (200), patches (200) and deletes (204) a deployment", async () => {
    const em = await startTestEmulator();
    const created = await em.createDeployment("internal_container");
    const got = await em.get(`/v2/deployments/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.json).toEqual(created);

    const patched = await em.patch(`/v2/deployments/${created.id}`, {
      source_revision_config: { image_uri: "registry.example.com/agent:2.0.0" },
    });
    expect(patched.status).toBe(200);
    expect(Deployment.safeParse(patched.json).success).toBe(true);
    expect(patched.json.source_revision_config.image_uri).toBe("registry.example.com/agent:2.0.0");

    const deleted = await em.delete(`/v2/deployments/${created.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect(deleted.headers["content-type"]).toBeUndefined();
    const gone = await em.get(`/v2/deployments/${created.id}`);
    expect(gone.status).toBe(404);
    expect(gone.json).toEqual({ detail: `Deployment ID ${created.id} not found.` });
    expect((await em.delete(`/v2/deployments/${created.id}`)).status).toBe(404);
  });

  it("answers 404 with the service's detail for an unknown ID, on every deployment route", async () => {
    const em = await startTestEmulator();
    const detail = { detail: `Deployment ID ${MISSING} not found.` };
    for (const [method, path, body] of [
      ["GET", `/v2/deployments/${MISSING}`, undefined],
      ["PATCH", `/v2/deployments/${MISSING}`, {}],
      ["DELETE", `/v2/deployments/${MISSING}`, undefined],
      ["GET", `/v2/deployments/${MISSING}/revisions`, undefined],
      ["GET", `/v2/deployments/${MISSING}/revisions/${MISSING}`, undefined],
      ["POST", `/v2/deployments/${MISSING}/upload-url`, undefined],
      ["POST", `/deployments/${MISSING}/upload-url`, undefined],
    ] as const) {
      const response = await em.request(method, path, { body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(ErrorDetailBody.safeParse(response.json).success).toBe(true);
      expect(response.json).toEqual(detail);
    }
  });

  it("answers 422 at loc path.deployment_id for an ID that is not a UUID", async () => {
    const em = await startTestEmulator();
    for (const [method, path] of [
      ["GET", "/v2/deployments/not-a-uuid"],
      ["PATCH", "/v2/deployments/not-a-uuid"],
      ["DELETE", "/v2/deployments/not-a-uuid"],
      ["GET", "/v2/deployments/not-a-uuid/revisions"],
      ["POST", "/v2/deployments/not-a-uuid/upload-url"],
    ] as const) {
      const response = await em.request(method, path, { body: method === "PATCH" ? {} : undefined });
      expect(response.status, `${method} ${path}`).toBe(422);
      expect(ValidationErrorBody.safeParse(response.json).success).toBe(true);
      expect(response.json.detail[0].loc).toEqual(["path", "deployment_id"]);
    }
  });
});

describe("revisions", () => {
  it("lists revisions newest first and reads one; unknown or malformed revision IDs", async () => {
    const em = await startTestEmulator();
    const created = await em.createDeployment("internal_container");
    const patched = await em.patch(`/v2/deployments/${created.id}`, {
      source_revision_config: { image_uri: "registry.example.com/agent:2.0.0" },
    });
    const list = await em.get(`/v2/deployments/${created.id}/revisions`);
    expect(list.status).toBe(200);
    expect(RevisionList.safeParse(list.json).success).toBe(true);
    expect(list.json.resources.map((r: { id: string }) => r.id)).toEqual([
      patched.json.latest_revision_id,
      created.latest_revision_id,
    ]);
    expect(list.json.offset).toBe(2);

    const one = await em.get(`/v2/deployments/${created.id}/revisions/${created.latest_revision_id}`);
    expect(one.status).toBe(200);
    expect(Revision.safeParse(one.json).success).toBe(true);
    expect(one.json).toMatchObject({
      id: created.latest_revision_id,
      source: "internal_container",
      source_revision_config: { image_uri: "registry.example.com/agent:1.0.0" },
    });

    const unknown = await em.get(`/v2/deployments/${created.id}/revisions/${MISSING}`);
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ detail: `Revision ID ${MISSING} not found.` });
    const malformed = await em.get(`/v2/deployments/${created.id}/revisions/nope`);
    expect(malformed.status).toBe(422);
    expect(malformed.json.detail[0].loc).toEqual(["path", "revision_id"]);
  });
});

describe("listeners and integrations", () => {
  it("lists two k8s listeners per tenant, the same on every start, different per tenant", async () => {
    const em = await startTestEmulator();
    const response = await em.get("/v2/listeners");
    expect(response.status).toBe(200);
    expect(ListenerList.safeParse(response.json).success).toBe(true);
    expect(response.json.resources).toHaveLength(2);
    expect(response.json.offset).toBe(2);
    expect(response.json.resources[0]).toMatchObject({
      compute_type: "k8s",
      compute_config: { k8s_namespaces: ["default", "agents"] },
    });

    const again = await startTestEmulator();
    expect((await again.get("/v2/listeners")).json).toEqual(response.json);
    const other = await em.get("/v2/listeners", { auth: "another-key" });
    expect(other.json.resources[0].id).not.toBe(response.json.resources[0].id);

    const paged = await em.get("/v2/listeners?limit=1&offset=1");
    expect(paged.json).toEqual({ resources: [response.json.resources[1]], offset: 2 });
  });

  it("lists git integrations, distinct between the two listings, and requires authentication", async () => {
    const em = await startTestEmulator();
    const main = await em.get("/v1/integrations/gitrepo/install");
    const alt = await em.get("/v1/integrations/alt/gitrepo/install");
    for (const response of [main, alt]) {
      expect(response.status).toBe(200);
      expect(GitIntegrationList.safeParse(response.json).success).toBe(true);
      expect(response.json.length).toBeGreaterThan(0);
    }
    const mainIds = main.json.map((i: { id: string }) => i.id);
    for (const integration of alt.json) expect(mainIds).not.toContain(integration.id);

    for (const path of [
      "/v1/integrations/gitrepo/install",
      "/v1/integrations/alt/gitrepo/install",
      "/v2/listeners",
    ]) {
      expect((await em.get(path, { auth: false })).status, path).toBe(401);
    }
  });

  it("lists the repositories of an integration, each listing's own; another's or another tenant's is 404", async () => {
    const em = await startTestEmulator();
    const { integrations, altIntegrations } = em.emulator.seed(em.tenantId);
    const main = await em.get(`/v1/integrations/gitrepo/${integrations[0]!.id}/repos`);
    expect(main.status).toBe(200);
    expect(z.array(GitRepository).safeParse(main.json).success).toBe(true);
    expect(main.json[0]).toMatchObject({
      host_integration_id: integrations[0]!.id,
      owner: integrations[0]!.name,
      url: `https://github.com/${integrations[0]!.name}/${main.json[0].name}`,
    });
    const alt = await em.get(`/v1/integrations/alt/gitrepo/${altIntegrations[0]!.id}/repos`);
    expect(alt.status).toBe(200);
    expect(alt.json[0].host_integration_id).toBe(altIntegrations[0]!.id);
    // Each listing's own integrations only; another tenant's is as unknown as none.
    expect((await em.get(`/v1/integrations/gitrepo/${altIntegrations[0]!.id}/repos`)).status).toBe(404);
    expect((await em.get(`/v1/integrations/alt/gitrepo/${integrations[0]!.id}/repos`)).status).toBe(404);
    const other = await em.get(`/v1/integrations/gitrepo/${integrations[0]!.id}/repos`, {
      auth: "another-key",
    });
    expect(other.status).toBe(404);
    expect((await em.get("/v1/integrations/gitrepo/not-a-uuid/repos")).status).toBe(422);
    expect(
      (await em.get(`/v1/integrations/gitrepo/${integrations[0]!.id}/repos`, { auth: false })).status,
    ).toBe(401);
  });

  it("accepts an integration from either listing as integration_id", async () => {
    const em = await startTestEmulator();
    const alt = em.emulator.seed(em.tenantId).altIntegrations[0]!;
    const body = em.createBody("gitrepo");
    (body.source_config as Record<string, unknown>).integration_id = alt.id;
    expect((await em.post("/v2/deployments", body)).status).toBe(201);
  });
});

describe("upload-url", () => {
  it("answers on the versioned and unversioned paths with an upload URL on the emulator", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_source");
    for (const path of [
      `/v2/deployments/${deployment.id}/upload-url`,
      `/deployments/${deployment.id}/upload-url`,
    ]) {
      const response = await em.post(path);
      expect(response.status).toBe(200);
      expect(UploadUrlResponse.safeParse(response.json).success).toBe(true);
      expect(response.json.upload_url.startsWith(`${em.url}/`)).toBe(true);
      expect(response.json.object_path).toContain(deployment.id);
    }
  });
});

describe("general answers", () => {
  it("answers 404 Not Found for an unknown route and 405 for a wrong method", async () => {
    const em = await startTestEmulator();
    const unknown = await em.get("/v3/nothing");
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ detail: "Not Found" });
    const wrong = await em.request("PUT", "/v2/deployments");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe("POST, GET, DELETE");
    expect(wrong.json).toEqual({ detail: "Method Not Allowed" });
    // "//x" must not be read as a host name.
    expect((await em.get("//v2/deployments")).status).toBe(404);
  });

  it("answers a request that is not HTTP with a JSON 400", async () => {
    const em = await startTestEmulator();
    const { connect } = await import("node:net");
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(em.emulator.port, "127.0.0.1", () => socket.write("HELLO THERE\r\n\r\n"));
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk;
      });
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatch(/Content-Type: application\/json/);
    expect(JSON.parse(answer.split("\r\n\r\n")[1]!).detail).toMatch(/could not be parsed/);
  });

  it("lists deployments in the spec's shape", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("gitrepo");
    const response = await em.get("/v2/deployments");
    expect(response.status).toBe(200);
    expect(DeploymentList.safeParse(response.json).success).toBe(true);
  });

  it("records a tracing project named after each created deployment, per tenant", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_container", "traced");
    await em.post("/v2/deployments", em.createBody("internal_container", "traced"), { auth: "other-key" });
    // Over HTTP, each tenant sees its own; in process, the operator sees all.
    const projects = (await em.get("/_emulator/tracing-projects")).json.resources;
    expect(projects).toHaveLength(1);
    expect(projects[0]).toMatchObject({
      name: "traced",
      tenant_id: em.tenantId,
      deployment_id: deployment.id,
    });
    expect(em.emulator.tracingProjects()).toHaveLength(2);
    expect(em.emulator.tracingProjects(em.tenantId)).toHaveLength(1);
  });
});
