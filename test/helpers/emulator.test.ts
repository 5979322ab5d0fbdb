// The test helper other suites use: per-test emulators, manual clock, stage 0 by default.
import { describe, expect, it } from "vitest";
import { useTestEmulator } from "./emulator.js";

describe("useTestEmulator", () => {
  const em = useTestEmulator();

  it("gives each test a fresh emulator whose revisions deploy at once", async () => {
    const deployment = await em().createDeployment("gitrepo", "first");
    expect(deployment.status).toBe("READY");
    expect(em().url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("starts empty again, on a clock that moves only when told", async () => {
    expect((await em().get("/v2/deployments")).json.resources).toEqual([]);
    const before = em().clock.now();
    em().advance(5000);
    expect(em().emulator.now()).toBe(before + 5000);
  });
});
