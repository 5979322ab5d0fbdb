// NO_PROXY, read as curl reads it (lib/noproxy.c): a list of entries separated by commas or
// blanks, `*` alone for every host; a name matches itself and the names under it (`example.com`
// and `.example.com` both match example.com and www.example.com, not nonexample.com), case and
// a trailing dot aside; an IPv4 or IPv6 address matches itself, and with /BITS the addresses of
// that network (`10.0.0.0/8`, `fe80::/10`); a name never matches an address (no DNS look-up).
// One addition of undici's that cpctl has always honoured: `HOST:PORT` (`[::1]:8124` for an
// IPv6 address) matches that host on that port only.
import { BlockList, isIP } from "node:net";

/** Whether a request to host:port goes direct. `host` as URL.hostname gives it ("[::1]" for IPv6). */
export function bypassesProxy(host: string, port: number, noProxy: string): boolean {
  const entries = noProxy.split(/[\s,]+/).filter(Boolean);
  if (entries.length === 0) return false;
  if (entries.includes("*")) return true;
  const name = unbracket(host).replace(/\.$/, "").toLowerCase();
  const family = isIP(name);
  return entries.some((entry) => matches(entry, name, family, port));
}

function matches(entry: string, name: string, family: number, port: number): boolean {
  const { pattern, port: entryPort } = splitPort(entry);
  if (entryPort !== null && entryPort !== port) return false;
  if (family === 0) {
    const domain = pattern.replace(/^\./, "").replace(/\.$/, "").toLowerCase();
    return domain !== "" && (name === domain || name.endsWith(`.${domain}`));
  }
  const slash = pattern.indexOf("/");
  const network = slash < 0 ? pattern : pattern.slice(0, slash);
  const networkFamily = isIP(network);
  if (networkFamily !== family) return false;
  const bits = slash < 0 ? (family === 4 ? 32 : 128) : Number(pattern.slice(slash + 1));
  if (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) return false;
  const list = new BlockList();
  const type = family === 4 ? "ipv4" : "ipv6";
  list.addSubnet(network, bits, type);
  return list.check(name, type);
}

/** `host:port`, `[v6]:port` or `[v6]`: the pattern and its port; a bare IPv6 address has none. */
function splitPort(entry: string): { pattern: string; port: number | null } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { pattern: bracketed[1]!, port: bracketed[2] ? Number(bracketed[2]) : null };
  const withPort = /^([^:]+):(\d+)$/.exec(entry);
  if (withPort) return { pattern: withPort[1]!, port: Number(withPort[2]) };
  return { pattern: entry, port: null };
}

function unbracket(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}
