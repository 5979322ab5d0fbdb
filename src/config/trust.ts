// What the user trusts, from their own config file only (CLI.md): the hosts a project file may
// point a profile at and still receive the user's credentials, and the directories whose
// cpctl.config.mjs may run. A project file comes with a repository anyone may have written;
// it may say where to send requests, but not with the user's key unless the user agreed.
//
//   trustedHosts: [cp.example.com, "http://127.0.0.1:8124"]  # a port: that port only
//   trustedDirectories: [/home/me/src]                        # that directory and everything below it
//
// A host entry carries its scheme: written bare it means https:// only, so that a project
// file cannot point a trusted host at plain http:// (where anyone on the way reads the key);
// plain http must be trusted by name, `http://HOST[:PORT]`.
import { realpathSync } from "node:fs";
import { isAbsolute, resolve, sep } from "node:path";
import { UsageError } from "../errors.js";
import { shellQuote } from "../util/shell.js";

interface HostEntry {
  scheme: "https:" | "http:";
  hostname: string;
  /** null: any port. */
  port: string | null;
}

/**
 * `host`, `host:port` (an IPv6 address in brackets), or either after `https://` or
 * `http://`, as written in trustedHosts. Null when it is anything else (a path, a user, another
 * scheme).
 */
function parseHostEntry(text: string): HostEntry | null {
  const match = /^(?:(https?):\/\/)?([^/?#@\s]+?)\/?$/i.exec(text.trim());
  if (!match) return null;
  const hostPort = match[2]!;
  let url: URL;
  try {
    url = new URL(`http://${hostPort}`);
  } catch {
    return null;
  }
  if (!url.hostname) return null;
  const port = /:(\d+)$/.exec(hostPort)?.[1];
  return {
    scheme: match[1]?.toLowerCase() === "http" ? "http:" : "https:",
    hostname: url.hostname,
    port: port === undefined ? null : String(Number(port)),
  };
}

export function hostEntryProblem(entry: string): string | null {
  return parseHostEntry(entry)
    ? null
    : `'${entry}' is not a host (e.g. cp.example.com, cp.example.com:8443, or http://127.0.0.1:8124 for plain http)`;
}

export function directoryEntryProblem(entry: string): string | null {
  return isAbsolute(entry.trim()) ? null : `'${entry}' is not an absolute directory path`;
}

/**
 * What `cpctl config set trustedHosts VALUE` stores: a host or `host:port` (https:// only), or
 * a URL's scheme, host and port as written (`http://127.0.0.1:8124`). Null when it is none of
 * these.
 */
export function hostToTrust(value: string): string | null {
  let text = value.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return null;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    if (url.username || url.password) return null;
    text = `${url.protocol}//${url.host}`;
  }
  const entry = parseHostEntry(text);
  if (!entry) return null;
  const host = entry.port === null ? entry.hostname : `${entry.hostname}:${entry.port}`;
  return entry.scheme === "http:" ? `http://${host}` : host;
}

/** The trustedHosts entry that trusts exactly this address's scheme, host and port, as `config set` takes it. */
export function trustEntryFor(baseUrl: string): string {
  const url = new URL(baseUrl);
  return url.protocol === "http:" ? `http://${url.host}` : url.host;
}

export function isTrustedHost(baseUrl: string, entries: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return false;
  }
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return entries.some((text) => {
    const entry = parseHostEntry(text);
    return (
      entry !== null &&
      entry.scheme === url.protocol &&
      entry.hostname === url.hostname &&
      (entry.port === null || entry.port === port)
    );
  });
}

/** `dir` is one of `entries` or below one (both sides with symbolic links resolved). */
export function isTrustedDirectory(dir: string, entries: readonly string[]): boolean {
  const real = realpathOr(dir);
  return entries.some((entry) => {
    const trusted = realpathOr(resolve(entry.trim()));
    return real === trusted || real.startsWith(trusted.endsWith(sep) ? trusted : `${trusted}${sep}`);
  });
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** A cpctl.config.mjs would run code from a directory the user has not trusted. */
export function untrustedCodeConfig(path: string, dir: string, userPath: string): UsageError {
  return new UsageError(
    `${path} is code, and ${dir} is not a directory you have trusted: cpctl runs a project's cpctl.config.mjs only in a directory your user config trusts`,
  )
    .withHint(`If you trust this project's code: cpctl config set trustedDirectories ${shellQuote(dir)}`)
    .withHint(
      `(that adds it under trustedDirectories: in ${userPath}). A data file (.cpctlrc.yaml, .cpctlrc.json) needs no trust.`,
    );
}
