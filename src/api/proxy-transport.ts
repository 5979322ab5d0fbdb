// The transport for a run with HTTP_PROXY / HTTPS_PROXY set: every request (the upload PUT
// too) through undici's EnvHttpProxyAgent, which honours NO_PROXY (hosts, .domain suffixes,
// host:port, `*`). Loaded only then: undici costs a few hundred milliseconds to start
// (docs/performance.md), which a run without a proxy never pays.
//
// As curl does, an https:// URL goes through HTTPS_PROXY (a CONNECT tunnel) and an http://
// one through HTTP_PROXY (a forward-proxy request); a scheme with no proxy set goes direct.
// Credentials in the proxy URL (http://user:pass@proxy:3128) are sent as
// Proxy-Authorization and never shown.
import { EnvHttpProxyAgent, request as undiciRequest } from "undici";
import { InterruptedError, NetworkError } from "../errors.js";
import { type ProxySettings, shownProxy } from "./proxy-env.js";
import {
  bodyStream,
  parseHttpUrl,
  RequestInterruptedError,
  type Transport,
  type TransportResponse,
} from "./transport.js";

interface ProxyTransportOptions {
  /** Extra certificate authorities (a profile's caFile), PEM. */
  ca?: string[];
}

export function proxyTransport(settings: ProxySettings, options: ProxyTransportOptions = {}): Transport {
  const tls = options.ca ? { ca: options.ca } : undefined;
  // One dispatcher per scheme, each given its own proxy (or "" for none: EnvHttpProxyAgent
  // would otherwise fall back from HTTPS_PROXY to HTTP_PROXY, which curl does not).
  const dispatcherFor = (proxy: string | null) =>
    new EnvHttpProxyAgent({
      httpProxy: proxy ?? "",
      httpsProxy: proxy ?? "",
      noProxy: settings.noProxy,
      proxyTunnel: false,
      connect: tls,
      requestTls: tls,
    });
  const dispatchers = { "http:": dispatcherFor(settings.http), "https:": dispatcherFor(settings.https) };

  return async (request) => {
    const url = parseHttpUrl(request.url);
    const scheme = url.protocol === "https:" ? "https:" : "http:";
    const proxy = scheme === "https:" ? settings.https : settings.http;
    const variable = scheme === "https:" ? settings.from.https : settings.from.http;
    const target = `${url.host}${url.port ? "" : url.protocol === "https:" ? ":443" : ":80"}`;
    const what = `${request.method} ${url.pathname}`;
    if (request.signal?.aborted) throw new RequestInterruptedError(`interrupted (${what})`, false);

    const controller = new AbortController();
    let timedOut = false;
    const onAbort = () => controller.abort();
    request.signal?.addEventListener("abort", onAbort, { once: true });
    const timer =
      request.timeoutMs > 0 && Number.isFinite(request.timeoutMs)
        ? setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, request.timeoutMs)
        : undefined;
    try {
      const response = await undiciRequest(url, {
        method: request.method as "GET",
        // A streamed body goes with its length, as the direct transport sends it (not chunked).
        headers:
          request.body && !Buffer.isBuffer(request.body)
            ? { ...request.headers, "content-length": String(request.body.length) }
            : request.headers,
        body: request.body && !Buffer.isBuffer(request.body) ? bodyStream(request.body) : request.body,
        dispatcher: dispatchers[scheme],
        signal: controller.signal,
        // The deadline above bounds the whole exchange, as the direct transport's does.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      const body = Buffer.from(await response.body.arrayBuffer());
      return {
        status: response.statusCode,
        headers: flatten(response.headers),
        body,
      } satisfies TransportResponse;
    } catch (error) {
      if (request.signal?.aborted) throw new RequestInterruptedError(`interrupted (${what})`, true);
      if (timedOut) {
        throw new NetworkError(
          `no complete answer from ${target} within ${request.timeoutMs} ms (${what}${proxy ? `, through the proxy ${shownProxy(proxy)}` : ""}): raise --request-timeout or check the proxy`,
          "timeout",
          true,
        );
      }
      if (error instanceof InterruptedError || error instanceof NetworkError) throw error;
      throw proxyError(error as Error & { code?: string; cause?: unknown }, {
        proxy,
        variable,
        target,
        what,
      });
    } finally {
      if (timer) clearTimeout(timer);
      request.signal?.removeEventListener("abort", onAbort);
    }
  };
}

interface Where {
  proxy: string | null;
  variable: string | null;
  target: string;
  what: string;
}

/** undici's errors as cpctl's, naming the proxy when it is the proxy that failed. */
function proxyError(error: Error & { code?: string; cause?: unknown }, where: Where): NetworkError {
  const viaProxy = where.proxy ? ` through the proxy ${shownProxy(where.proxy)} (${where.variable})` : "";
  const fix = where.proxy
    ? `check ${where.variable}, or add the host to NO_PROXY to go direct`
    : "is the control plane running there? set --base-url or CPCTL_BASE_URL";
  if (/\(407\)/.test(error.message)) {
    return new NetworkError(
      `the proxy ${shownProxy(where.proxy ?? "")} (${where.variable}) asks for credentials (HTTP 407): put them in the proxy URL, e.g. http://USER:PASSWORD@proxy:3128`,
      "unreachable",
      false,
    );
  }
  const tunnel = /Proxy response \((\d+)\)/.exec(error.message);
  if (tunnel) {
    return new NetworkError(
      `the proxy ${shownProxy(where.proxy ?? "")} (${where.variable}) would not connect to ${where.target} (HTTP ${tunnel[1]} to CONNECT): ${fix}`,
      "unreachable",
      false,
    );
  }
  const code = codeOf(error);
  if (
    code === "ECONNREFUSED" ||
    code === "ENOTFOUND" ||
    code === "EAI_AGAIN" ||
    code === "UND_ERR_CONNECT_TIMEOUT"
  ) {
    const reason =
      code === "ECONNREFUSED"
        ? "connection refused"
        : code === "UND_ERR_CONNECT_TIMEOUT"
          ? "connect timed out"
          : "host name not found";
    return new NetworkError(
      `cannot reach ${where.target}${viaProxy}: ${reason}; ${fix}`,
      "unreachable",
      false,
    );
  }
  return new NetworkError(
    `the connection to ${where.target}${viaProxy} failed before a complete answer arrived (${where.what}): ${code ?? error.message}`,
    "connection_reset",
    true,
  );
}

function codeOf(error: { code?: string; cause?: unknown }): string | undefined {
  const cause = error.cause as { code?: string } | undefined;
  return cause?.code ?? error.code;
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}
