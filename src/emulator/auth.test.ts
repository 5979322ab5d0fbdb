// Authentication (spec 5, service-facts): the three schemes, the org-scoped key rule, the
// --api-key restriction, and tenants kept apart.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../../test/helpers/emulator.js";

afterEach(closeTestEmulators);

const TENANT = "5f0c6a4e-8f8e-4a53-9c1e-1d2b3c4d5e6f";

describe("schemes", () => {
  it("answers 401 without credentials, naming the accepted headers", async () => {
    const em = await startTestEmulator();
    const response = await em.get("/v2/deployments", { auth: false });
    expect(response.status).toBe(401);
    expect(response.json.detail).toMatch(/X-Api-Key/);
    expect(response.json.detail).toMatch(/X-Tenant-Id/);
    expect(response.json.detail).toMatch(/Authorization: Bearer/);
    expect(response.headers["www-authenticate"]).toBe("Bearer");
    // A blank key is no key.
    expect((await em.get("/v2/deployments", { auth: false, headers: { "X-Api-Key": " " } })).status).toBe(
      401,
    );
  });

  it("accepts an API key, a bearer token or a tenant header alone", async () => {
    const em = await startTestEmulator();
    expect((await em.get("/v2/deployments")).status).toBe(200);
    const bearer = await em.post("/v2/deployments", em.createBody("internal_container"), {
      auth: false,
      headers: { Authorization: "Bearer some-token" },
    });
    expect(bearer.status).toBe(201);
    expect(bearer.json.tenant_id).toBe(em.emulator.tenantFor("some-token"));
    const byTenant = await em.post("/v2/deployments", em.createBody("internal_container"), {
      auth: false,
      headers: { "X-Tenant-Id": TENANT.toUpperCase() },
    });
    expect(byTenant.status).toBe(201);
    expect(byTenant.json.tenant_id).toBe(TENANT);
  });

  it("uses the tenant header over the key's own tenant, and refuses one that is not a UUID (400)", async () => {
    const em = await startTestEmulator();
    const both = await em.post("/v2/deployments", em.createBody("internal_container"), {
      headers: { "X-Tenant-Id": TENANT },
    });
    expect(both.json.tenant_id).toBe(TENANT);
    const bad = await em.get("/v2/deployments", { headers: { "X-Tenant-Id": "workspace-1" } });
    expect(bad.status).toBe(400);
    expect(bad.json.detail).toMatch(/X-Tenant-Id header must be a tenant ID/);
  });

  it("refuses other Authorization schemes", async () => {
    const em = await startTestEmulator();
    const response = await em.get("/v2/deployments", {
      auth: false,
      headers: { Authorization: "Basic dXNlcjpwYXNz" },
    });
    expect(response.status).toBe(401);
    expect(response.json.detail).toMatch(/must use the Bearer scheme/);
    // Beside a key it is simply not a credential.
    expect(
      (await em.get("/v2/deployments", { headers: { Authorization: "Basic dXNlcjpwYXNz" } })).status,
    ).toBe(200);
  });

  it("derives the same tenant from the same key on every start", async () => {
    const a = await startTestEmulator();
    const b = await startTestEmulator();
    expect(a.tenantId).toBe(b.tenantId);
    expect(a.emulator.tenantFor("other")).not.toBe(a.tenantId);
  });

  it("reads the tenant from a configured header name", async () => {
    const em = await startTestEmulator({ tenantHeader: "X-Workspace-Id" });
    const response = await em.get("/v2/deployments", { auth: false, headers: { "X-Workspace-Id": TENANT } });
    expect(response.status).toBe(200);
    const ignored = await em.get("/v2/deployments", { auth: false, headers: { "X-Tenant-Id": TENANT } });
    expect(ignored.status).toBe(401);
    expect(ignored.json.detail).toMatch(/X-Workspace-Id/);
    const bad = await em.get("/v2/deployments", { auth: false, headers: { "X-Workspace-Id": "nope" } });
    expect(bad.json.detail).toMatch(/X-Workspace-Id header/);
  });
});

describe("organisation-scoped keys", () => {
  it("answers 403 without a tenant header, naming the (configured) header; works with one", async () => {
    const em = await startTestEmulator();
    const refused = await em.get("/v2/deployments", { auth: "org_abc" });
    expect(refused.status).toBe(403);
    expect(refused.json.detail).toMatch(/organisation-scoped API key requires the X-Tenant-Id header/);
    const viaBearer = await em.get("/v2/deployments", {
      auth: false,
      headers: { Authorization: "Bearer org_abc" },
    });
    expect(viaBearer.status).toBe(403);
    const ok = await em.get("/v2/deployments", { auth: "org_abc", headers: { "X-Tenant-Id": TENANT } });
    expect(ok.status).toBe(200);

    const custom = await startTestEmulator({ tenantHeader: "X-Org-Tenant" });
    const named = await custom.get("/v2/deployments", { auth: "org_abc" });
    expect(named.json.detail).toMatch(/requires the X-Org-Tenant header/);
  });
});

describe("apiKeys restriction", () => {
  it("accepts only the listed keys, as X-Api-Key or bearer, and not a tenant header alone", async () => {
    const em = await startTestEmulator({ apiKeys: ["k1", "org_k2"] });
    expect((await em.get("/v2/deployments", { auth: "k1" })).status).toBe(200);
    expect(
      (await em.get("/v2/deployments", { auth: false, headers: { Authorization: "Bearer k1" } })).status,
    ).toBe(200);
    const wrong = await em.get("/v2/deployments", { auth: "k3" });
    expect(wrong.status).toBe(401);
    expect(wrong.json.detail).toMatch(/not valid/);
    const tenantOnly = await em.get("/v2/deployments", { auth: false, headers: { "X-Tenant-Id": TENANT } });
    expect(tenantOnly.status).toBe(401);
    expect((await em.get("/v2/deployments", { auth: "org_k2" })).status).toBe(403);
    expect(
      (await em.get("/v2/deployments", { auth: "org_k2", headers: { "X-Tenant-Id": TENANT } })).status,
    ).toBe(200);
  });
});

describe("tenants apart", () => {
  it("hides one tenant's deployments from another (404), on every route", async () => {
    const em = await startTestEmulator();
    const mine = await em.createDeployment("internal_source");
    const other = { auth: "intruder" };
    expect((await em.get("/v2/deployments", other)).json.resources).toEqual([]);
    expect((await em.get(`/v2/deployments/${mine.id}`, other)).status).toBe(404);
    expect((await em.patch(`/v2/deployments/${mine.id}`, { secrets: [] }, other)).status).toBe(404);
    expect((await em.get(`/v2/deployments/${mine.id}/revisions`, other)).status).toBe(404);
    expect(
      (await em.get(`/v2/deployments/${mine.id}/revisions/${mine.latest_revision_id}`, other)).status,
    ).toBe(404);
    expect((await em.post(`/v2/deployments/${mine.id}/upload-url`, undefined, other)).status).toBe(404);
    expect((await em.delete(`/v2/deployments/${mine.id}`, other)).status).toBe(404);
    expect((await em.get(`/v2/deployments/${mine.id}`)).status).toBe(200);
    // deployment_ids naming it does not reveal it either.
    expect((await em.get(`/v2/deployments?deployment_ids=${mine.id}`, other)).json.resources).toEqual([]);
  });
});
