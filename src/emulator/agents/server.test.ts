// Every deployment has an address where a stand-in agent server answers `/ok` and `/info` as
// the real one would (issue 33, point 1), with a control that makes a revision unhealthy.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  closeTestEmulators,
  httpRequest,
  startTestEmulator,
  type TestEmulator,
} from "../../../test/helpers/emulator.js";
import { freshDir } from "../../../test/helpers/run-cli.js";
import { ManualClock } from "../server.js";

afterEach(closeTestEmulators);

function agent(em: TestEmulator, url: string, endpoint = "ok", key: string | null = em.apiKey) {
  return httpRequest(`${url}/${endpoint}`, {
    method: "GET",
    headers: key === null ? {} : { "X-Api-Key": key },
  });
}

describe("the address of a deployment", () => {
  it("is a loopback URL on the agents' port for every hosted source, the same in get and list", async () => {
    const em = await startTestEmulator();
    for (const source of [
      "gitrepo",
      "internal_source",
      "internal_container",
      "external_container",
    ] as const) {
      const created = await em.createDeployment(source);
      const url = created.source_config.custom_url;
      expect(url).toBe(`${em.emulator.agents.url}/${created.id}`);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f-]{36}$/);
      expect((await em.get(`/v2/deployments/${created.id}`)).json.source_config.custom_url).toBe(url);
      const listed = (await em.get(`/v2/deployments?name=${created.name}`)).json.resources[0];
      expect(listed.source_config.custom_url).toBe(url);
    }
  });

  it("is the user's own for an external_container that set one", async () => {
    const em = await startTestEmulator();
    const created = await em.createDeployment("external_container", "mine", {
      source_config: {
        ...(em.createBody("external_container").source_config as object),
        custom_url: "https://agent.example.com",
      },
    });
    expect(created.source_config.custom_url).toBe("https://agent.example.com");
  });
});

describe("the stand-in agent server", () => {
  it("/ok: 503 before a revision is DEPLOYED, then 200 {ok: true}; /info names the revision", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const created = await em.createDeployment("internal_container");
    const url = created.source_config.custom_url;
    const before = await agent(em, url);
    expect(before.status).toBe(503);
    expect(before.json.detail).toContain("DEPLOYED");
    expect((await agent(em, url, "info")).status).toBe(503);
    em.settle();
    const after = await agent(em, url);
    expect(after.status).toBe(200);
    expect(after.json).toEqual({ ok: true });
    expect((await agent(em, url, "ok?check_db=1")).json).toEqual({ ok: true });
    const info = await agent(em, url, "info");
    expect(info.status).toBe(200);
    expect(info.json).toMatchObject({ deployment_id: created.id, revision_id: created.latest_revision_id });
  });

  it("takes the tenant's key: none is 401, another tenant's 403, an unknown deployment 404", async () => {
    const em = await startTestEmulator();
    const created = await em.createDeployment("internal_container");
    const url = created.source_config.custom_url;
    expect((await agent(em, url, "ok", null)).status).toBe(401);
    expect((await agent(em, url, "ok", "someone-else")).status).toBe(403);
    const bearer = await httpRequest(`${url}/ok`, {
      method: "GET",
      headers: { Authorization: `Bearer ${em.apiKey}` },
    });
    expect(bearer.status).toBe(200);
    const unknown = `${em.emulator.agents.url}/0f0f0f0f-0000-4000-8000-000000000000`;
    expect((await agent(em, unknown)).status).toBe(404);
    expect((await agent(em, `${em.emulator.agents.url}/nothing`)).status).toBe(404);
    expect(
      (await httpRequest(`${url}/ok`, { method: "POST", headers: { "X-Api-Key": em.apiKey } })).status,
    ).toBe(405);
  });

  it("health failing for the next revision: that revision answers 500 once deployed, the one before stays 200", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const created = await em.createDeployment("internal_container");
    em.settle();
    const url = created.source_config.custom_url;
    em.emulator.setHealth(created.id, false);
    expect((await agent(em, url)).status).toBe(200);
    const patched = await em.patch(`/v2/deployments/${created.id}`, {
      source_revision_config: { image_uri: "registry.example.com/agent:2" },
    });
    expect((await agent(em, url)).status).toBe(200);
    em.settle();
    const failing = await agent(em, url);
    expect(failing.status).toBe(500);
    expect(failing.json.detail).toContain(patched.json.latest_revision_id);
    // A rollback: the revision after it is healthy again.
    await em.post(`/v2/deployments/${created.id}/revisions/${created.latest_revision_id}/redeploy`);
    em.settle();
    expect((await agent(em, url)).status).toBe(200);
    // By revision, and cleared with ok.
    const active = (await em.get(`/v2/deployments/${created.id}`)).json.active_revision_id;
    em.emulator.setHealth(created.id, false, active);
    expect((await agent(em, url)).status).toBe(500);
    em.emulator.setHealth(created.id, true);
    expect((await agent(em, url)).status).toBe(200);
  });

  it("the health control over HTTP acts within the caller's tenant, and validates its body", async () => {
    const em = await startTestEmulator();
    const created = await em.createDeployment("internal_container");
    const path = `/_emulator/deployments/${created.id}/health`;
    const set = await em.post(path, { state: "failing", revision_id: created.latest_revision_id });
    expect(set.status, set.text).toBe(200);
    expect(set.json).toEqual({
      deployment_id: created.id,
      revision_id: created.latest_revision_id,
      state: "failing",
      url: created.source_config.custom_url,
    });
    expect((await agent(em, created.source_config.custom_url)).status).toBe(500);
    expect((await em.post(path, { state: "broken" })).status).toBe(422);
    expect((await em.post(path, { state: "ok", revision_id: "nope" })).status).toBe(422);
    expect((await em.post(path, { state: "ok" }, { auth: "someone-else" })).status).toBe(404);
    const health = await em.get("/_emulator/health");
    expect(health.json.agents).toBe(em.emulator.agents.url);
  });

  it("survives a restart with --state: the address answers, and marks are kept", async () => {
    const statePath = join(freshDir("agents"), "cp.state.json");
    const clock = new ManualClock();
    const first = await startTestEmulator({ statePath, clock, stageMs: 1000 });
    const created = await first.createDeployment("internal_container");
    first.settle();
    first.emulator.setHealth(created.id, false, created.latest_revision_id);
    await first.close();

    const second = await startTestEmulator({ statePath, clock, stageMs: 1000 });
    const url = (await second.get(`/v2/deployments/${created.id}`)).json.source_config.custom_url;
    expect(url).toBe(`${second.emulator.agents.url}/${created.id}`);
    expect((await agent(second, url)).status).toBe(500);
  });
});
