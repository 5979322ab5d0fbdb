// DELETE /v2/deployments?deployment_ids=A&deployment_ids=B (service-facts "Bulk delete and
// listeners", the OpenAPI document's delete_deployments): all of them or none, at most 100,
// the repeated parameter only, tenants kept apart, and one change of the state file.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../../../test/helpers/emulator.js";
import { createRequest, newStore, TENANTS } from "../../../test/helpers/store-ops.js";
import { ValidationErrorBody } from "../../model/responses.js";
import type { EmulatorState } from "../store/state.js";

afterEach(closeTestEmulators);

const MISSING = "0b1e6f0e-3a53-4c2f-9a39-2a0d2f6c1d11";
const bulk = (ids: string[]) => `/v2/deployments?${ids.map((id) => `deployment_ids=${id}`).join("&")}`;

async function names(em: TestEmulator, auth?: string): Promise<string[]> {
  const listed = await em.get("/v2/deployments?limit=100", auth ? { auth } : {});
  return listed.json.resources.map((d: { name: string }) => d.name).sort();
}

describe("bulk delete", () => {
  it("deletes every deployment named, answers 200 with null, and leaves the others", async () => {
    const em = await startTestEmulator();
    const a = await em.createDeployment("internal_container", "a");
    const b = await em.createDeployment("internal_source", "b");
    await em.createDeployment("internal_container", "c");
    const response = await em.delete(bulk([a.id, b.id.toUpperCase(), a.id]));
    expect(response.status, response.text).toBe(200);
    expect(response.text).toBe("null");
    expect(await names(em)).toEqual(["c"]);
    expect((await em.get(`/v2/deployments/${a.id}`)).status).toBe(404);
  });

  it("an ID unknown to the tenant: 404 naming it, and nothing deleted", async () => {
    const em = await startTestEmulator();
    const a = await em.createDeployment("internal_container", "a");
    const theirs = (
      await em.post("/v2/deployments", em.createBody("internal_container", "theirs"), { auth: "other-key" })
    ).json;
    for (const ids of [
      [a.id, MISSING],
      [a.id, theirs.id],
    ]) {
      const response = await em.delete(bulk(ids));
      expect(response.status).toBe(404);
      expect(response.json).toEqual({ detail: `Deployment ID ${ids[1]} not found.` });
    }
    expect(await names(em)).toEqual(["a"]);
    expect(await names(em, "other-key")).toEqual(["theirs"]);
  });

  it("validates as the document says: required, UUIDs, at most 100, the repeated form (422)", async () => {
    const em = await startTestEmulator();
    const a = await em.createDeployment("internal_container", "a");
    const b = await em.createDeployment("internal_container", "b");
    const cases: [string, (string | number)[], string][] = [
      ["/v2/deployments", ["query", "deployment_ids"], "missing"],
      ["/v2/deployments?deployment_ids=", ["query", "deployment_ids"], "missing"],
      [bulk([a.id, "nope"]), ["query", "deployment_ids", 1], "uuid_parsing"],
      [`/v2/deployments?deployment_ids=${a.id},${b.id}`, ["query", "deployment_ids", 0], "uuid_parsing"],
      [bulk(Array.from({ length: 101 }, () => a.id)), ["query", "deployment_ids"], "too_long"],
    ];
    for (const [path, loc, type] of cases) {
      const response = await em.delete(path);
      expect(response.status, path).toBe(422);
      expect(ValidationErrorBody.safeParse(response.json).success).toBe(true);
      expect(response.json.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    expect(await names(em)).toEqual(["a", "b"]);
    // 100 is allowed (the same ID a hundred times is one deployment).
    expect((await em.delete(bulk(Array.from({ length: 100 }, () => a.id)))).status).toBe(200);
  });

  it("needs credentials like every route (401)", async () => {
    const em = await startTestEmulator();
    const a = await em.createDeployment("internal_container", "a");
    expect((await em.delete(bulk([a.id]), { auth: false })).status).toBe(401);
    expect(await names(em)).toEqual(["a"]);
  });

  it("is one change: one write of the state for the whole call, so a crash leaves all of them or none", () => {
    const saved: EmulatorState[] = [];
    const store = newStore((state) => saved.push(JSON.parse(JSON.stringify(state))));
    const made = ["a", "b", "c"].map((name) =>
      store.createDeployment(TENANTS[0]!, createRequest(name, "internal_source"), 1000),
    );
    store.issueUpload(made[0]!, 1000, 1000 + 60_000);
    saved.length = 0;
    store.deleteDeployments(made);
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({ deployments: [], uploads: [] });
  });

  it("with --state: the state file holds none of them once answered, nor their uploads", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cpctl-bulk-delete-"));
    const statePath = join(dir, "state.json");
    const em = await startTestEmulator({ statePath });
    const ids: string[] = [];
    for (const name of ["a", "b", "c"]) ids.push((await em.createDeployment("internal_source", name)).id);
    const upload = (await em.post(`/v2/deployments/${ids[0]}/upload-url`)).json;
    const saved = () => JSON.parse(readFileSync(statePath, "utf8")) as EmulatorState;
    expect(saved().uploads.map((u) => u.object_path)).toEqual([upload.object_path]);
    expect((await em.delete(bulk(ids))).status).toBe(200);
    expect(saved()).toMatchObject({ deployments: [], uploads: [] });
  });
});
