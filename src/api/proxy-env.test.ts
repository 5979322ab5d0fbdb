// Proxy variables as curl reads them: which proxy a URL takes, NO_PROXY (names, domains,
// addresses, networks, ports), ALL_PROXY, values without a scheme, and values cpctl cannot use.
import { isIP } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { bypassesProxy } from "./no-proxy.js";
import { proxyEnvironment, shownProxy } from "./proxy-env.js";

const route = (env: Record<string, string>, url: string) =>
  proxyEnvironment(env)?.routeFor(new URL(url)) ?? null;

describe("which proxy a URL takes", () => {
  it("none without a proxy variable; NO_PROXY alone is nothing to load", () => {
    expect(proxyEnvironment({})).toBeNull();
    expect(proxyEnvironment({ NO_PROXY: "*", HTTP_PROXY: "  " })).toBeNull();
  });

  it("each scheme its own variable, lower case first; ALL_PROXY when the scheme's is not set", () => {
    const env = {
      HTTPS_PROXY: "http://tls-proxy:3128",
      http_proxy: "http://lower:1",
      HTTP_PROXY: "http://upper:2",
    };
    expect(route(env, "https://cp.example.com")?.url.href).toBe("http://tls-proxy:3128/");
    expect(route(env, "http://cp.example.com")?.url.href).toBe("http://lower:1/");
    expect(route(env, "http://cp.example.com")?.variable).toBe("http_proxy");
    const all = { ALL_PROXY: "http://everything:3128", HTTPS_PROXY: "http://tls-proxy:3128" };
    expect(route(all, "http://cp.example.com")?.url.href).toBe("http://everything:3128/");
    expect(route(all, "http://cp.example.com")?.variable).toBe("ALL_PROXY");
    expect(route(all, "https://cp.example.com")?.variable).toBe("HTTPS_PROXY");
    expect(route({ all_proxy: "a:1", ALL_PROXY: "b:2" }, "https://x")?.url.host).toBe("a:1");
    expect(route({ HTTPS_PROXY: "http://p:1" }, "http://cp.example.com")).toBeNull();
  });

  it("a value without a scheme is an http:// proxy, credentials and all", () => {
    const proxy = route({ HTTPS_PROXY: "alice:pa%40ss@proxy.internal:3128" }, "https://cp")!;
    expect(proxy.url.protocol).toBe("http:");
    expect(proxy.url.host).toBe("proxy.internal:3128");
    expect(decodeURIComponent(proxy.url.password)).toBe("pa@ss");
    expect(proxy.shown).toBe("http://****@proxy.internal:3128");
    expect(route({ HTTP_PROXY: "proxy:3128" }, "http://cp")!.url.href).toBe("http://proxy:3128/");
    expect(route({ HTTP_PROXY: "[::1]:3128" }, "http://cp")!.url.host).toBe("[::1]:3128");
  });

  it("https:// and socks5:// (socks5h://) proxies; a path is ignored, as curl does", () => {
    expect(route({ HTTPS_PROXY: "https://p:8443/some/path" }, "https://cp")!.url.href).toBe(
      "https://p:8443/",
    );
    expect(route({ HTTPS_PROXY: "socks5://u:p@p:1080" }, "https://cp")!.url.href).toBe("socks5://u:p@p:1080");
    expect(route({ HTTPS_PROXY: "socks5h://p:1080" }, "https://cp")!.url.protocol).toBe("socks5:");
  });

  it("a value cpctl cannot use is a usage error that names the variable, never its password", () => {
    for (const value of [
      "ftp://proxy:21",
      "socks4://proxy:1080",
      "http://",
      "http://user:hunter2@[not-an-address",
      "user:hunter2@proxy:not-a-port",
      "::::",
    ]) {
      let thrown: unknown;
      try {
        route({ HTTPS_PROXY: value }, "https://cp.example.com");
      } catch (error) {
        thrown = error;
      }
      expect(thrown, value).toBeInstanceOf(UsageError);
      expect((thrown as Error).message, value).toMatch(/^HTTPS_PROXY/);
      expect((thrown as Error).message).not.toContain("hunter2");
    }
  });

  it("a malformed variable is nothing to the requests it does not apply to", () => {
    const env = { HTTPS_PROXY: "ftp://nonsense", HTTP_PROXY: "garbage value with spaces" };
    expect(route({ HTTPS_PROXY: env.HTTPS_PROXY }, "http://cp.example.com")).toBeNull();
    expect(() => route(env, "http://cp.example.com")).toThrow(/^HTTP_PROXY/);
    expect(route({ ...env, NO_PROXY: "cp.example.com" }, "https://cp.example.com")).toBeNull();
  });

  it("the trace line masks credentials, with or without a scheme, and says when a value is unusable", () => {
    expect(proxyEnvironment({ HTTP_PROXY: "user:s3cret@proxy:3128" })!.describe()).toBe(
      "* proxy: https:// direct, http:// http://****@proxy:3128 (HTTP_PROXY); NO_PROXY=(unset)",
    );
    const bad = proxyEnvironment({ HTTPS_PROXY: "ftp://user:s3cret@proxy", NO_PROXY: "x" })!.describe();
    expect(bad).toBe(
      "* proxy: https:// ftp://****@proxy (HTTPS_PROXY, not a usable proxy address), http:// direct; NO_PROXY=x",
    );
    expect(shownProxy("user:s3cret@proxy:3128")).toBe("http://****@proxy:3128");
    expect(shownProxy("not a url at all: s3cret@host")).not.toContain("s3cret");
  });
});

describe("NO_PROXY", () => {
  it("names match themselves and what is under them, as curl reads them", () => {
    for (const entry of ["example.com", ".example.com", "EXAMPLE.com.", " example.com ,other"]) {
      expect(bypassesProxy("example.com", 443, entry), entry).toBe(true);
      expect(bypassesProxy("www.example.com", 443, entry), entry).toBe(true);
      expect(bypassesProxy("nonexample.com", 443, entry), entry).toBe(false);
      expect(bypassesProxy("example.com.org", 443, entry), entry).toBe(false);
    }
    expect(bypassesProxy("example.com.", 80, "example.com")).toBe(true);
    expect(bypassesProxy("anything", 80, "a.b, *")).toBe(true);
    expect(bypassesProxy("anything", 80, "")).toBe(false);
  });

  it("addresses and networks, IPv4 and IPv6; a name never matches an address", () => {
    expect(bypassesProxy("10.1.2.3", 80, "10.0.0.0/8")).toBe(true);
    expect(bypassesProxy("11.1.2.3", 80, "10.0.0.0/8")).toBe(false);
    expect(bypassesProxy("192.168.1.7", 80, "192.168.1.7")).toBe(true);
    expect(bypassesProxy("192.168.1.8", 80, "192.168.1.7")).toBe(false);
    expect(bypassesProxy("[::1]", 80, "::1")).toBe(true);
    expect(bypassesProxy("[::1]", 80, "[::1]")).toBe(true);
    expect(bypassesProxy("[fe80::1]", 80, "fe80::/10")).toBe(true);
    expect(bypassesProxy("[2001:db8::1]", 80, "fe80::/10")).toBe(false);
    expect(bypassesProxy("localhost", 80, "127.0.0.1")).toBe(false);
    expect(bypassesProxy("127.0.0.1", 80, "localhost")).toBe(false);
    expect(bypassesProxy("10.0.0.1", 80, "10.0.0.0/99")).toBe(false);
  });

  it("HOST:PORT matches that port only", () => {
    expect(bypassesProxy("127.0.0.1", 8124, "127.0.0.1:8124")).toBe(true);
    expect(bypassesProxy("127.0.0.1", 8125, "127.0.0.1:8124")).toBe(false);
    expect(bypassesProxy("[::1]", 8124, "[::1]:8124")).toBe(true);
    expect(bypassesProxy("cp.example.com", 443, "example.com:443")).toBe(true);
  });

  it("property: a host always matches itself and its parent domains, never a longer sibling", () => {
    const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/);
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 4 }), label, (labels, extra) => {
        const host = labels.join(".");
        fc.pre(isIP(host) === 0 && isIP(`${extra}${host}`) === 0);
        for (let i = 0; i < labels.length; i++) {
          expect(bypassesProxy(host, 443, labels.slice(i).join("."))).toBe(true);
        }
        expect(bypassesProxy(`${extra}${host}`, 443, host)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it("property: an IPv4 address is in its own /n network for every n, and outside a /32 of another", () => {
    const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
    fc.assert(
      fc.property(octets, fc.integer({ min: 0, max: 32 }), octets, (address, bits, other) => {
        const ip = address.join(".");
        expect(bypassesProxy(ip, 80, `${ip}/${bits}`)).toBe(true);
        const otherIp = other.join(".");
        expect(bypassesProxy(ip, 80, `${otherIp}/32`)).toBe(ip === otherIp);
      }),
      { numRuns: 200 },
    );
  });
});
