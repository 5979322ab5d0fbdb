// `deploy status` (issue 33, point 2): name, address, health, the active revision and its age,
// the latest when it differs, what changed last; -o json as CLI.md gives it; --check exits 7
// unless healthy.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { cliEnv, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const status = (em: TestEmulator, ...args: string[]) =>
  runCli(["deploy", "status", ...args], { env: cliEnv(em) });

const HOUR = 3_600_000;

describe("deploy status", () => {
  it("a healthy deployment: one screen, and -o json in the contract's shape", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const created = await em.createDeployment("internal_container", "agent");
    em.settle();
    em.advance(2 * HOUR);
    const before = em.emulator.stats();
    const r = await status(em, "agent");
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toEqual([
      `deployment\tagent (${created.id})`,
      `url\t${created.source_config.custom_url}`,
      'health\tok (/ok answered {"ok": true})',
      `active\t${created.latest_revision_id} DEPLOYED, since 2h ago`,
      "last change\tthe first revision of agent",
    ]);
    // One look-up, then the revisions and the health check at once.
    const after = em.emulator.stats();
    expect(after.total - before.total).toBe(3);

    const json = await status(em, "agent", "-o", "json", "--check");
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      deployment_id: created.id,
      deployment_name: "agent",
      url: created.source_config.custom_url,
      health: "ok",
      active_revision: { id: created.latest_revision_id, status: "DEPLOYED" },
      latest_revision: { id: created.latest_revision_id, status: "DEPLOYED" },
    });
  });

  it("before any revision is deployed: failing (503), no active revision; --check exits 7", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const created = await em.createDeployment("internal_container", "agent");
    const r = await status(em, created.id, "--check");
    expect(r.code).toBe(7);
    expect(r.stdout).toMatch(/^health\tfailing \(HTTP 503: No revision of deployment .* is DEPLOYED yet/m);
    expect(r.stdout).toContain("active\tno revision is DEPLOYED yet");
    expect(r.stdout).toMatch(/^latest\t\S+ CREATING, started just now$/m);
    expect(r.stderr).toContain("error: deployment agent is not healthy: failing (HTTP 503");

    const json = await status(em, "agent", "--check", "-o", "json");
    expect(json.code).toBe(7);
    expect(JSON.parse(json.stdout)).toMatchObject({ health: "failing", active_revision: null });
    expect(JSON.parse(json.stderr).error.code).toBe("unverified");
  });

  it("an unhealthy new revision, and a failed latest one: each said, with what changed", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const created = await em.createDeployment("internal_container", "agent");
    em.settle();
    em.emulator.setHealth(created.id, false);
    await em.patch(`/v2/deployments/${created.id}`, {
      source_revision_config: { image_uri: "example.com/a:2" },
    });
    em.settle();
    const unhealthy = await status(em, "agent", "--check");
    expect(unhealthy.code).toBe(7);
    expect(unhealthy.stdout).toMatch(/^health\tfailing \(HTTP 500: Revision .* is unhealthy/m);
    expect(unhealthy.stdout).toContain(
      "last change\timage_uri registry.example.com/agent:1.0.0 -> example.com/a:2",
    );

    em.emulator.failNextRevision({ stage: "DEPLOYING" });
    em.emulator.setHealth(created.id, true);
    const patched = await em.patch(`/v2/deployments/${created.id}`, {
      source_revision_config: { image_uri: "example.com/a:3" },
    });
    em.settle();
    const r = await status(em, "agent");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^latest\\t${patched.json.latest_revision_id} DEPLOY_FAILED, started`, "m"),
    );
    expect(r.stdout).toMatch(/^health\tok/m);
  });

  it("an address where the key is not sent, or that does not answer: unknown, with the reason", async () => {
    const em = await startTestEmulator();
    const body = em.createBody("external_container");
    await em.createDeployment("external_container", "far", {
      source_config: { ...(body.source_config as object), custom_url: "http://agent.example.invalid" },
    });
    const far = await status(em, "far");
    expect(far.code, far.stderr).toBe(0);
    expect(far.stdout).toContain(
      "health\tunknown (its address is plain http to another host (agent.example.invalid): cpctl does not send the API key there)",
    );
    await em.createDeployment("external_container", "closed", {
      source_config: { ...(body.source_config as object), custom_url: "http://127.0.0.1:1" },
    });
    const closed = await status(em, "closed", "-o", "json");
    expect(JSON.parse(closed.stdout).health).toBe("unknown");
  });
});
