// HTTPS_PROXY, HTTP_PROXY and NO_PROXY (CLI.md "Networks"): every request, the upload PUT
// included, goes through the proxy the environment names for its scheme, unless NO_PROXY
// says to go direct; credentials in the proxy URL are used and never shown.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { closedPort, json, startServer } from "../helpers/http-server.js";
import { makeTestPki } from "../helpers/pki.js";
import { startProxy } from "../helpers/proxy.js";
import { cliEnv, freshDir, runCli } from "../helpers/run-cli.js";
import { startSocksProxy } from "../helpers/socks-proxy.js";

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

describe("proxy variables as curl reads them", () => {
  it("a value without a scheme is an http:// proxy (HTTP_PROXY=127.0.0.1:3128)", async () => {
    const em = await startTestEmulator();
    const p = await startProxy();
    const r = await runCli(["deploy", "list"], {
      env: cliEnv(em, { HTTP_PROXY: p.url.replace("http://", "") }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(p.forwarded).toHaveLength(1);
  });

  it("--debug never shows the password of a proxy given without a scheme", async () => {
    const em = await startTestEmulator();
    const p = await startProxy({ credentials: "alice:proxy-s3cret" });
    const r = await runCli(["deploy", "list", "--debug"], {
      env: cliEnv(em, { HTTP_PROXY: p.url.replace("http://", "alice:proxy-s3cret@") }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`http:// ${p.url.replace("://", "://****@")} (HTTP_PROXY)`);
    expect(r.stderr + r.stdout).not.toContain("proxy-s3cret");
  });

  it("a malformed proxy variable is a usage error naming it (exit 2), never an internal error", async () => {
    const em = await startTestEmulator();
    for (const value of [
      "ftp://proxy.example.com:21",
      "http://",
      "user:hunter2@proxy:port",
      "socks4://p:1080",
    ]) {
      const r = await runCli(["deploy", "list"], { env: cliEnv(em, { HTTP_PROXY: value }) });
      expect(r.code, `${value}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/^error: HTTP_PROXY/);
      expect(r.stderr).not.toMatch(/internal error|hunter2/);
    }
  });

  it("a broken HTTPS_PROXY leaves http:// requests alone", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_container", "plain-http");
    const r = await runCli(["deploy", "list", "-o", "json"], {
      env: cliEnv(em, { HTTPS_PROXY: "ftp://not a proxy" }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((d: { name: string }) => d.name)).toEqual(["plain-http"]);
  });

  it("NO_PROXY with a network (127.0.0.0/8) sends its addresses direct", async () => {
    const em = await startTestEmulator();
    const p = await startProxy();
    for (const noProxy of ["127.0.0.0/8", "10.0.0.0/8,127.0.0.1/32"]) {
      const r = await runCli(["deploy", "list"], {
        env: cliEnv(em, { HTTP_PROXY: p.url, NO_PROXY: noProxy }),
      });
      expect(r.code, r.stderr).toBe(0);
    }
    expect(p.forwarded).toEqual([]);
  });

  it("ALL_PROXY is used when the scheme's own variable is not set", async () => {
    const em = await startTestEmulator();
    const p = await startProxy();
    const r = await runCli(["deploy", "list"], { env: cliEnv(em, { ALL_PROXY: p.url }) });
    expect(r.code, r.stderr).toBe(0);
    expect(p.forwarded).toHaveLength(1);
  });

  it("a host NO_PROXY sends direct is never said to go through the proxy", async () => {
    const p = await startProxy();
    const r = await runCli(["deploy", "list"], {
      env: {
        CPCTL_BASE_URL: `http://127.0.0.1:${await closedPort()}`,
        CPCTL_API_KEY: "k",
        HTTP_PROXY: p.url,
        NO_PROXY: "127.0.0.1",
      },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("connection refused");
    expect(r.stderr).not.toMatch(/proxy/i);
  });
});

describe("what the proxy itself says", () => {
  it("its own 403 page for an http:// request is the proxy's refusal (exit 1), not the control plane's", async () => {
    const em = await startTestEmulator();
    const p = await startProxy({ refuse: 403 });
    const r = await runCli(["deploy", "list"], { env: cliEnv(em, { HTTP_PROXY: p.url }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the proxy ${p.url} (HTTP_PROXY) refused the request to 127.0.0.1:`);
    expect(r.stderr).toContain('"Access denied"');
    expect(r.stderr).not.toMatch(/API key|api key|credentials were refused/i);
    expect(p.forwarded).toHaveLength(1);
  });

  it("a refused CONNECT names the proxy, and is not retried", async () => {
    const p = await startProxy({ refuse: 403 });
    const r = await runCli(["deploy", "list"], {
      env: { CPCTL_BASE_URL: "https://127.0.0.1:9", CPCTL_API_KEY: "k", HTTPS_PROXY: p.url },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `the proxy ${p.url} (HTTPS_PROXY) refused to open a tunnel to 127.0.0.1:9 (HTTP 403`,
    );
    expect(p.tunnels).toHaveLength(1);
  });

  it("a 407 is not retried, for an http:// request or a tunnel", async () => {
    const em = await startTestEmulator();
    const p = await startProxy({ credentials: "alice:right" });
    const plain = await runCli(["deploy", "list"], { env: cliEnv(em, { HTTP_PROXY: p.url }) });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain("asks for credentials (HTTP 407)");
    const wrong = await runCli(["deploy", "list"], {
      env: {
        CPCTL_BASE_URL: "https://127.0.0.1:9",
        CPCTL_API_KEY: "k",
        HTTPS_PROXY: p.url.replace("://", "://alice:wrong@"),
      },
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(
      `the proxy ${p.url.replace("://", "://****@")} (HTTPS_PROXY) refused the credentials`,
    );
    expect(wrong.stderr).not.toContain("wrong@");
    expect(p.authorizations).toHaveLength(1);
  });

  it("a certificate that is not trusted, through a tunnel, is not retried", async () => {
    const pki = makeTestPki();
    const untrusted = await startServer((_req, res) => json(res, 200, { resources: [], offset: 0 }), {
      tls: pki.tls,
    });
    const p = await startProxy();
    const r = await runCli(["deploy", "list"], {
      env: { CPCTL_BASE_URL: untrusted.url, CPCTL_API_KEY: "k", HTTPS_PROXY: p.url },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("caFile");
    expect(p.tunnels).toHaveLength(1);
  });

  it("nor is it retried without a proxy", async () => {
    const pki = makeTestPki();
    const untrusted = await startServer((_req, res) => json(res, 200, { resources: [], offset: 0 }), {
      tls: pki.tls,
    });
    const r = await runCli(["deploy", "list"], {
      env: { CPCTL_BASE_URL: untrusted.url, CPCTL_API_KEY: "k" },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("caFile");
    expect(untrusted.connections()).toBe(1);
  });

  it("a profile's caFile makes an https:// proxy's own certificate trusted too", async () => {
    const em = await startTestEmulator();
    const pki = makeTestPki();
    const p = await startProxy({ tls: pki.tls });
    const home = freshDir("home");
    mkdirSync(join(home, ".config", "cpctl"), { recursive: true });
    writeFileSync(
      join(home, ".config", "cpctl", "config.yaml"),
      `profiles:\n  behind:\n    baseUrl: ${em.url}\n    caFile: ${pki.caFile}\n`,
    );
    const env = { CPCTL_API_KEY: em.apiKey, HTTP_PROXY: p.url };
    const without = await runCli(["deploy", "list"], {
      env: cliEnv(em, { HTTP_PROXY: p.url }),
      homeDir: freshDir("home"),
    });
    expect(without.code).toBe(1);
    expect(without.stderr).toContain(`of the proxy ${p.url} (HTTP_PROXY)`);
    const r = await runCli(["deploy", "list", "--profile", "behind"], { env, homeDir: home });
    expect(r.code, r.stderr).toBe(0);
    // (undici tunnels an http:// request through an https:// proxy too.)
    expect([...p.forwarded, ...p.tunnels]).toHaveLength(1);
  });

  it("a SOCKS5 proxy (socks5h:// too), with credentials", async () => {
    const em = await startTestEmulator();
    const socks = await startSocksProxy({ credentials: ["alice", "s0cks"] });
    const url = socks.url.replace("socks5://", "socks5h://alice:s0cks@");
    const r = await runCli(["deploy", "list"], { env: cliEnv(em, { ALL_PROXY: url }) });
    expect(r.code, r.stderr).toBe(0);
    expect(socks.tunnels).toEqual([`127.0.0.1:${new URL(em.url).port}`]);
    expect(r.stderr).not.toContain("s0cks");
  });
});
