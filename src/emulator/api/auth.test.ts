// Authentication (spec 5, service-facts): the three schemes, the org-scoped key rule, the
// --api-key restriction, and tenants kept apart.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../../../test/helpers/emulator.js";

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
    // The hosted service's words, which its public client looks for.
    expect(refused.json.detail).toMatch(/organisation-scoped API key requires workspace specification/);
    expect(refused.json.detail).toMatch(/X-Tenant-Id header/);
    const viaBearer = await em.get("/v2/deployments", {
      auth: false,
      headers: { Authorization: "Bearer org_abc" },
    });
    expect(viaBearer.status).toBe(403);
    const ok = await em.get("/v2/deployments", { auth: "org_abc", headers: { "X-Tenant-Id": TENANT } });
    expect(ok.status).toBe(200);

    const custom = await startTestEmulator({ tenantHeader: "X-Org-Tenant" });
    const named = await custom.get("/v2/deployments", { auth: "org_abc" });
    expect(named.json.detail).toMatch(/in the X-Org-Tenant header/);
  });
});

describe("apiKeys restriction", () => {
  it("accepts only the listed keys, as X-Api-Key or bearer, and not a tenant header alone", async () => {
    const em = await startTestEmulator({ apiKeys: ["k1", `k2=${TENANT}`] });
    expect((await em.get("/v2/deployments", { auth: "k1" })).status).toBe(200);
    expect(
      (await em.get("/v2/deployments", { auth: false, headers: { Authorization: "Bearer k1" } })).status,
    ).toBe(200);
    const wrong = await em.get("/v2/deployments", { auth: "k3" });
    expect(wrong.status).toBe(401);
    expect(wrong.json.detail).toMatch(/not valid/);
    const tenantOnly = await em.get("/v2/deployments", { auth: false, headers: { "X-Tenant-Id": TENANT } });
    expect(tenantOnly.status).toBe(401);
    // A key granted one tenant acts for it with or without the header.
    const created = await em.post("/v2/deployments", em.createBody("internal_container"), { auth: "k2" });
    expect(created.json.tenant_id).toBe(TENANT);
    expect(
      (await em.get("/v2/deployments", { auth: "k2", headers: { "X-Tenant-Id": TENANT } })).json.resources,
    ).toHaveLength(1);
  });
});

describe("keys bound to tenants", () => {
  const T1 = "0a0a0a0a-0000-4000-8000-000000000001";
  const T2 = "0a0a0a0a-0000-4000-8000-000000000002";
  const SECRET = "victim-secret-value-42";

  it("a bare key acts for its own tenant only: another tenant's deployments cannot be read, patched or deleted", async () => {
    const em = await startTestEmulator({ apiKeys: ["victim", "attacker"] });
    const victimTenant = em.emulator.tenantFor("victim");
    expect(victimTenant).not.toBe(em.emulator.tenantFor("attacker"));
    const mine = await em.post(
      "/v2/deployments",
      { ...em.createBody("internal_container"), secrets: [{ name: "TOKEN", value: SECRET }] },
      { auth: "victim" },
    );
    expect(mine.status).toBe(201);
    expect(mine.json.tenant_id).toBe(victimTenant);
    // Its own tenant named in the header is fine.
    expect(
      (await em.get("/v2/deployments", { auth: "victim", headers: { "X-Tenant-Id": victimTenant } })).status,
    ).toBe(200);

    const asVictim = { auth: "attacker", headers: { "X-Tenant-Id": victimTenant } };
    const bearerAsVictim = {
      auth: false,
      headers: { Authorization: "Bearer attacker", "X-Tenant-Id": victimTenant },
    } as const;
    for (const options of [asVictim, bearerAsVictim]) {
      const answers = [
        await em.get("/v2/deployments", options),
        await em.get(`/v2/deployments/${mine.json.id}`, options),
        await em.get(`/v2/deployments/${mine.json.id}/revisions`, options),
        await em.patch(`/v2/deployments/${mine.json.id}`, { secrets: [] }, options),
        await em.post(`/v2/deployments/${mine.json.id}/upload-url`, undefined, options),
        await em.delete(`/v2/deployments/${mine.json.id}`, options),
        await em.get("/_emulator/tracing-projects", options),
        await em.post(`/_emulator/deployments/${mine.json.id}/push`, {}, options),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(403);
        expect(answer.json.detail).toBe(`This API key or token may not act for tenant ${victimTenant}.`);
        expect(answer.text).not.toContain(SECRET);
      }
    }
    const after = await em.get(`/v2/deployments/${mine.json.id}`, { auth: "victim" });
    expect(after.status).toBe(200);
    expect(after.json.secrets).toEqual([{ name: "TOKEN", value: SECRET }]);
  });

  it("a key granted several tenants must name one (403 'requires workspace specification'), and only those", async () => {
    const em = await startTestEmulator({ apiKeys: [`org-key=${T1},${T2.toUpperCase()}`] });
    const missing = await em.get("/v2/deployments", { auth: "org-key" });
    expect(missing.status).toBe(403);
    expect(missing.json.detail).toMatch(/requires workspace specification/);
    expect(missing.json.detail).toMatch(/X-Tenant-Id header/);
    const viaBearer = await em.get("/v2/deployments", {
      auth: false,
      headers: { Authorization: "Bearer org-key" },
    });
    expect(viaBearer.status).toBe(403);
    for (const tenant of [T1, T2]) {
      const made = await em.post("/v2/deployments", em.createBody("internal_container", `in-${tenant}`), {
        auth: "org-key",
        headers: { "X-Tenant-Id": tenant },
      });
      expect(made.status).toBe(201);
      expect(made.json.tenant_id).toBe(tenant);
    }
    const outside = await em.get("/v2/deployments", { auth: "org-key", headers: { "X-Tenant-Id": TENANT } });
    expect(outside.status).toBe(403);
  });

  it("the same key given twice acts for the tenants of both", async () => {
    const em = await startTestEmulator({ apiKeys: [`k=${T1}`, `k=${T2}`] });
    expect((await em.get("/v2/deployments", { auth: "k" })).status).toBe(403);
    expect((await em.get("/v2/deployments", { auth: "k", headers: { "X-Tenant-Id": T2 } })).status).toBe(200);
  });

  it("describes each key's tenants for the start-up message by its place in the list, never by any part of it", async () => {
    const em = await startTestEmulator({ apiKeys: ["dev-key-123", `ci=${T1},${T2}`, `dev-key-123=${T1}`] });
    expect(em.emulator.describeKeys()).toEqual([
      `API key #1 acts for tenants ${em.emulator.tenantFor("dev-key-123")}, ${T1} (pick one with the tenant header)`,
      `API key #2 acts for tenants ${T1}, ${T2} (pick one with the tenant header)`,
    ]);
    expect(em.emulator.describeKeys("CPCTL_EMULATOR_API_KEYS")[1]).toBe(
      `API key #2 of CPCTL_EMULATOR_API_KEYS acts for tenants ${T1}, ${T2} (pick one with the tenant header)`,
    );
    const short = await startTestEmulator({ apiKeys: ["ab", "x"] });
    expect(short.emulator.describeKeys("--api-key")).toEqual([
      `API key #1 of --api-key acts for tenant ${short.emulator.tenantFor("ab")}`,
      `API key #2 of --api-key acts for tenant ${short.emulator.tenantFor("x")}`,
    ]);
    expect((await startTestEmulator()).emulator.describeKeys()).toEqual([]);
  });
});

describe("controls within the caller's tenant", () => {
  it("tracing projects, fail rules, failing a revision and a push see only the caller's tenant", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const mine = await em.createDeployment("gitrepo", "mine");
    const other = { auth: "intruder" };
    await em.post("/v2/deployments", em.createBody("internal_container", "theirs"), other);

    expect((await em.get("/_emulator/tracing-projects", { auth: false })).status).toBe(401);
    const theirs = (await em.get("/_emulator/tracing-projects", other)).json.resources;
    expect(theirs.map((p: { name: string }) => p.name)).toEqual(["theirs"]);
    expect(JSON.stringify(theirs)).not.toContain(em.tenantId);

    const revisionPath = `/_emulator/deployments/${mine.id}/revisions/${mine.latest_revision_id}/fail`;
    expect((await em.post(revisionPath, { stage: "DEPLOYING" }, other)).status).toBe(404);
    expect((await em.post(`/_emulator/deployments/${mine.id}/push`, {}, other)).status).toBe(404);
    expect(
      (await em.post("/_emulator/revisions/fail-next", { deployment_id: mine.id, stage: "QUEUED" }, other))
        .status,
    ).toBe(404);

    // A rule for "any deployment" set by another tenant never reaches this one's revisions.
    expect((await em.post("/_emulator/revisions/fail-next", { stage: "CREATING" }, other)).status).toBe(201);
    expect((await em.get("/_emulator/revisions/fail-next")).json.rules).toEqual([]);
    const patched = await em.patch(`/v2/deployments/${mine.id}`, {
      source_revision_config: { repo_ref: "b" },
    });
    em.settle();
    const revision = await em.get(`/v2/deployments/${mine.id}/revisions/${patched.json.latest_revision_id}`);
    expect(revision.json.status).toBe("DEPLOYED");
    expect((await em.get("/_emulator/revisions/fail-next", other)).json.rules).toHaveLength(1);
  });

  it("emulator-wide controls: free without keys, refused with keys unless the control token is sent", async () => {
    const open = await startTestEmulator();
    expect((await open.post("/_emulator/reset", {}, { auth: false })).status).toBe(204);

    const keyed = await startTestEmulator({ apiKeys: ["k1"] });
    await keyed.createDeployment("internal_container");
    for (const [method, path] of [
      ["POST", "/_emulator/reset"],
      ["GET", "/_emulator/stats"],
      ["GET", "/_emulator/faults"],
      ["DELETE", "/_emulator/faults"],
      ["POST", "/_emulator/clock"],
    ] as const) {
      const refused = await keyed.request(method, path, { body: method === "POST" ? {} : undefined });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.json.detail).toMatch(/--control-token/);
    }
    expect((await keyed.get("/v2/deployments")).json.resources).toHaveLength(1);

    const guarded = await startTestEmulator({ apiKeys: ["k1"], controlToken: "ctl-secret" });
    const noToken = await guarded.post("/_emulator/reset", {});
    expect(noToken.status).toBe(401);
    expect(noToken.json.detail).toMatch(/X-Control-Token/);
    expect(
      (await guarded.post("/_emulator/reset", {}, { headers: { "X-Control-Token": "ctl-secreT" } })).status,
    ).toBe(401);
    expect(
      (await guarded.post("/_emulator/reset", {}, { headers: { "X-Control-Token": "ctl-secret" } })).status,
    ).toBe(204);
    // Health tells nothing and needs nothing.
    expect((await guarded.get("/_emulator/health", { auth: false })).status).toBe(200);
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
