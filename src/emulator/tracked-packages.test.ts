// tracked_packages (service-facts "Tracked packages"): accepted on create and PATCH, checked
// strictly as "<package-name>:<version>" with a known name, recorded on the revision started.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../../test/helpers/emulator.js";

afterEach(closeTestEmulators);

describe("tracked_packages", () => {
  it("a create records them on the first revision; a PATCH on the revision it starts", async () => {
    const em = await startTestEmulator();
    const created = await em.post("/v2/deployments", {
      ...em.createBody("internal_source", "adk-agent"),
      tracked_packages: ["google-adk:1.2.3"],
    });
    expect(created.status, created.text).toBe(201);
    const id = created.json.id;
    const first = await em.get(`/v2/deployments/${id}/revisions/${created.json.latest_revision_id}`);
    expect(first.json.tracked_packages).toEqual(["google-adk:1.2.3"]);

    const patched = await em.patch(`/v2/deployments/${id}`, {
      source_revision_config: { agent_config_path: "langgraph.json" },
      tracked_packages: ["google-adk:>=1.0,<2"],
    });
    expect(patched.status, patched.text).toBe(200);
    const second = await em.get(`/v2/deployments/${id}/revisions/${patched.json.latest_revision_id}`);
    expect(second.json.tracked_packages).toEqual(["google-adk:>=1.0,<2"]);

    // A PATCH without them starts a revision without them.
    const third = await em.patch(`/v2/deployments/${id}`, { secrets: [{ name: "A", value: "a-value" }] });
    const revision = await em.get(`/v2/deployments/${id}/revisions/${third.json.latest_revision_id}`);
    expect(revision.json).not.toHaveProperty("tracked_packages");
  });

  it.each([
    [["google-adk"], 'must be "<package-name>:<version>"'],
    [["google-adk:"], 'must be "<package-name>:<version>"'],
    [["google-adk:1.0\nx"], 'must be "<package-name>:<version>"'],
    [["left-pad:1.0.0"], "'left-pad' is not a tracked package"],
    [["google-adk:1", "google-adk:2"], "'google-adk' is listed twice"],
    [[42], 'must be "<package-name>:<version>"'],
    ["google-adk:1", "must be a list of strings"],
  ])("refuses %j with a 422 naming the entry, alongside the body's own problems", async (value, message) => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_source");
    const answer = await em.patch(`/v2/deployments/${d.id}`, {
      source_revision_config: { agent_config_path: "x.json" },
      secrets: [{ name: "1BAD", value: "v" }],
      tracked_packages: value,
    });
    expect(answer.status).toBe(422);
    const locs = answer.json.detail.map((issue: { loc: unknown[] }) => issue.loc.join("."));
    expect(locs.some((loc: string) => loc.startsWith("body.tracked_packages"))).toBe(true);
    expect(locs.some((loc: string) => loc.startsWith("body.secrets"))).toBe(true);
    expect(JSON.stringify(answer.json.detail)).toContain(message.replace(/"/g, '\\"'));
    const create = await em.post("/v2/deployments", {
      ...em.createBody("internal_source"),
      tracked_packages: value,
    });
    expect(create.status).toBe(422);
  });

  it("null is no opinion", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_source");
    const answer = await em.patch(`/v2/deployments/${d.id}`, {
      source_revision_config: { agent_config_path: "x.json" },
      tracked_packages: null,
    });
    expect(answer.status, answer.text).toBe(200);
  });
});
