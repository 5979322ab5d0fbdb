// --secrets-file as CI jobs write it: a comment after an empty value is an empty value (which
// is refused unless --allow-empty-secrets), not the comment's text sent as the secret; a
// multi-line quoted value (a PEM key) is one secret, sent whole.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { cliEnv, freshDir, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

describe("--secrets-file", () => {
  it("`TOKEN= # from vault` and `TOKEN=#x` are empty values, refused: the comment is never sent", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("external_container", "web");
    const dir = freshDir("secrets");
    for (const line of ["TOKEN= # from vault", "TOKEN=#x"]) {
      writeFileSync(join(dir, "ci.env"), `${line}\n`);
      const r = await runCli(["deploy", "patch", "web", "--secrets-file", "ci.env", "-y"], {
        env: cliEnv(em),
        cwd: dir,
      });
      expect(r.code, line).toBe(2);
      expect(r.stderr).toContain("secret TOKEN (--secrets-file ci.env:1) is empty");
      const [deployment] = (await em.get("/v2/deployments?name=web")).json.resources;
      expect(deployment.secrets ?? []).toEqual([]);
    }
  });

  it("a multi-line quoted value (a PEM key) is sent whole", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("external_container", "web");
    const dir = freshDir("secrets");
    const pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----";
    writeFileSync(join(dir, "keys.env"), `SIGNING_KEY="${pem}"\nOTHER=plain\n`);
    const r = await runCli(["deploy", "patch", "web", "--secrets-file", "keys.env", "-y"], {
      env: cliEnv(em),
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(0);
    const [listed] = (await em.get("/v2/deployments?name=web")).json.resources;
    const stored = await em.get(`/v2/deployments/${listed.id}`);
    expect(stored.json.secrets).toEqual(
      expect.arrayContaining([
        { name: "SIGNING_KEY", value: pem },
        { name: "OTHER", value: "plain" },
      ]),
    );
    expect(r.stderr + r.stdout).not.toContain("MIIEvQ");
  });

  it("- reads stdin; it cannot share stdin with -f -; a file with no secrets is said so", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("external_container", "web", {
      secrets: [{ name: "KEEP", value: "kept-value" }],
    });
    const r = await runCli(["deploy", "patch", "web", "--secrets-file", "-", "-o", "json"], {
      env: cliEnv(em),
      stdin: "TOKEN='from stdin'\n",
    });
    expect(r.code, r.stderr).toBe(0);
    expect((await em.get(`/v2/deployments/${d.id}`)).json.secrets).toEqual([
      { name: "KEEP", value: "kept-value" },
      { name: "TOKEN", value: "from stdin" },
    ]);
    expect(r.stdout + r.stderr).not.toContain("from stdin");

    const bad = await runCli(["deploy", "patch", "web", "--secrets-file", "-"], {
      env: cliEnv(em),
      stdin: "TOKEN=pa#ss\n",
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("stdin:1: the value of TOKEN holds '#'");

    const both = await runCli(["deploy", "patch", "web", "-f", "-", "--secrets-file", "-"], {
      env: cliEnv(em),
      stdin: "secrets: []\n",
    });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("-f - and --secrets-file - would both read stdin");

    const dir = freshDir("secrets");
    writeFileSync(join(dir, "empty.env"), "# nothing yet\n");
    const empty = await runCli(["deploy", "patch", "web", "--secrets-file", "empty.env"], {
      env: cliEnv(em),
      cwd: dir,
    });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain(
      "--secrets-file empty.env holds no secrets (NAME=VALUE lines): nothing to change",
    );
    const patches = em.emulator.stats().requests["PATCH /v2/deployments/{deployment_id}"] ?? 0;
    expect(patches).toBe(1);
  });
});
