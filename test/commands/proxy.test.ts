// HTTPS_PROXY, HTTP_PROXY and NO_PROXY (CLI.md "Networks"): every request, the upload PUT
// included, goes through the proxy the environment names for its scheme, unless NO_PROXY
// says to go direct; credentials in the proxy URL are used and never shown.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { startProxy } from "../helpers/proxy.js";
import { cliEnv, freshDir, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

describe("HTTP_PROXY and NO_PROXY", () => {
  it("sends every request through the proxy the scheme's variable names", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_container", "via-proxy");
    const p = await startProxy();
    const r = await runCli(["deploy", "list", "-o", "json"], { env: cliEnv(em, { HTTP_PROXY: p.url }) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((d: { name: string }) => d.name)).toEqual(["via-proxy"]);
    expect(p.forwarded).toEqual([expect.stringMatching(new RegExp(`^GET ${em.url}/v2/deployments\\?`))]);
  });

  it("the lower-case variable wins, and HTTPS_PROXY alone leaves http:// direct (as curl)", async () => {
    const em = await startTestEmulator();
    const upper = await startProxy();
    const lower = await startProxy();
    await runCli(["deploy", "list"], { env: cliEnv(em, { HTTP_PROXY: upper.url, http_proxy: lower.url }) });
    expect(lower.forwarded).toHaveLength(1);
    expect(upper.forwarded).toHaveLength(0);
    const r = await runCli(["deploy", "list"], { env: cliEnv(em, { HTTPS_PROXY: upper.url }) });
    expect(r.code).toBe(0);
    expect(upper.forwarded).toHaveLength(0);
  });

  it("NO_PROXY: hosts, host:port, domain suffixes and *", async () => {
    const em = await startTestEmulator();
    const port = new URL(em.url).port;
    const p = await startProxy();
    const through = async (noProxy: string) => {
      const before = p.forwarded.length;
      const r = await runCli(["deploy", "list"], {
        env: cliEnv(em, { HTTP_PROXY: p.url, NO_PROXY: noProxy }),
      });
      expect(r.code, r.stderr).toBe(0);
      return p.forwarded.length > before;
    };
    expect(await through("127.0.0.1")).toBe(false);
    expect(await through(`127.0.0.1:${port}`)).toBe(false);
    expect(await through("*")).toBe(false);
    expect(await through("example.com, .internal")).toBe(true);
    expect(await through(`127.0.0.1:${Number(port) + 1}`)).toBe(true);
  });

  it("the upload PUT goes through the proxy too", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "src");
    const dir = freshDir("upload");
    mkdirSync(join(dir, "agent"));
    writeFileSync(join(dir, "agent", "agent.json"), "{}\n");
    const p = await startProxy();
    const r = await runCli(["deploy", "upload", "src", "agent"], {
      env: cliEnv(em, { HTTP_PROXY: p.url }),
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(p.forwarded.some((line) => line.startsWith("PUT "))).toBe(true);
    expect(p.forwarded.some((line) => line.startsWith("POST ") && line.includes("/upload-url"))).toBe(true);
  });

  it("credentials in the proxy URL are used and never shown, --debug included", async () => {
    const em = await startTestEmulator();
    const p = await startProxy({ credentials: "alice:proxy-s3cret" });
    const withThem = p.url.replace("://", "://alice:proxy-s3cret@");
    const r = await runCli(["deploy", "list", "--debug"], { env: cliEnv(em, { HTTP_PROXY: withThem }) });
    expect(r.code, r.stderr).toBe(0);
    expect(p.forwarded).toHaveLength(1);
    expect(r.stderr).toContain(
      `* proxy: https:// direct, http:// ${p.url.replace("://", "://****@")} (HTTP_PROXY)`,
    );
    expect(r.stderr + r.stdout).not.toContain("proxy-s3cret");
    expect(r.stderr + r.stdout).not.toContain(Buffer.from("alice:proxy-s3cret").toString("base64"));
  });

  it("a proxy that asks for credentials (407): a clear error that says how to give them", async () => {
    const em = await startTestEmulator();
    const p = await startProxy({ credentials: "alice:right" });
    const r = await runCli(["deploy", "list"], { env: cliEnv(em, { HTTP_PROXY: p.url }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the proxy ${p.url} (HTTP_PROXY) asks for credentials (HTTP 407)`);
    expect(r.stderr).toContain("http://USER:PASSWORD@proxy:3128");
    expect(r.stderr).not.toMatch(/internal error|at .*\.ts:/);
  });

  it("a proxy that refuses connections: a clear error naming it, no stack", async () => {
    const em = await startTestEmulator();
    const gone = await startProxy();
    await gone.close();
    const r = await runCli(["deploy", "list"], { env: cliEnv(em, { HTTP_PROXY: gone.url }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`through the proxy ${gone.url} (HTTP_PROXY): connection refused`);
    expect(r.stderr).toContain("NO_PROXY");
    expect(r.stderr).not.toMatch(/internal error/);
  });
});
