// DELETE /v2/deployments/{id}?force=true (service-facts "Newer endpoints"): force-deleting a
// deployment that is still active is refused with 400. Active, in the emulator: a revision in
// progress (docs/emulator.md). At rest, force=true deletes as a plain delete does.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../../../test/helpers/emulator.js";

afterEach(closeTestEmulators);

const STAGE = 1000;

describe("force delete", () => {
  it("refuses while a revision is in progress (400 naming it), deletes nothing; deletes once it ended", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const d = await em.createDeployment("gitrepo", "busy");
    em.advance(2.5 * STAGE);
    const refused = await em.delete(`/v2/deployments/${d.id}?force=true`);
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      detail:
        `Deployment ${d.id} is still active (revision ${d.latest_revision_id} is AWAITING_BUILD): ` +
        "it cannot be force-deleted. Wait until the revision ends, or delete it without force.",
    });
    expect((await em.get(`/v2/deployments/${d.id}`)).status).toBe(200);
    em.settle();
    expect((await em.delete(`/v2/deployments/${d.id}?force=true`)).status).toBe(204);
    expect((await em.get(`/v2/deployments/${d.id}`)).status).toBe(404);
  });

  it("a failed revision is not in progress; without force (or force=false) a busy one is deleted", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    em.emulator.failNextRevision({ stage: "QUEUED" });
    const failed = await em.createDeployment("internal_container", "failed");
    em.settle();
    expect((await em.delete(`/v2/deployments/${failed.id}?force=true`)).status).toBe(204);
    const busy = await em.createDeployment("internal_container", "busy");
    const other = await em.createDeployment("internal_container", "other");
    expect((await em.delete(`/v2/deployments/${busy.id}?force=false`)).status).toBe(204);
    expect((await em.delete(`/v2/deployments/${other.id}`)).status).toBe(204);
  });

  it("force must be a boolean (422)", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_container");
    const answer = await em.delete(`/v2/deployments/${d.id}?force=please`);
    expect(answer.status).toBe(422);
    expect(answer.json.detail[0]).toMatchObject({ loc: ["query", "force"], type: "bool_parsing" });
  });
});
