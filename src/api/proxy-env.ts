// Which HTTP proxy the environment asks for, read the way curl reads it: HTTPS_PROXY for
// https:// URLs, HTTP_PROXY for http:// ones (each in lower case too, which wins), NO_PROXY
// for the hosts that go direct. No imports: every run asks, and only a run with a proxy
// loads the proxy transport (and undici with it).

export interface ProxySettings {
  /** Proxy URL for http:// requests, or null: direct. */
  http: string | null;
  /** Proxy URL for https:// requests, or null: direct. */
  https: string | null;
  /** NO_PROXY as given ("" when unset): hosts, .domain suffixes, host:port, or `*`. */
  noProxy: string;
  /** Which variables the values came from, for messages ("HTTPS_PROXY"). */
  from: { http: string | null; https: string | null };
}

type Env = Readonly<Record<string, string | undefined>>;

function pick(env: Env, name: string): { value: string; from: string } | null {
  for (const variable of [name.toLowerCase(), name]) {
    const value = env[variable]?.trim();
    if (value) return { value, from: variable };
  }
  return null;
}

/** The proxy settings, or null when no proxy is set (the common case: nothing to load). */
export function proxySettings(env: Env): ProxySettings | null {
  const http = pick(env, "HTTP_PROXY");
  const https = pick(env, "HTTPS_PROXY");
  if (!http && !https) return null;
  return {
    http: http?.value ?? null,
    https: https?.value ?? null,
    noProxy: pick(env, "NO_PROXY")?.value ?? "",
    from: { http: http?.from ?? null, https: https?.from ?? null },
  };
}

/** A proxy URL fit for messages and the trace: credentials replaced, the rest as given. */
export function shownProxy(proxyUrl: string): string {
  try {
    const url = new URL(proxyUrl);
    const hadCredentials = url.username !== "" || url.password !== "";
    url.username = "";
    url.password = "";
    const text = url.toString().replace(/\/$/, "");
    return hadCredentials ? text.replace("://", "://****@") : text;
  } catch {
    return "(not a URL)";
  }
}
