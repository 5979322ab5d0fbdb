// GET /v2/deployments/free-count (service-facts "Newer endpoints"): {"count"}, the tenant's
// deployments whose deployment_type is dev_free; another tenant's and deleted ones do not count.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../../../test/helpers/emulator.js";

afterEach(closeTestEmulators);

async function freeCount(em: TestEmulator, auth?: string): Promise<unknown> {
  const answer = await em.get("/v2/deployments/free-count", auth ? { auth } : {});
  expect(answer.status, answer.text).toBe(200);
  return answer.json;
}

function gitrepo(em: TestEmulator, name: string, type: string, auth?: string) {
  const body = em.createBody("gitrepo", name);
  // Each tenant uses its own integration.
  const integration = em.emulator.seed(em.emulator.tenantFor(auth ?? em.apiKey)).integrations[0]!.id;
  const config = { ...(body.source_config as object), deployment_type: type, integration_id: integration };
  return em.post("/v2/deployments", { ...body, source_config: config }, auth ? { auth } : {});
}

describe("free-count", () => {
  it("counts the tenant's dev_free deployments, and only those", async () => {
    const em = await startTestEmulator();
    expect(await freeCount(em)).toEqual({ count: 0 });
    const a = (await gitrepo(em, "free-a", "dev_free")).json;
    await gitrepo(em, "free-b", "dev_free");
    await gitrepo(em, "paid", "prod");
    await gitrepo(em, "dev", "dev");
    await em.createDeployment("internal_container", "container");
    expect((await gitrepo(em, "theirs", "dev_free", "other-key")).status).toBe(201);
    expect(await freeCount(em)).toEqual({ count: 2 });
    expect(await freeCount(em, "other-key")).toEqual({ count: 1 });
    expect((await em.delete(`/v2/deployments/${a.id}`)).status).toBe(204);
    expect(await freeCount(em)).toEqual({ count: 1 });
  });

  it("is not taken for a deployment ID, and needs credentials", async () => {
    const em = await startTestEmulator();
    expect((await em.get("/v2/deployments/free-count", { auth: false })).status).toBe(401);
    // The {deployment_id} routes with other methods still read it as a (bad) ID.
    expect((await em.delete("/v2/deployments/free-count")).status).toBe(422);
  });
});
