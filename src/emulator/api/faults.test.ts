// Injected faults, through real HTTP: what a client sees, and whether the work was done.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../../../test/helpers/emulator.js";

afterEach(closeTestEmulators);

const control = { auth: false } as const;

async function deploymentCount(em: TestEmulator): Promise<number> {
  return (await em.get("/v2/deployments")).json.resources.length;
}

describe("status faults", () => {
  it("answers the status N times with Retry-After, without doing the work, then recovers", async () => {
    const em = await startTestEmulator();
    const added = await em.post(
      "/_emulator/faults",
      { method: "POST", path: "/v2/deployments", status: 503, count: 2, retry_after: 7 },
      control,
    );
    expect(added.status).toBe(201);
    expect(added.json).toMatchObject({ remaining: 2, status: 503, retry_after: 7 });

    for (let i = 0; i < 2; i++) {
      const refused = await em.post("/v2/deployments", em.createBody("internal_container", "x"));
      expect(refused.status).toBe(503);
      expect(refused.headers["retry-after"]).toBe("7");
      expect(refused.headers["content-type"]).toBe("application/json");
      expect(typeof refused.json.detail).toBe("string");
      if (i === 0) expect((await em.get("/_emulator/faults", control)).json.faults[0].remaining).toBe(1);
    }
    expect(await deploymentCount(em)).toBe(0);
    expect((await em.get("/_emulator/faults", control)).json.faults).toEqual([]);
    expect((await em.post("/v2/deployments", em.createBody("internal_container", "x"))).status).toBe(201);
    expect(em.emulator.stats().requests["POST /v2/deployments"]).toBe(3);
  });

  it("matches the method and wildcard segments, and never the controls", async () => {
    const em = await startTestEmulator();
    const created = await em.createDeployment("internal_container");
    em.emulator.addFault({ method: "GET", path: "/v2/deployments/*", status: 500, count: 5 });
    expect((await em.get("/v2/deployments")).status).toBe(200);
    expect((await em.patch(`/v2/deployments/${created.id}`, {})).status).toBe(200);
    expect((await em.get(`/v2/deployments/${created.id}`)).status).toBe(500);
    expect((await em.get(`/v2/deployments/${created.id}/revisions`)).status).toBe(200);
    expect((await em.get("/_emulator/stats", control)).status).toBe(200);
    expect(em.emulator.faults()[0]!.remaining).toBe(4);
    expect((await em.delete("/_emulator/faults", control)).status).toBe(204);
    expect((await em.get(`/v2/deployments/${created.id}`)).status).toBe(200);
  });

  it("answers an HTML page (a proxy's) that is not JSON", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({ path: "/v2/deployments", body: "html" });
    const response = await em.post("/v2/deployments", em.createBody("internal_container"));
    expect(response.status).toBe(502);
    expect(response.headers["content-type"]).toMatch(/^text\/html/);
    expect(response.text).toMatch(/<html>/);
    expect(response.json).toBeUndefined();
    expect(await deploymentCount(em)).toBe(0);

    em.emulator.addFault({ path: "/v2/deployments", body: "html", status: 504, retry_after: 1 });
    const gateway = await em.get("/v2/deployments");
    expect(gateway.status).toBe(504);
    expect(gateway.text).toMatch(/504 Gateway Timeout/);
    expect(gateway.headers["retry-after"]).toBe("1");
  });
});

describe("connection faults", () => {
  it("drop before: the connection dies and nothing is created", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({ method: "POST", path: "/v2/deployments", drop: "before" });
    await expect(em.post("/v2/deployments", em.createBody("internal_container"))).rejects.toThrow(
      /socket hang up|ECONNRESET/,
    );
    expect(await deploymentCount(em)).toBe(0);
    expect(em.emulator.stats().requests["POST /v2/deployments"]).toBe(1);
  });

  it("drop after: the create happens, then the connection dies", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({ method: "POST", path: "/v2/deployments", drop: "after" });
    await expect(em.post("/v2/deployments", em.createBody("internal_container", "ghost"))).rejects.toThrow(
      /socket hang up|ECONNRESET/,
    );
    const list = await em.get("/v2/deployments?name=ghost");
    expect(list.json.resources).toHaveLength(1);
    // The retry a careful client makes finds the name taken.
    expect((await em.post("/v2/deployments", em.createBody("internal_container", "ghost"))).status).toBe(409);
  });

  it("truncated: the work is done and half of the JSON answer arrives", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({ method: "POST", path: "/v2/deployments", body: "truncated" });
    const response = await em.post("/v2/deployments", em.createBody("internal_container", "half"));
    expect(response.status).toBe(201);
    expect(response.headers["content-type"]).toBe("application/json");
    expect(() => JSON.parse(response.text)).toThrow();
    expect(response.text.startsWith('{"name":"half"')).toBe(true);
    expect(await deploymentCount(em)).toBe(1);
  });

  it("latency: the work is done at once, the answer held back", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({ method: "POST", path: "/v2/deployments", latency_ms: 5000 });
    const request = em.request("POST", "/v2/deployments", {
      body: em.createBody("internal_container", "slow"),
      timeoutMs: 100,
    });
    await expect(request).rejects.toThrow(/timed out/);
    // The client gave up, but the deployment exists.
    expect((await em.get("/v2/deployments?name=slow")).json.resources).toHaveLength(1);

    em.emulator.addFault({ method: "GET", path: "/v2/listeners", latency_ms: 150 });
    const started = performance.now();
    expect((await em.get("/v2/listeners")).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });
});

describe("fault control validation", () => {
  it("refuses faults that make no sense (422)", async () => {
    const em = await startTestEmulator();
    for (const body of [
      {},
      { path: "v2/deployments", status: 503 },
      { path: "/v2/deployments" },
      { path: "/v2/deployments", status: 99 },
      { path: "/v2/deployments", drop: "sometimes" },
      { path: "/v2/deployments", drop: "after", status: 500 },
      { path: "/v2/deployments", body: "truncated", status: 500 },
      { path: "/v2/deployments", count: 0, status: 500 },
      { path: "/v2/deployments", status: 500, colour: "red" },
      { path: "/_emulator/stats", status: 500 },
      [],
    ]) {
      const response = await em.post("/_emulator/faults", body, control);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(Array.isArray(response.json.detail)).toBe(true);
    }
    expect(() => em.emulator.addFault({ path: "/x" })).toThrow(/no effect/);
  });
});
