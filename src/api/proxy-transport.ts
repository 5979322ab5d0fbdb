// The transport for requests that go through a proxy (./proxy-env.ts decides which do): undici,
// loaded only then, for it costs a few hundred milliseconds to start (docs/performance.md)
// that a run without a proxy never pays.
//
// As curl does, an https:// URL goes through a CONNECT tunnel, and an http:// one is sent to an
// http:// proxy as a forward-proxy request; an https:// proxy is reached over TLS (trusting a
// profile's caFile too), a socks5:// one with undici's SOCKS5 client. Credentials in the proxy
// URL (http://user:pass@proxy:3128) are sent as Proxy-Authorization and never shown.
//
// What the proxy itself says is told apart from what the control plane says: a 407, a refused
// tunnel, or a 401/403 page of the proxy's own (not the control plane's JSON) is an error that
// names the proxy and is not retried; so is a certificate that is not trusted.
import { ProxyAgent, Socks5ProxyAgent, request as undiciRequest } from "undici";
import { InterruptedError, NetworkError } from "../errors.js";
import type { ProxyRoute } from "./proxy-env.js";
import {
  BodyLimitExceeded,
  bodyStream,
  isTlsError,
  parseHttpUrl,
  RequestInterruptedError,
  readLimitedBody,
  type Transport,
  type TransportResponse,
} from "./transport.js";

interface ProxyTransportOptions {
  /** Extra certificate authorities (a profile's caFile), PEM: for the proxy and the control plane. */
  ca?: string[];
}

/** Where a request went, for messages. */
interface Where {
  route: ProxyRoute;
  /** "127.0.0.1:8124" */
  target: string;
  /** "GET /v2/deployments" */
  what: string;
}

export function proxyTransport(route: ProxyRoute, options: ProxyTransportOptions = {}): Transport {
  const tls = options.ca ? { ca: options.ca } : undefined;
  const dispatcher =
    route.url.protocol === "socks5:"
      ? withoutExperimentalWarning(
          // requestTls: the TLS of the control plane's own connection, inside the SOCKS tunnel
          // (undici reads it; its type declarations leave it out).
          () => new Socks5ProxyAgent(route.url.href, { requestTls: tls } as Socks5ProxyAgent.Options),
        )
      : new ProxyAgent({ uri: route.url.href, proxyTunnel: false, proxyTls: tls, requestTls: tls });

  return async (request) => {
    const url = parseHttpUrl(request.url);
    const where: Where = {
      route,
      target: `${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}`,
      what: `${request.method} ${url.pathname}`,
    };
    if (request.signal?.aborted) throw new RequestInterruptedError(`interrupted (${where.what})`, false);

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
    let response: TransportResponse;
    try {
      const answer = await undiciRequest(url, {
        method: request.method as "GET",
        // A streamed body goes with its length, as the direct transport sends it (not chunked).
        headers:
          request.body && !Buffer.isBuffer(request.body)
            ? { ...request.headers, "content-length": String(request.body.length) }
            : request.headers,
        body: request.body && !Buffer.isBuffer(request.body) ? bodyStream(request.body) : request.body,
        dispatcher,
        signal: controller.signal,
        // The deadline above bounds the whole exchange, as the direct transport's does.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      const headers = flatten(answer.headers);
      // Bounded as the direct transport's answers are (transport.ts).
      const { body, bodyCut } = await readLimitedBody(
        answer.body,
        answer.statusCode,
        headers["content-length"],
        request.maxBodyBytes,
      );
      response = { status: answer.statusCode, headers, body, ...(bodyCut ? { bodyCut } : {}) };
    } catch (error) {
      if (request.signal?.aborted) throw new RequestInterruptedError(`interrupted (${where.what})`, true);
      if (timedOut) {
        throw new NetworkError(
          `no complete answer from ${where.target} within ${request.timeoutMs} ms (${where.what}, through the proxy ${route.shown}): raise --request-timeout or check the proxy`,
          "timeout",
          true,
        );
      }
      if (
        error instanceof InterruptedError ||
        error instanceof NetworkError ||
        error instanceof BodyLimitExceeded
      )
        throw error;
      throw proxyError(error as Error & { code?: string; cause?: unknown }, where);
    } finally {
      if (timer) clearTimeout(timer);
      request.signal?.removeEventListener("abort", onAbort);
    }
    const refusal = proxysOwnRefusal(response, where);
    if (refusal) throw refusal;
    return response;
  };
}

/**
 * undici says, once a process, that its SOCKS5 support is experimental: a note for the
 * developers who use undici, which a cpctl user can do nothing about. cpctl's SOCKS5 support is
 * what undici's is (tested against a SOCKS5 server of its own), so the note is left out.
 */
function withoutExperimentalWarning<T>(make: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).includes("SOCKS5 proxy support is experimental")) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return make();
  } finally {
    process.emitWarning = emitWarning;
  }
}

function proxyNamed(where: Where): string {
  return `the proxy ${where.route.shown} (${where.route.variable})`;
}

const GO_DIRECT = "or add the host to NO_PROXY to go direct";

function proxyWantsCredentials(where: Where): NetworkError {
  const given = where.route.url.username !== "" || where.route.url.password !== "";
  return new NetworkError(
    given
      ? `${proxyNamed(where)} refused the credentials in ${where.route.variable} (HTTP 407): check the user name and password in the proxy URL`
      : `${proxyNamed(where)} asks for credentials (HTTP 407): put them in the proxy URL, e.g. http://USER:PASSWORD@proxy:3128`,
    "unreachable",
    false,
    { permanent: true },
  );
}

/**
 * A forward-proxied (http://) request's answer that the proxy wrote itself: a 407, or a 401 or
 * 403 that is not the control plane's (the control plane answers JSON; a proxy's refusal is a
 * page of its own, such as tinyproxy's text/html "Access denied"). Any other answer is the
 * control plane's, and the client reads it as such.
 */
function proxysOwnRefusal(response: TransportResponse, where: Where): NetworkError | null {
  if (response.status === 407) return proxyWantsCredentials(where);
  if (response.status !== 401 && response.status !== 403) return null;
  if (/json/i.test(response.headers["content-type"] ?? "")) return null;
  const title = /<title>([^<]{1,120})<\/title>/i.exec(response.body.toString("utf8"))?.[1]?.trim();
  return new NetworkError(
    `${proxyNamed(where)} refused the request to ${where.target} (HTTP ${response.status}${title ? `, "${title}"` : ""}: ` +
      `its own page, not the control plane's answer): check what the proxy allows, ${GO_DIRECT}`,
    "unreachable",
    false,
    { permanent: true },
  );
}

/** undici's errors as cpctl's, naming the proxy when it is the proxy that failed. */
function proxyError(error: Error & { code?: string; cause?: unknown }, where: Where): NetworkError {
  if (/\(407\)/.test(error.message)) return proxyWantsCredentials(where);
  const tunnel = /Proxy response \((\d+)\)/.exec(error.message);
  if (tunnel) {
    const status = Number(tunnel[1]);
    const refused = status === 401 || status === 403;
    return new NetworkError(
      refused
        ? `${proxyNamed(where)} refused to open a tunnel to ${where.target} (HTTP ${status} to CONNECT): check what the proxy allows (the ports it tunnels to, its access rules), ${GO_DIRECT}`
        : `${proxyNamed(where)} could not open a tunnel to ${where.target} (HTTP ${status} to CONNECT): check ${where.route.variable}, ${GO_DIRECT}`,
      "unreachable",
      false,
      { permanent: refused },
    );
  }
  const code = codeOf(error);
  if (code !== undefined && isTlsError(code)) {
    const which =
      where.route.url.protocol === "https:"
        ? `of ${proxyNamed(where)} or of ${where.target} through it`
        : `of ${where.target} (reached through ${proxyNamed(where)})`;
    return new NetworkError(
      `the TLS certificate ${which} was refused (${code}): a profile's caFile, or NODE_EXTRA_CA_CERTS, adds a certificate authority`,
      "unreachable",
      false,
      { permanent: true },
    );
  }
  const unreachable: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ENOTFOUND: "host name not found",
    EAI_AGAIN: "host name not found",
    UND_ERR_CONNECT_TIMEOUT: "connect timed out",
  };
  if (code !== undefined && unreachable[code]) {
    return new NetworkError(
      `cannot reach ${where.target} through ${proxyNamed(where)}: ${unreachable[code]}; check ${where.route.variable}, ${GO_DIRECT}`,
      "unreachable",
      false,
    );
  }
  return new NetworkError(
    `the connection to ${where.target} through ${proxyNamed(where)} failed before a complete answer arrived (${where.what}): ${code ?? error.message}`,
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
