import { expect, it } from "vitest";
import { startTestEmulator } from "../../test/helpers/emulator.js";

it("smoke", async () => {
  const em = await startTestEmulator({ stageMs: 1000 });
  for (const s of ["gitrepo", "external_container", "internal_container", "internal_source"] as const) {
    const d = await em.createDeployment(s);
    console.log(JSON.stringify(d));
  }
  const list = await em.get("/v2/deployments?limit=2");
  console.log(list.status, JSON.stringify(list.json).slice(0, 300));
  em.settle();
  const list2 = await em.get("/v2/deployments");
  console.log(list2.json.resources.map((d: any) => d.status));
  console.log((await em.get("/nope")).text, (await em.request("PUT", "/v2/deployments")).text);
  console.log((await em.post("/v2/deployments", undefined, { rawBody: "{bad" })).text);
  console.log((await em.post("/v2/deployments", [1])).text);
  await em.close();
  expect(1).toBe(1);
});
