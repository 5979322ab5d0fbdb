// A profile's caFile: an https:// control plane whose certificate a private authority signed is
// trusted once the user config names that authority, directly and through a proxy's tunnel.
// A project file may not choose authorities.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { frontOf } from "../helpers/front.js";
import type { TestServer } from "../helpers/http-server.js";
import { makeTestPki } from "../helpers/pki.js";
import { startProxy } from "../helpers/proxy.js";
import { runCli } from "../helpers/run-cli.js";
import { sandbox } from "./fixtures.js";

let em: TestEmulator;
let server: TestServer;
let url = "";
let pki = "";

beforeAll(async () => {
  em = await startTestEmulator();
  await em.createDeployment("internal_container", "over-tls");
  const made = makeTestPki();
  pki = made.dir;
  // An https:// front for the emulator, its certificate signed by the test authority.
  server = await frontOf(em, { tls: made.tls });
  url = server.url;
});

afterAll(async () => {
  await server.close();
  await em.close();
});

function profile(caLine: string) {
  const s = sandbox();
  s.user(`profiles:\n  private:\n    baseUrl: ${url}\n${caLine}`);
  return s;
}

describe("caFile", () => {
  it("without it, a private authority's certificate is refused with a hint that names caFile", async () => {
    const s = profile("");
    const r = await runCli(["deploy", "list", "--profile", "private"], {
      homeDir: s.home,
      cwd: s.cwd,
      env: { CPCTL_API_KEY: em.apiKey },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("TLS handshake with 127.0.0.1");
    expect(r.stderr).toContain("caFile");
  });

  it("with it in the user config (relative to that file), the control plane is trusted", async () => {
    const s = profile(`    caFile: ${join(pki, "ca.pem")}\n`);
    writeFileSync(join(s.home, ".config", "cpctl", "ca.pem"), readFileSync(join(pki, "ca.pem")));
    for (const caFile of [join(pki, "ca.pem"), "ca.pem"]) {
      s.user(`profiles:\n  private:\n    baseUrl: ${url}\n    caFile: ${caFile}\n`);
      const r = await runCli(["deploy", "list", "--profile", "private", "-o", "json"], {
        homeDir: s.home,
        cwd: s.cwd,
        env: { CPCTL_API_KEY: em.apiKey },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).map((d: { name: string }) => d.name)).toEqual(["over-tls"]);
    }
  });

  it("through an HTTPS_PROXY tunnel too", async () => {
    const proxy = await startProxy();
    const s = profile(`    caFile: ${join(pki, "ca.pem")}\n`);
    const r = await runCli(["deploy", "list", "--profile", "private", "-o", "json"], {
      homeDir: s.home,
      cwd: s.cwd,
      env: { CPCTL_API_KEY: em.apiKey, HTTPS_PROXY: proxy.url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.tunnels).toEqual([url.replace("https://", "")]);
  });

  it("a project file may not name one; a file that is not a certificate is a clear error", async () => {
    const s = profile("");
    s.project(".cpctlrc.yaml", `profiles:\n  private:\n    caFile: ${join(pki, "ca.pem")}\n`);
    const fromProject = await runCli(["deploy", "list", "--profile", "private"], {
      homeDir: s.home,
      cwd: s.cwd,
      env: { CPCTL_API_KEY: em.apiKey },
    });
    expect(fromProject.code).toBe(2);
    expect(fromProject.stderr).toContain("caFile is read from the user config only");
    const wrong = profile(`    caFile: ${join(pki, "san.cnf")}\n`);
    const notPem = await runCli(["deploy", "list", "--profile", "private"], {
      homeDir: wrong.home,
      cwd: wrong.cwd,
      env: { CPCTL_API_KEY: em.apiKey },
    });
    expect(notPem.code).toBe(2);
    expect(notPem.stderr).toContain("holds no PEM certificate");
  });
});
