// `cpctl emulator health DEPLOYMENT failing|ok [--revision ID]` (issue 33, point 1): the
// control that makes a deployment's stand-in agent server fail its health check, sent in the
// caller's tenant like every tenant control.
import { afterEach, describe, expect, it } from "vitest";
import {
  closeTestEmulators,
  httpRequest,
  startTestEmulator,
  type TestEmulator,
} from "../helpers/emulator.js";
import { cliEnv, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const ok = (em: TestEmulator, url: string) =>
  httpRequest(`${url}/ok`, { headers: { "X-Api-Key": em.apiKey } }).then((r) => r.status);

describe("cpctl emulator health", () => {
  it("failing marks the next revision; once it serves /ok answers 500; ok clears it", async () => {
    const em = await startTestEmulator();
    const created = await em.createDeployment("internal_container", "agent");
    const url = created.source_config.custom_url;
    const marked = await runCli(["emulator", "health", "agent", "failing", "-o", "json"], {
      env: cliEnv(em),
    });
    expect(marked.code, marked.stderr).toBe(0);
    expect(JSON.parse(marked.stdout)).toEqual({
      deployment_id: created.id,
      revision_id: null,
      state: "failing",
      url,
    });
    expect(marked.stderr).toContain(
      `the next revision to start of agent will answer /ok with 500: ${url}/ok`,
    );
    expect(await ok(em, url)).toBe(200);
    await em.patch(`/v2/deployments/${created.id}`, {
      source_revision_config: { image_uri: "example.com/a:2" },
    });
    expect(await ok(em, url)).toBe(500);

    const cleared = await runCli(["emulator", "health", "agent", "ok"], { env: cliEnv(em) });
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(await ok(em, url)).toBe(200);
  });

  it("--revision takes an ID prefix; a state that is neither is exit 2, nothing sent", async () => {
    const em = await startTestEmulator();
    const created = await em.createDeployment("internal_container", "agent");
    const prefix = created.latest_revision_id.slice(0, 8);
    const r = await runCli(["emulator", "health", "agent", "failing", "--revision", prefix], {
      env: cliEnv(em),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await ok(em, created.source_config.custom_url)).toBe(500);

    const before = em.emulator.stats().total;
    const bad = await runCli(["emulator", "health", "agent", "sick"], { env: cliEnv(em) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/failing, ok/);
    expect(em.emulator.stats().total).toBe(before);
  });
});
