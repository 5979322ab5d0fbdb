// `cpctl integrations repos <INTEGRATION_ID> [--alt]` (issue 34, point 4): the repositories a
// git integration can reach, for --repo-url.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { cliEnv, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

describe("integrations repos", () => {
  it("lists owner/name, URL, default branch and ID; -o json the service's objects; -o id the URLs", async () => {
    const em = await startTestEmulator();
    const [integration] = em.emulator.seed(em.tenantId).integrations;
    const table = await runCli(["integrations", "repos", integration!.id], { env: cliEnv(em) });
    expect(table.code, table.stderr).toBe(0);
    const rows = table.stdout
      .trim()
      .split("\n")
      .map((line) => line.split("\t"));
    expect(rows[0]).toEqual([
      `${integration!.name}/agent`,
      `https://github.com/${integration!.name}/agent`,
      "main",
      expect.stringMatching(/^\d+$/),
    ]);
    const json = await runCli(["integrations", "repos", integration!.id, "-o", "json"], { env: cliEnv(em) });
    expect(JSON.parse(json.stdout)[0]).toMatchObject({ host_integration_id: integration!.id, name: "agent" });
    const ids = await runCli(["integrations", "repos", integration!.id, "-o", "id"], { env: cliEnv(em) });
    expect(ids.stdout.trim().split("\n")).toContain(
      `https://github.com/${integration!.name}/research-assistant`,
    );
  });

  it("--alt for an integration of the alternate listing; the wrong listing is exit 4; a bad ID exit 2, nothing sent", async () => {
    const em = await startTestEmulator();
    const [alt] = em.emulator.seed(em.tenantId).altIntegrations;
    const r = await runCli(["integrations", "repos", alt!.id, "--alt", "-o", "json"], { env: cliEnv(em) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0].owner).toBe(alt!.name);
    const wrong = await runCli(["integrations", "repos", alt!.id], { env: cliEnv(em) });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain(`Integration ID ${alt!.id} not found.`);
    const before = em.emulator.stats().total;
    const bad = await runCli(["integrations", "repos", "acme"], { env: cliEnv(em) });
    expect(bad.code).toBe(2);
    expect(em.emulator.stats().total).toBe(before);
  });
});
