// Which transport a run's requests take: node:http(s) directly, the same with a profile's
// caFile trusted too, or the proxy transport when HTTP_PROXY/HTTPS_PROXY is set (only then is
// undici loaded). A run with neither pays for nothing here but two environment look-ups.
import { UsageError } from "../errors.js";
import { readTextFile, unreadableFile } from "../io.js";
import { type ProxySettings, proxySettings, shownProxy } from "./proxy-env.js";
import { nodeTransportWithCa, type Transport } from "./transport.js";

type Env = Readonly<Record<string, string | undefined>>;

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
  const proxy = proxySettings(choice.env);
  const ca = choice.caFile ? await trustedAuthorities(choice) : undefined;
  if (proxy) {
    choice.trace?.(describeProxy(proxy));
    const { proxyTransport } = await import("./proxy-transport.js");
    return proxyTransport(proxy, { ca });
  }
  return ca ? nodeTransportWithCa(ca) : undefined;
}

function describeProxy(proxy: ProxySettings): string {
  const shown = (url: string | null, from: string | null) =>
    url ? `${shownProxy(url)} (${from})` : "direct";
  return `* proxy: https:// ${shown(proxy.https, proxy.from.https)}, http:// ${shown(proxy.http, proxy.from.http)}; NO_PROXY=${proxy.noProxy || "(unset)"}`;
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
