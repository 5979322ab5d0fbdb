// The built CLI through real proxies, as users meet them: tinyproxy (a Debian package, which
// .ci/run installs; without it these tests say so and skip) forwarding, asking for credentials,
// refusing by its filter and refusing a tunnel, and a SOCKS5 proxy. What is checked is what a
// user sees: the exit code, a message that names the proxy (never its password), one request
// where asking again cannot help, and no warning of Node's or undici's.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { closedPort } from "../helpers/http-server.js";
import { freshDir } from "../helpers/run-cli.js";
import { startSocksProxy } from "../helpers/socks-proxy.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(root, "bin", "cpctl.cjs");

afterEach(closeTestEmulators);

function installed(command: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const hasTinyproxy = installed("tinyproxy");
if (!hasTinyproxy) {
  console.warn(
    "SKIPPED: tinyproxy is not installed (.ci/run installs it with apt-get): the tests through a real proxy are skipped",
  );
}

interface Tinyproxy {
  url: string;
  /** The lines of its log that record a request ("GET http://...", "CONNECT host:port"). */
  requests(): string[];
  stop(): Promise<void>;
}

/** tinyproxy in the foreground on a free port, with these lines added to its configuration. */
async function startTinyproxy(extra: string[] = []): Promise<Tinyproxy> {
  const dir = freshDir("tinyproxy");
  const port = await closedPort();
  const log = join(dir, "log");
  writeFileSync(
    join(dir, "tinyproxy.conf"),
    [
      `Port ${port}`,
      "Listen 127.0.0.1",
      "Timeout 30",
      "MaxClients 20",
      "Allow 127.0.0.1",
      "LogLevel Connect",
      ...extra,
    ]
      .map((line) => line.replaceAll("$DIR", dir))
      .join("\n"),
  );
  writeFileSync(join(dir, "filter"), "");
  const child: ChildProcess = spawn("tinyproxy", ["-d", "-c", join(dir, "tinyproxy.conf")], {
    stdio: ["ignore", "ignore", "ignore"],
    env: { PATH: process.env.PATH ?? "" },
  });
  // Its own log file: -d keeps it in the foreground, and it logs to stderr unless told.
  await waitForPort(port);
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () =>
      readFileSync(log, "utf8")
        .split("\n")
        .flatMap((line) => /Request \(file descriptor \d+\): (\S+ \S+)/.exec(line)?.[1] ?? []),
    stop: async () => {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((resolve) => child.once("exit", resolve));
      }
    },
  };
}

async function waitForPort(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`tinyproxy did not listen on ${port}`);
}

function cpctl(args: string[], env: Record<string, string>) {
  return execa(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: freshDir("home"), CI: "true", ...env },
    extendEnv: false,
    reject: false,
    timeout: 60_000,
  });
}

describe.skipIf(!hasTinyproxy)("through tinyproxy", () => {
  const proxies: Tinyproxy[] = [];
  const start = async (extra: string[] = []) => {
    const proxy = await startTinyproxy([`LogFile "$DIR/log"`, ...extra]);
    proxies.push(proxy);
    return proxy;
  };
  afterAll(async () => {
    await Promise.all(proxies.map((proxy) => proxy.stop()));
  });

  it("forwards every request, given with or without a scheme", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_container", "behind-tinyproxy");
    const proxy = await start();
    for (const value of [proxy.url, proxy.url.replace("http://", "")]) {
      const r = await cpctl(["deploy", "list", "-o", "json"], {
        CPCTL_BASE_URL: em.url,
        CPCTL_API_KEY: em.apiKey,
        HTTP_PROXY: value,
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).map((d: { name: string }) => d.name)).toEqual(["behind-tinyproxy"]);
    }
    expect(proxy.requests()).toEqual([
      expect.stringMatching(new RegExp(`^GET ${em.url}/v2/deployments`)),
      expect.stringMatching(new RegExp(`^GET ${em.url}/v2/deployments`)),
    ]);
  });

  it("asks for credentials (407): said once, not retried; with them, works, and --debug never shows them", async () => {
    const em = await startTestEmulator();
    const proxy = await start(["BasicAuth alice tiny-s3cret"]);
    const env = { CPCTL_BASE_URL: em.url, CPCTL_API_KEY: em.apiKey };
    const without = await cpctl(["deploy", "list"], { ...env, HTTP_PROXY: proxy.url });
    expect(without.exitCode).toBe(1);
    expect(without.stderr).toContain(`the proxy ${proxy.url} (HTTP_PROXY) asks for credentials (HTTP 407)`);
    expect(proxy.requests()).toHaveLength(1);
    const withThem = await cpctl(["deploy", "list", "--debug"], {
      ...env,
      HTTP_PROXY: proxy.url.replace("http://", "alice:tiny-s3cret@"),
    });
    expect(withThem.exitCode, withThem.stderr).toBe(0);
    expect(withThem.stderr).toContain(`http:// ${proxy.url.replace("://", "://****@")} (HTTP_PROXY)`);
    expect(withThem.stderr + withThem.stdout).not.toContain("tiny-s3cret");
  });

  it("its filter's 403 page is the proxy's refusal, exit 1, not the control plane refusing the key", async () => {
    const em = await startTestEmulator();
    const proxy = await start(['Filter "$DIR/filter"', "FilterDefaultDeny Yes"]);
    const r = await cpctl(["deploy", "list"], {
      CPCTL_BASE_URL: em.url,
      CPCTL_API_KEY: em.apiKey,
      HTTP_PROXY: proxy.url,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`the proxy ${proxy.url} (HTTP_PROXY) refused the request to 127.0.0.1:`);
    expect(r.stderr).toContain('"403 Filtered"');
    expect(proxy.requests()).toHaveLength(1);
  });

  it("a tunnel to a port it does not allow: named as the proxy's refusal, not retried", async () => {
    const proxy = await start(["ConnectPort 443"]);
    const r = await cpctl(["deploy", "list"], {
      CPCTL_BASE_URL: "https://127.0.0.1:8443",
      CPCTL_API_KEY: "key",
      HTTPS_PROXY: proxy.url,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      `the proxy ${proxy.url} (HTTPS_PROXY) refused to open a tunnel to 127.0.0.1:8443`,
    );
    expect(proxy.requests()).toEqual(["CONNECT 127.0.0.1:8443"]);
  });
});

describe("through a SOCKS5 proxy", () => {
  it("works, and prints no experimental warning", async () => {
    const em = await startTestEmulator();
    const socks = await startSocksProxy();
    const r = await cpctl(["deploy", "list"], {
      CPCTL_BASE_URL: em.url,
      CPCTL_API_KEY: em.apiKey,
      HTTP_PROXY: socks.url,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(socks.tunnels).toHaveLength(1);
    expect(r.stderr).toBe("");
  });
});
