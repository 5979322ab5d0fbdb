// The tenant header may be named (CPCTL_TENANT_HEADER, a profile's tenantHeader), but not as
// a header cpctl or HTTP itself sets: as Authorization or X-Api-Key the tenant ID would replace
// the credential, as Host or Content-Length it would change where a request goes or how it is
// framed. Refused before any request, wherever the name comes from.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { cliEnv, runCli } from "../helpers/run-cli.js";
import { sandbox, TENANT_A } from "./fixtures.js";

afterEach(closeTestEmulators);

describe("reserved tenant header names", () => {
  it.each(["Authorization", "x-api-key", "Host", "Content-Length", "Transfer-Encoding", "Cookie"])(
    "CPCTL_TENANT_HEADER=%s: exit 2, nothing sent",
    async (name) => {
      const em = await startTestEmulator();
      const r = await runCli(["deploy", "list", "--tenant-id", TENANT_A], {
        env: cliEnv(em, { CPCTL_TENANT_HEADER: name }),
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `error: environment variable CPCTL_TENANT_HEADER: '${name}' is a header cpctl or HTTP itself sets, not one for the tenant ID; use another name, e.g. X-Tenant-Id\n`,
      );
      expect(em.emulator.stats().total).toBe(0);
    },
  );

  it("in a profile, and in `config set`", async () => {
    const em = await startTestEmulator();
    const s = sandbox();
    s.user(`profiles:\n  p:\n    baseUrl: ${em.url}\n    tenantHeader: authorization\n`);
    const r = await runCli(["deploy", "list", "--profile", "p"], {
      homeDir: s.home,
      cwd: s.cwd,
      env: { CPCTL_API_KEY: em.apiKey },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "profiles.p.tenantHeader (profile p): 'authorization' is a header cpctl or HTTP",
    );
    const set = await runCli(["config", "set", "tenantHeader", "Host", "--profile", "p"], {
      homeDir: s.home,
      cwd: s.cwd,
    });
    expect(set.code).toBe(2);
    expect(set.stderr).toContain("tenantHeader: 'Host' is a header cpctl or HTTP itself sets");
    expect(em.emulator.stats().total).toBe(0);
  });

  it("another name still works", async () => {
    const em = await startTestEmulator({ tenantHeader: "X-Workspace-Id" });
    const r = await runCli(["deploy", "list"], {
      env: cliEnv(em, { CPCTL_TENANT_HEADER: "X-Workspace-Id" }),
    });
    expect(r.code).toBe(0);
  });
});
