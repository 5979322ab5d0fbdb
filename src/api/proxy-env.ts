// Which proxy a request takes, read from the environment as curl reads it:
// - an https:// URL takes HTTPS_PROXY, an http:// one HTTP_PROXY, and either takes ALL_PROXY
//   when its own is not set (each in lower case too, which wins);
// - NO_PROXY names the hosts that go direct (./no-proxy.ts), and is asked first: a host it
//   names never goes near the proxy, nor is named with it in a message;
// - a value without a scheme is an http:// proxy (`proxy:3128`, `user:pass@proxy:3128`); http,
//   https and socks5 (socks5h) proxies are understood; a path is ignored.
// A variable is read only for the requests it applies to: a malformed HTTPS_PROXY is an error
// (exit 2, naming the variable, never its credentials) for an https:// request, and nothing at
// all to an http:// one. Nothing loaded but errors (and a type): every run asks, and a run
// without a proxy variable loads nothing more.
import { UsageError } from "../errors.js";
import type { Env } from "../io.js";
import { bypassesProxy } from "./no-proxy.js";

interface Variable {
  /** The name it was read from: "https_proxy", "HTTP_PROXY", "ALL_PROXY"... */
  name: string;
  value: string;
}

/** A proxy a request goes through. */
export interface ProxyRoute {
  /** The proxy's URL: http:, https: or socks5:, with any credentials, no path. */
  url: URL;
  /** The variable it came from, for messages. */
  variable: string;
  /** The address for messages and the trace: credentials masked. */
  shown: string;
}

export interface ProxyEnvironment {
  /** The proxy a request to `target` goes through, or null to go direct. */
  routeFor(target: URL): ProxyRoute | null;
  /** One line for the --debug trace: what each scheme goes through, credentials masked. */
  describe(): string;
}

function pick(env: Env, name: string): Variable | null {
  for (const variable of [name.toLowerCase(), name]) {
    const value = env[variable]?.trim();
    if (value) return { name: variable, value };
  }
  return null;
}

/** The proxy environment, or null when no proxy variable is set (the common case). */
export function proxyEnvironment(env: Env): ProxyEnvironment | null {
  const all = pick(env, "ALL_PROXY");
  const bySchemes = { "http:": pick(env, "HTTP_PROXY") ?? all, "https:": pick(env, "HTTPS_PROXY") ?? all };
  if (!bySchemes["http:"] && !bySchemes["https:"]) return null;
  const noProxy = pick(env, "NO_PROXY");
  const routes = new Map<Variable, ProxyRoute>();
  const routeOf = (variable: Variable): ProxyRoute => {
    let route = routes.get(variable);
    if (!route) {
      const url = parseProxyUrl(variable);
      route = { url, variable: variable.name, shown: shownProxyUrl(url) };
      routes.set(variable, route);
    }
    return route;
  };
  return {
    routeFor(target) {
      const variable = bySchemes[target.protocol === "https:" ? "https:" : "http:"];
      if (!variable) return null;
      const port = Number(target.port) || (target.protocol === "https:" ? 443 : 80);
      if (noProxy && bypassesProxy(target.hostname, port, noProxy.value)) return null;
      return routeOf(variable);
    },
    describe() {
      const shown = (variable: Variable | null) => {
        if (!variable) return "direct";
        try {
          return `${routeOf(variable).shown} (${variable.name})`;
        } catch {
          return `${shownProxy(variable.value)} (${variable.name}, not a usable proxy address)`;
        }
      };
      return `* proxy: https:// ${shown(bySchemes["https:"])}, http:// ${shown(bySchemes["http:"])}; NO_PROXY=${noProxy?.value ?? "(unset)"}`;
    },
  };
}

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
const PROXY_SCHEMES: Record<string, string> = {
  "http:": "http:",
  "https:": "https:",
  "socks5:": "socks5:",
  // The SOCKS proxy resolves the host name either way (cpctl sends it the name).
  "socks5h:": "socks5:",
  "socks:": "socks5:",
};

/** A proxy variable's value as the URL cpctl uses, or a UsageError that names the variable. */
function parseProxyUrl(variable: Variable): URL {
  const value = SCHEME.test(variable.value) ? variable.value : `http://${variable.value}`;
  const expected =
    "expected [http://|https://|socks5://][USER:PASSWORD@]HOST:PORT, e.g. http://proxy.example.com:3128";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(
      `${variable.name}="${shownProxy(variable.value)}" is not a proxy address: ${expected}`,
    );
  }
  const scheme = PROXY_SCHEMES[url.protocol];
  if (!scheme) {
    throw new UsageError(
      `${variable.name}: ${url.protocol.slice(0, -1)}:// proxies are not supported (${shownProxy(variable.value)}): ${expected}`,
    );
  }
  if (url.hostname === "") {
    throw new UsageError(`${variable.name}="${shownProxy(variable.value)}" names no host: ${expected}`);
  }
  // The URL module keeps a special scheme (http, https) and not the others: a new one for socks.
  const proxy = new URL(`${scheme}//${url.host}`);
  proxy.username = url.username;
  proxy.password = url.password;
  return proxy;
}

/** A parsed proxy URL for messages: credentials replaced by ****, no trailing slash. */
function shownProxyUrl(url: URL): string {
  const credentials = url.username !== "" || url.password !== "";
  return `${url.protocol}//${credentials ? "****@" : ""}${url.host}`;
}

/**
 * A proxy variable's value fit for messages and the trace, whatever it holds: as it would be
 * used (`proxy:3128` is http://proxy:3128), credentials replaced by ****. Text that is not a
 * URL keeps nothing of what came before an `@`.
 */
export function shownProxy(value: string): string {
  try {
    return shownProxyUrl(parseProxyUrl({ name: "", value }));
  } catch {
    const at = value.lastIndexOf("@");
    if (at < 0) return value;
    const scheme = SCHEME.exec(value)?.[0] ?? "";
    return `${scheme}****@${value.slice(at + 1)}`;
  }
}
