// What the user trusts, from their own config file only (CLI.md): the hosts a project file may
// point a profile at and still receive the user's credentials, and the directories whose
// cpctl.config.mjs may run. A project file comes with a repository anyone may have written;
// it may say where to send requests, but not with the user's key unless the user agreed.
//
//   trustedHosts: [cp.example.com, "127.0.0.1:8124"]   # a port: that port only
//   trustedDirectories: [/home/me/src]                  # that directory and everything below it
import { realpathSync } from "node:fs";
import { isAbsolute, resolve, sep } from "node:path";
import { UsageError } from "../errors.js";
import { shellQuote } from "../util/shell.js";

interface HostEntry {
  hostname: string;
  /** null: any port. */
  port: string | null;
}

/** `host` or `host:port` (an IPv6 address in brackets), as written in trustedHosts. */
function parseHostEntry(text: string): HostEntry | null {
  const trimmed = text.trim();
  let url: URL;
  try {
    url = new URL(`http://${trimmed}`);
  } catch {
    return null;
  }
  if (url.username || url.password || url.pathname !== "/" || url.search || url.hash || !url.hostname)
    return null;
  if (trimmed.includes("/") || trimmed.includes("?") || trimmed.includes("#")) return null;
  const port = /:(\d+)$/.exec(trimmed)?.[1];
  return { hostname: url.hostname, port: port === undefined ? null : String(Number(port)) };
}

export function hostEntryProblem(entry: string): string | null {
  return parseHostEntry(entry)
    ? null
    : `'${entry}' is not a host name (e.g. cp.example.com or 127.0.0.1:8124)`;
}

export function directoryEntryProblem(entry: string): string | null {
  return isAbsolute(entry.trim()) ? null : `'${entry}' is not an absolute directory path`;
}

/**
 * What `cpctl config set trustedHosts VALUE` stores: a host, `host:port`, or the host of a URL
 * (`https://cp.example.com` trusts cp.example.com on any port). Null when it is none of these.
 */
export function hostToTrust(value: string): string | null {
  let text = value.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    try {
      text = new URL(text).host;
    } catch {
      return null;
    }
  }
  const entry = parseHostEntry(text);
  if (!entry) return null;
  return entry.port === null ? entry.hostname : `${entry.hostname}:${entry.port}`;
}

/** The host part of an address, as `config set trustedHosts` would take it. */
export function hostOf(baseUrl: string): string {
  return new URL(baseUrl).host;
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
    return entry !== null && entry.hostname === url.hostname && (entry.port === null || entry.port === port);
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
