// The /_emulator/ controls not covered elsewhere: clock, stats, reset, health.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../../../test/helpers/emulator.js";
import { EmulatorHealthAnswer } from "../../model/emulator-control-answers.js";
import { startEmulator } from "../server.js";

afterEach(closeTestEmulators);

const control = { auth: false } as const;

describe("controls", () => {
  it("moves the clock forward, never back", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const created = await em.createDeployment("internal_container");
    const before = (await em.get("/_emulator/clock", control)).json;
    expect(before.now_ms).toBe(em.clock.now());
    expect(before.offset_ms).toBeNull();
    const moved = await em.post("/_emulator/clock", { advance_ms: 10_000 }, control);
    expect(moved.status).toBe(200);
    expect(moved.json.now_ms).toBe(before.now_ms + 10_000);
    expect((await em.get(`/v2/deployments/${created.id}`)).json.status).toBe("READY");
    for (const body of [{ advance_ms: -1 }, { advance_ms: 1.5 }, { advance_ms: "10" }, {}, [5]]) {
      const refused = await em.post("/_emulator/clock", body, control);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(refused.json.detail[0].loc).toEqual(["body", "advance_ms"]);
    }
  });

  it("the default clock is real time plus the skipped offset", async () => {
    const em = await startEmulator({ port: 0 });
    try {
      const view = em.advanceClock(60_000);
      expect(view.offset_ms).toBe(60_000);
      expect(em.now()).toBeGreaterThanOrEqual(Date.now() + 59_000);
    } finally {
      await em.close();
    }
  });

  it("counts API requests per route and method (not the controls)", async () => {
    const em = await startTestEmulator();
    const created = await em.createDeployment("internal_container");
    await em.get(`/v2/deployments/${created.id}`);
    await em.get(`/v2/deployments/${created.id}`);
    await em.get("/nowhere");
    await em.get("/_emulator/faults", control);
    const stats = (await em.get("/_emulator/stats", control)).json;
    expect(stats).toEqual({
      requests: {
        "GET (unmatched)": 1,
        "GET /v2/deployments/{deployment_id}": 2,
        "POST /v2/deployments": 1,
      },
      total: 4,
    });
  });

  it("resets to empty (deployments, faults, counts) and answers health", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_container");
    em.emulator.addFault({ path: "/v2/listeners", status: 500 });
    em.emulator.failNextRevision({ stage: "QUEUED" });
    expect((await em.post("/_emulator/reset", {}, control)).status).toBe(204);
    expect((await em.get("/v2/deployments")).json.resources).toEqual([]);
    expect(em.emulator.faults()).toEqual([]);
    expect((await em.get("/_emulator/revisions/fail-next")).json.rules).toEqual([]);
    expect(em.emulator.tracingProjects()).toEqual([]);
    expect(em.emulator.stats()).toEqual({ requests: { "GET /v2/deployments": 1 }, total: 1 });
    const health = await em.get("/_emulator/health", control);
    expect(health.status).toBe(200);
    expect(health.json.status).toBe("ok");
    // What a control's client checks before it sends credentials (api/emulator-controls.ts).
    expect(EmulatorHealthAnswer.safeParse(health.json).success).toBe(true);
    expect(health.json.service).toBe("cpctl-emulator");
  });
});
