// The listener endpoints (service-facts "Bulk delete and listeners", the OpenAPI document):
// list, get, create, patch, delete, per tenant; bodies checked as the model checks them (422);
// a compute ID once per tenant (409 naming the listener that has it); a listener in use not
// deleted (409 naming the deployments); kept in the state file across a restart.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../../../test/helpers/emulator.js";
import { Listener, ValidationErrorBody } from "../../model/responses.js";

afterEach(closeTestEmulators);

const OTHER = "other-key";
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

const body = (computeId: string, namespaces: string[] | null = ["agents"]) => ({
  compute_type: "k8s",
  compute_id: computeId,
  compute_config: { k8s_namespaces: namespaces },
});

async function computeIds(em: TestEmulator, auth?: string): Promise<string[]> {
  const listed = await em.get("/v2/listeners?limit=100", auth ? { auth } : {});
  expect(listed.status, listed.text).toBe(200);
  return listed.json.resources.map((l: { compute_id: string }) => l.compute_id);
}

describe("listeners", () => {
  it("create, get, patch and delete: the answers are the document's Listener, listed after the seeded ones", async () => {
    const em = await startTestEmulator();
    const seeded = em.emulator.seed(em.tenantId).listeners.map((l) => l.compute_id);
    em.advance(60_000);
    const made = await em.post("/v2/listeners", body("cluster-a", ["agents", "tools"]));
    expect(made.status, made.text).toBe(201);
    expect(Listener.safeParse(made.json).success).toBe(true);
    expect(made.json).toMatchObject({
      compute_type: "k8s",
      compute_id: "cluster-a",
      compute_config: { k8s_namespaces: ["agents", "tools"] },
    });
    expect(made.json).not.toHaveProperty("version");
    expect(await computeIds(em)).toEqual([...seeded, "cluster-a"]);
    expect((await em.get(`/v2/listeners/${made.json.id.toUpperCase()}`)).json).toEqual(made.json);

    em.advance(1000);
    const patched = await em.patch(`/v2/listeners/${made.json.id}`, {
      compute_config: { k8s_namespaces: ["staging"] },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.compute_config.k8s_namespaces).toEqual(["staging"]);
    expect(patched.json.created_at).toBe(made.json.created_at);
    expect(Date.parse(patched.json.updated_at)).toBeGreaterThan(Date.parse(made.json.updated_at));
    // Null or absent leaves a field as it is.
    for (const same of [{}, { compute_config: null }, { compute_config: { k8s_namespaces: null } }]) {
      const again = await em.patch(`/v2/listeners/${made.json.id}`, same);
      expect(again.json.compute_config.k8s_namespaces, JSON.stringify(same)).toEqual(["staging"]);
    }
    expect((await em.patch(`/v2/listeners/${made.json.id}`, { version: "2" })).json.version).toBe("2");

    const removed = await em.delete(`/v2/listeners/${made.json.id}`);
    expect(removed.status).toBe(204);
    expect(removed.text).toBe("");
    expect((await em.get(`/v2/listeners/${made.json.id}`)).json).toEqual({
      detail: `Listener ID ${made.json.id} not found.`,
    });
    expect((await em.delete(`/v2/listeners/${made.json.id}`)).status).toBe(404);
    expect(await computeIds(em)).toEqual(seeded);
  });

  it("the seeded listeners can be changed and deleted like any other; a reset brings them back", async () => {
    const em = await startTestEmulator();
    const [first, second] = em.emulator.seed(em.tenantId).listeners;
    const patched = await em.patch(`/v2/listeners/${first!.id}`, {
      compute_config: { k8s_namespaces: ["x"] },
    });
    expect(patched.json.compute_config.k8s_namespaces).toEqual(["x"]);
    expect((await em.get("/v2/listeners")).json.resources[0].compute_config.k8s_namespaces).toEqual(["x"]);
    expect((await em.delete(`/v2/listeners/${second!.id}`)).status).toBe(204);
    expect(await computeIds(em)).toEqual([first!.compute_id]);
    expect((await em.get(`/v2/listeners/${second!.id}`)).status).toBe(404);
    // A deployment cannot use a deleted listener, and uses the changed one's namespaces.
    const onDeleted = await em.post("/v2/deployments", {
      ...em.createBody("external_container"),
      source_config: { listener_id: second!.id },
    });
    expect(onDeleted.status).toBe(422);
    expect(onDeleted.json.detail[0].loc).toEqual(["body", "source_config", "listener_id"]);
    const oldNamespace = await em.post("/v2/deployments", em.createBody("external_container"));
    expect(oldNamespace.status).toBe(422);
    expect(oldNamespace.json.detail[0].msg).toContain("it has: x");
    await em.createDeployment("external_container", "on-x", {
      source_config: { listener_id: first!.id, listener_config: { k8s_namespace: "x" } },
    });

    em.emulator.reset();
    expect(await computeIds(em)).toEqual([first!.compute_id, second!.compute_id]);
    expect((await em.get(`/v2/listeners/${first!.id}`)).json).toEqual(first);
  });

  it("tenants are kept apart: another tenant's listener is a 404, and compute IDs are unique per tenant", async () => {
    const em = await startTestEmulator();
    const mine = (await em.post("/v2/listeners", body("shared-name"))).json;
    const theirs = await em.post("/v2/listeners", body("shared-name"), { auth: OTHER });
    expect(theirs.status, theirs.text).toBe(201);
    const theirList = (await em.get("/v2/listeners", { auth: OTHER })).json.resources.map(
      (l: { id: string }) => l.id,
    );
    expect(theirList).not.toContain(mine.id);
    expect(theirList).toContain(theirs.json.id);
    const seeded = em.emulator.seed(em.tenantId).listeners[0]!;
    for (const [method, path] of [
      ["GET", `/v2/listeners/${mine.id}`],
      ["PATCH", `/v2/listeners/${mine.id}`],
      ["DELETE", `/v2/listeners/${mine.id}`],
      ["DELETE", `/v2/listeners/${seeded.id}`],
    ] as const) {
      const answer = await em.request(method, path, {
        auth: OTHER,
        body: method === "PATCH" ? {} : undefined,
      });
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
    expect((await em.get(`/v2/listeners/${mine.id}`)).status).toBe(200);
    expect((await em.get(`/v2/listeners/${seeded.id}`)).status).toBe(200);
  });

  it("a compute ID already taken (a seeded one too): 409 naming the listener that has it", async () => {
    const em = await startTestEmulator();
    const first = (await em.post("/v2/listeners", body("prod-cluster"))).json;
    const again = await em.post("/v2/listeners", body("prod-cluster", ["other"]));
    expect(again.status).toBe(409);
    expect(again.json).toEqual({
      detail: `A listener for compute ID 'prod-cluster' already exists: ${first.id}.`,
    });
    const seeded = em.emulator.seed(em.tenantId).listeners[1]!;
    const taken = await em.post("/v2/listeners", body(seeded.compute_id));
    expect(taken.status).toBe(409);
    expect(taken.json.detail).toContain(seeded.id);
    // Another case is another compute ID.
    expect((await em.post("/v2/listeners", body("PROD-cluster"))).status).toBe(201);
  });

  it("validates bodies as the model does: 422 naming every field", async () => {
    const em = await startTestEmulator();
    const cases: [unknown, (string | number)[][]][] = [
      [
        {},
        [
          ["body", "compute_type"],
          ["body", "compute_id"],
          ["body", "compute_config"],
        ],
      ],
      [{ ...body("a"), compute_type: "vm" }, [["body", "compute_type"]]],
      [body(""), [["body", "compute_id"]]],
      [body(" padded "), [["body", "compute_id"]]],
      [body("a", ["Agents"]), [["body", "compute_config", "k8s_namespaces", 0]]],
      [body("a", ["agents", "agents"]), [["body", "compute_config", "k8s_namespaces"]]],
      [{ ...body("a"), region: "eu" }, [["body", "region"]]],
      [{ ...body("a"), compute_config: { namespaces: ["a"] } }, [["body", "compute_config", "namespaces"]]],
      [[], [["body"]]],
    ];
    for (const [input, locs] of cases) {
      const answer = await em.post("/v2/listeners", input);
      expect(answer.status, JSON.stringify(input)).toBe(422);
      expect(ValidationErrorBody.safeParse(answer.json).success).toBe(true);
      expect(
        answer.json.detail.map((i: { loc: unknown }) => i.loc),
        JSON.stringify(input),
      ).toEqual(locs);
    }
    const id = em.emulator.seed(em.tenantId).listeners[0]!.id;
    for (const [input, loc] of [
      [{ compute_id: "renamed" }, ["body", "compute_id"]],
      [{ compute_config: { k8s_namespaces: "agents" } }, ["body", "compute_config", "k8s_namespaces"]],
      [{ version: 2 }, ["body", "version"]],
    ] as const) {
      const answer = await em.patch(`/v2/listeners/${id}`, input);
      expect(answer.status, JSON.stringify(input)).toBe(422);
      expect(answer.json.detail[0].loc).toEqual(loc);
    }
    expect((await em.get("/v2/listeners/nope")).json.detail[0]).toMatchObject({
      loc: ["path", "listener_id"],
      type: "uuid_parsing",
    });
    expect((await em.get(`/v2/listeners/${UNKNOWN}`)).status).toBe(404);
    expect(await computeIds(em)).toHaveLength(2);
  });

  it("a listener that deployments use is not deleted: 409 naming them; deleted once they are gone", async () => {
    const em = await startTestEmulator();
    const listener = (await em.post("/v2/listeners", body("busy", ["agents"]))).json;
    const on = (name: string) =>
      em.createDeployment("external_container", name, {
        source_config: { listener_id: listener.id, listener_config: { k8s_namespace: "agents" } },
      });
    const a = await on("api-a");
    const b = await on("api-b");
    await em.createDeployment("internal_container", "elsewhere");
    const refused = await em.delete(`/v2/listeners/${listener.id}`);
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toBe(
      `Listener ${listener.id} is used by 2 deployments: api-a (${a.id}), api-b (${b.id}). ` +
        "A deployment's listener is fixed at creation: delete those deployments first.",
    );
    expect((await em.get(`/v2/listeners/${listener.id}`)).status).toBe(200);
    expect((await em.delete(`/v2/deployments?deployment_ids=${a.id}&deployment_ids=${b.id}`)).status).toBe(
      200,
    );
    expect((await em.delete(`/v2/listeners/${listener.id}`)).status).toBe(204);
  });

  it("survive a restart with --state: created, changed and deleted listeners, seeded ones included", async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), "cpctl-listeners-")), "state.json");
    const first = await startTestEmulator({ statePath });
    const [seededA, seededB] = first.emulator.seed(first.tenantId).listeners;
    const made = (await first.post("/v2/listeners", body("kept", ["a", "b"]))).json;
    const gone = (await first.post("/v2/listeners", body("gone"))).json;
    await first.patch(`/v2/listeners/${seededA!.id}`, { compute_config: { k8s_namespaces: ["changed"] } });
    await first.delete(`/v2/listeners/${seededB!.id}`);
    await first.delete(`/v2/listeners/${gone.id}`);
    const before = (await first.get("/v2/listeners")).json;
    expect(before.resources.map((l: { compute_id: string }) => l.compute_id)).toEqual([
      seededA!.compute_id,
      "kept",
    ]);
    await first.close();

    const second = await startTestEmulator({ statePath });
    expect((await second.get("/v2/listeners")).json).toEqual(before);
    expect((await second.get(`/v2/listeners/${made.id}`)).json).toEqual(made);
    await second.close();
  });
});
