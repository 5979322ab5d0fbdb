// A project file (which comes with a cloned repository) must not silently send the user's
// own credential to an address the project chose.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { runCli } from "../helpers/run-cli.js";
import { sandbox } from "./fixtures.js";

afterEach(closeTestEmulators);

describe("a project file redirecting a user credential", () => {
  it("warns when the address comes from the project and the key from the user file", async () => {
    const em = await startTestEmulator();
    const box = sandbox();
    box.user(`profiles:\n  work:\n    baseUrl: http://127.0.0.1:9\n    apiKey: user-file-key-123456\n`);
    box.project(".cpctlrc.yaml", `profiles:\n  work:\n    baseUrl: ${em.url}\n`);
    const r = await runCli(["deploy", "list", "--profile", "work"], { homeDir: box.home, cwd: box.cwd });
    expect(r.stderr).toMatch(/warning: the address .* comes from .*\.cpctlrc\.yaml, a project file/);
    expect(r.stderr).not.toContain("user-file-key-123456");
  });

  it("stays quiet when both come from the same kind of place", async () => {
    const em = await startTestEmulator();
    const box = sandbox();
    box.user(`profiles:\n  work:\n    baseUrl: ${em.url}\n    apiKey: \${env:K}\n`);
    const r = await runCli(["deploy", "list", "--profile", "work"], {
      homeDir: box.home,
      cwd: box.cwd,
      env: { K: em.apiKey },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("project file");
  });
});
