// RunningEmulator.observe: tests act at a precise moment (a request arrived; its work is
// done while a fault still holds its answer back) instead of sleeping.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../../test/helpers/emulator.js";
import type { RequestEvent } from "./server.js";

afterEach(closeTestEmulators);

describe("observe", () => {
  it("reports each API request when it arrives and when its work is done, not the controls", async () => {
    const em = await startTestEmulator();
    const events: RequestEvent[] = [];
    const stop = em.emulator.observe((event) => events.push(event));
    await em.post("/v2/deployments", em.createBody("internal_container", "seen"));
    await em.get("/_emulator/faults", { auth: false });
    await em.get("/nowhere");
    stop();
    await em.get("/v2/deployments");
    expect(events).toEqual([
      { phase: "received", method: "POST", route: "POST /v2/deployments" },
      { phase: "handled", method: "POST", route: "POST /v2/deployments", status: 201 },
      { phase: "received", method: "GET", route: "GET (unmatched)" },
      { phase: "handled", method: "GET", route: "GET (unmatched)", status: 404 },
    ]);
  });

  it("says the work is done before a latency fault lets the answer go; a work-less fault is only received", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({ method: "POST", path: "/v2/deployments", latency_ms: 60_000 });
    const done = new Promise<RequestEvent>((resolve) => {
      const stop = em.emulator.observe((event) => {
        if (event.phase !== "handled") return;
        stop();
        resolve(event);
      });
    });
    const pending = em.post("/v2/deployments", em.createBody("internal_container", "held"), {
      timeoutMs: 120_000,
    });
    pending.catch(() => {}); // cut when the emulator closes
    expect(await done).toMatchObject({ status: 201 });
    expect((await em.get("/v2/deployments?name=held")).json.resources).toHaveLength(1);

    em.emulator.addFault({ method: "GET", path: "/v2/listeners", status: 503 });
    const phases: string[] = [];
    em.emulator.observe((event) => phases.push(event.phase));
    expect((await em.get("/v2/listeners")).status).toBe(503);
    expect(phases).toEqual(["received"]);
  });
});
