// Which transport a run's requests take: node:http(s) directly (with a profile's caFile
// trusted too, when it names one), or, for the requests a proxy variable applies to, the proxy
// transport (only then is undici loaded). A run with neither pays for nothing here but a few
// environment look-ups.
import { UsageError } from "../errors.js";
import { type Env, readTextFile, unreadableFile } from "../io.js";
import { type ProxyEnvironment, proxyEnvironment } from "./proxy-env.js";
import { nodeTransport, nodeTransportWithCa, parseHttpUrl, type Transport } from "./transport.js";

interface TransportChoice {
  env: Env;
  /** A PEM file of extra certificate authorities (a profile's caFile), absolute. */
  caFile: string | null;
  /** Where the caFile setting came from, for messages. */
  caFileOrigin?: string;
  /** --debug's trace: told which proxy is in use (credentials hidden). */
  trace?: (line: string) => void;
  signal?: AbortSignal;
}

/** undefined: the default transport (node:http(s), Node's own trust). */
export async function chooseTransport(choice: TransportChoice): Promise<Transport | undefined> {
  const proxies = proxyEnvironment(choice.env);
  const ca = choice.caFile ? await trustedAuthorities(choice) : undefined;
  const direct = ca ? nodeTransportWithCa(ca) : undefined;
  if (!proxies) return direct;
  choice.trace?.(proxies.describe());
  return routed(proxies, direct ?? nodeTransport, ca);
}

/**
 * Each request through the proxy its URL takes, or direct: NO_PROXY's hosts, and a scheme with
 * no proxy variable, never touch the proxy transport (nor load undici).
 */
function routed(proxies: ProxyEnvironment, direct: Transport, ca: string[] | undefined): Transport {
  const throughProxy = new Map<string, Transport>();
  return async (request) => {
    const route = proxies.routeFor(parseHttpUrl(request.url));
    if (!route) return direct(request);
    let transport = throughProxy.get(route.url.href);
    if (!transport) {
      const { proxyTransport } = await import("./proxy-transport.js");
      transport = proxyTransport(route, { ca });
      throughProxy.set(route.url.href, transport);
    }
    return transport(request);
  };
}

const CA_FILE_LIMIT = { maxBytes: 1024 * 1024, what: "a certificate file" };

/**
 * Node's own authorities, NODE_EXTRA_CA_CERTS's and the caFile's: a TLS `ca` option replaces
 * the default list, so the defaults are given again with it.
 */
async function trustedAuthorities(choice: TransportChoice): Promise<string[]> {
  const { rootCertificates } = await import("node:tls");
  const read = async (path: string, label: string) => {
    let text: string;
    try {
      text = await readTextFile(path, { limit: CA_FILE_LIMIT, label, signal: choice.signal });
    } catch (error) {
      throw unreadableFile(`${label} ${path}`, error);
    }
    if (!text.includes("-----BEGIN CERTIFICATE-----"))
      throw new UsageError(`${label}: ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
    return text;
  };
  const extra = choice.env.NODE_EXTRA_CA_CERTS;
  return [
    ...rootCertificates,
    ...(extra ? [await read(extra, "NODE_EXTRA_CA_CERTS").catch(() => "")].filter(Boolean) : []),
    await read(choice.caFile!, `caFile (${choice.caFileOrigin ?? "profile"})`),
  ];
}
