// The little of GitHub's REST API that `deploy push --comment` uses, over the run's own HTTP
// transport (proxies, certificate authorities, deadlines, Ctrl-C: src/api/transport.ts) and its
// redacted --debug trace (src/api/redact.ts).
//
// Where it goes is read from the run's environment, as a workflow step has it: GITHUB_API_URL
// (https://api.github.com unless GitHub Enterprise sets another), GITHUB_REPOSITORY
// (OWNER/REPO) and GITHUB_TOKEN. The token goes in the Authorization header, to
// GITHUB_API_URL's origin only (every URL is built from it, and checked again before sending),
// and only over https, or plain http to this machine (a local stand-in); never in a message,
// the trace or the URL. Answers are not retried: a request that failed is the caller's to
// report.
import { createTracer, type Tracer } from "../api/redact.js";
import type { Transport, TransportResponse } from "../api/transport.js";
import type { Env } from "../io.js";

/** Where the comments go, all of it read from the environment before anything is sent. */
export interface GitHubTarget {
  /** GITHUB_API_URL without a trailing slash: https://api.github.com, https://ghe.example.com/api/v3. */
  api: URL;
  owner: string;
  repo: string;
  token: string;
}

const DEFAULT_API_URL = "https://api.github.com";
const NAME = /^[A-Za-z0-9_.-]{1,100}$/;
/** Characters a header value cannot hold (Node refuses them with an error naming the header). */
const BAD_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * The target, or what is missing for one (each a phrase: "GITHUB_TOKEN is not set"). Asks
 * nothing of the network.
 */
export function gitHubTarget(env: Env): { target: GitHubTarget } | { missing: string[] } {
  if (env.GITHUB_ACTIONS !== "true")
    return { missing: ["this is not a GitHub Actions run (GITHUB_ACTIONS is not true)"] };
  const missing: string[] = [];
  const token = env.GITHUB_TOKEN ?? "";
  if (token.trim() === "") missing.push("GITHUB_TOKEN is not set");
  else if (BAD_HEADER_VALUE.test(token))
    missing.push("GITHUB_TOKEN holds a line break or a control character");
  const [owner, repo, ...rest] = (env.GITHUB_REPOSITORY ?? "").split("/");
  const repository = rest.length === 0 && NAME.test(owner ?? "") && NAME.test(repo ?? "");
  if (!env.GITHUB_REPOSITORY) missing.push("GITHUB_REPOSITORY is not set");
  else if (!repository)
    missing.push(`GITHUB_REPOSITORY ${JSON.stringify(env.GITHUB_REPOSITORY.slice(0, 80))} is not OWNER/REPO`);
  const api = apiUrl(env.GITHUB_API_URL || DEFAULT_API_URL, missing);
  if (missing.length > 0 || !api) return { missing };
  return { target: { api, owner: owner!, repo: repo!, token: token.trim() } };
}

function apiUrl(text: string, missing: string[]): URL | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    missing.push(`GITHUB_API_URL ${JSON.stringify(text.slice(0, 80))} is not a URL`);
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    missing.push(`GITHUB_API_URL ${JSON.stringify(text.slice(0, 80))} is not an http(s) URL`);
    return null;
  }
  if (url.username || url.password || url.search || url.hash) {
    missing.push("GITHUB_API_URL carries user info, a query or a fragment");
    return null;
  }
  if (url.protocol === "http:" && !isLoopback(url.hostname)) {
    missing.push(
      `GITHUB_API_URL is plain http to ${url.host}: the token would travel in clear, so it is not sent there`,
    );
    return null;
  }
  url.pathname = url.pathname.replace(/\/+$/, "");
  return url;
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** GitHub's answer: its status, headers and JSON body (null when empty or not JSON). */
export interface GitHubAnswer {
  status: number;
  headers: Record<string, string>;
  json: unknown;
}

export interface GitHubClientOptions {
  transport: Transport;
  /** Each request's deadline. */
  timeoutMs: number;
  userAgent: string;
  signal?: AbortSignal;
  /** The --debug trace, one line at a time (redacted here). */
  trace?: (line: string) => void;
  /** Secrets the trace must never show besides the token (the run's known ones). */
  secrets: () => Iterable<string>;
}

/**
 * The most of one answer that is read: a page of 100 comments, each of at most 65,536
 * characters, is a few MiB at worst.
 */
const ANSWER_LIMIT = 16 * 1024 * 1024;

export class GitHubClient {
  private readonly tracer: Tracer | null;

  constructor(
    readonly target: GitHubTarget,
    private readonly options: GitHubClientOptions,
  ) {
    this.tracer = options.trace
      ? createTracer(options.trace, { secrets: () => [...options.secrets(), target.token] })
      : null;
  }

  /** `path` under the repository: `/issues/7/comments`. */
  repositoryUrl(path: string, query: Record<string, string | number> = {}): URL {
    const { api, owner, repo } = this.target;
    const url = new URL(`${api.href.replace(/\/+$/, "")}/repos/${owner}/${repo}${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
    return url;
  }

  /** One request with the token; any answer comes back (a non-2xx too). Network failures throw. */
  async request(method: string, url: URL, body?: unknown): Promise<GitHubAnswer> {
    // Every URL is built from GITHUB_API_URL; this says so where the token is added.
    if (url.origin !== this.target.api.origin) throw new Error(`not GitHub's API: ${url.origin}`);
    const headers: Record<string, string> = {
      Accept: "application/vnd.github+json",
      "X-GitHub-Api-Version": "2022-11-28",
      "User-Agent": this.options.userAgent,
      Authorization: `Bearer ${this.target.token}`,
    };
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), "utf8");
    if (payload) headers["Content-Type"] = "application/json";
    this.tracer?.request({ method, url: url.href, headers, body: payload, attempt: 1, maxAttempts: 1 });
    const started = Date.now();
    let response: TransportResponse;
    try {
      response = await this.options.transport({
        method,
        url: url.href,
        headers,
        body: payload,
        timeoutMs: this.options.timeoutMs,
        signal: this.options.signal,
        reuseConnection: method === "GET",
        maxBodyBytes: ANSWER_LIMIT,
      });
    } catch (error) {
      this.tracer?.failure(error as Error, Date.now() - started);
      throw error;
    }
    this.tracer?.response({ ...response, elapsedMs: Date.now() - started });
    return { status: response.status, headers: response.headers, json: parseJson(response.body) };
  }
}

function parseJson(body: Buffer): unknown {
  if (body.length === 0) return null;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return null;
  }
}
