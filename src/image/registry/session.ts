// Requests to a registry with a push token, over the project's HTTP transport (proxies,
// certificate authorities, deadlines, Ctrl-C, error messages: src/api/transport.ts) and its
// redacted --debug trace (src/api/redact.ts).
//
// Authentication follows the registry's lead, as docker does: a request goes out, a 401's
// WWW-Authenticate says how to log in (Bearer: ask its realm for a token with the push token
// as oauth2accesstoken's password; Basic: send that password), and the request goes again.
// When the registry refuses what it was given (the push token expired during a long push,
// or was revoked), one new push token is asked for (TokenSource.renew) and the request goes
// once more; refused again, the push stops with exit 3. Network failures are not retried
// here: what may be repeated safely is push.ts's to say.

import { createTracer, type Tracer } from "../../api/redact.js";
import type { Transport, TransportResponse } from "../../api/transport.js";
import { ApiError } from "../../errors.js";
import type { RegistryAddress } from "./address.js";
import { parseChallenges } from "./challenge.js";
import { describeRegistryError } from "./errors.js";

/** The user name registries pair a token with (docker login -u oauth2accesstoken). */
export const TOKEN_USER = "oauth2accesstoken";

export interface TokenSource {
  /** The push token to use now. */
  current(): string;
  /** A new push token, when the registry refused the current one. */
  renew(): Promise<string>;
}

export interface RegistryRequest {
  method: string;
  /** A path on the registry ("/v2/..."), or a URL it handed out (an upload's Location). */
  url: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** Deadline of this exchange; default: the session's. */
  timeoutMs?: number;
}

export interface SessionOptions {
  address: RegistryAddress;
  /** The repository pushed to: its pull and push scope is asked for. */
  repository: string;
  tokens: TokenSource;
  transport: Transport;
  timeoutMs: number;
  userAgent: string;
  signal?: AbortSignal;
  /** The --debug trace, one redacted line at a time. */
  trace?: (line: string) => void;
  /** Credentials the trace must never show (the push tokens are added as they come). */
  secrets: () => Iterable<string>;
}

export class RegistrySession {
  private authorization: string | null = null;
  /** Bearer tokens the realm handed out: secrets too. */
  private readonly issued: string[] = [];
  /** A new push token was asked for (once per session). */
  private renewed = false;
  private renewing: Promise<void> | null = null;
  /** Counts renewals: a refusal of a request sent with an older token is no refusal of the new one. */
  private generation = 0;
  /** Numbers the exchanges, so that the trace of requests sent side by side reads in pairs. */
  private exchanges = 0;
  private readonly tracer: Tracer | null;

  constructor(private readonly options: SessionOptions) {
    this.tracer = this.tracerFor("");
  }

  private tracerFor(prefix: string): Tracer | null {
    const { trace, secrets } = this.options;
    if (!trace) return null;
    return createTracer((line) => trace(`${prefix}${line}`), {
      secrets: () => [...secrets(), ...this.issued],
    });
  }

  get address(): RegistryAddress {
    return this.options.address;
  }

  /**
   * Sends `request`, logging in as the registry asks. Returns any answer but a refusal of the
   * credentials (401, 403), which is an ApiError (exit 3) once a new token was refused too.
   */
  async send(request: RegistryRequest): Promise<TransportResponse> {
    let loggedInWith: string | null = null;
    for (;;) {
      const generation = this.generation;
      const response = await this.exchange(request, this.authorization);
      if (response.status !== 401 && response.status !== 403) return response;
      // First the registry's own way in (once per token), then a new push token.
      const challenge = response.status === 401 ? response.headers["www-authenticate"] : undefined;
      const token = this.options.tokens.current();
      if (challenge && loggedInWith !== token && generation === this.generation) {
        loggedInWith = token;
        if (await this.logIn(challenge)) continue;
      }
      // Requests run side by side: another may be renewing the token, or have renewed it since
      // this one went out. Then this one simply goes again with the new token.
      if (this.renewing) await this.renewing;
      if (generation !== this.generation) continue;
      if (!this.renewed) {
        await this.renew();
        continue;
      }
      throw this.refusal(request, response);
    }
  }

  /** Logs in as the challenge says; false when the registry's token service refused the push token. */
  private async logIn(header: string): Promise<boolean> {
    const challenges = parseChallenges(header);
    const token = this.options.tokens.current();
    const basic = `Basic ${Buffer.from(`${TOKEN_USER}:${token}`).toString("base64")}`;
    const bearer = challenges.find((c) => c.scheme === "bearer" && c.params.realm);
    if (!bearer) {
      this.authorization = basic;
      return true;
    }
    const realm = new URL(bearer.params.realm!, this.options.address.origin);
    if (bearer.params.service) realm.searchParams.set("service", bearer.params.service);
    const scopes = new Set([`repository:${this.options.repository}:pull,push`]);
    if (bearer.params.scope) for (const scope of bearer.params.scope.split(" ")) scopes.add(scope);
    for (const scope of scopes) realm.searchParams.append("scope", scope);
    const response = await this.exchange({ method: "GET", url: realm.toString() }, basic, true);
    if (response.status === 401 || response.status === 403) return false;
    if (response.status !== 200) {
      throw new ApiError(
        response.status,
        `the registry's token service (${realm.origin}${realm.pathname}) answered HTTP ${response.status}${describeRegistryError(response)}`,
        null,
        "GET",
        `${realm.origin}${realm.pathname}`,
      );
    }
    let issued: string | undefined;
    try {
      const body = JSON.parse(response.body.toString("utf8")) as { token?: unknown; access_token?: unknown };
      issued = [body.token, body.access_token].find(
        (value): value is string => typeof value === "string" && value !== "",
      );
    } catch {
      issued = undefined;
    }
    if (!issued) {
      throw new ApiError(
        502,
        `the registry's token service (${realm.origin}${realm.pathname}) answered without a token`,
        null,
        "GET",
        `${realm.origin}${realm.pathname}`,
      );
    }
    this.issued.push(issued);
    this.authorization = `Bearer ${issued}`;
    return true;
  }

  /** One new push token for the whole session, however many requests were refused at once. */
  private renew(): Promise<void> {
    this.renewing ??= (async () => {
      this.renewed = true;
      this.authorization = null;
      this.tracer?.note("the registry refused the push token: asking the control plane for a new one");
      await this.options.tokens.renew();
      this.generation++;
    })().finally(() => {
      this.renewing = null;
    });
    return this.renewing;
  }

  private refusal(request: RegistryRequest, response: TransportResponse): ApiError {
    const { host } = this.options.address;
    return new ApiError(
      response.status,
      `the registry ${host} refused the push token (HTTP ${response.status}${describeRegistryError(response)}), and a new one too: check that the deployment still exists and that your credentials may push to it`,
      null,
      request.method,
      pathOf(request.url),
    );
  }

  /** One exchange; credentials go only to the registry's own origin (an upload may be sent elsewhere). */
  private async exchange(
    request: RegistryRequest,
    authorization: string | null,
    anyOrigin = false,
  ): Promise<TransportResponse> {
    const url = new URL(request.url, this.options.address.origin);
    const headers: Record<string, string> = { "User-Agent": this.options.userAgent, ...request.headers };
    if (authorization && (anyOrigin || url.origin === this.options.address.origin)) {
      headers.Authorization = authorization;
    }
    const tracer = this.tracerFor(`[${++this.exchanges}] `);
    tracer?.request({
      method: request.method,
      url: url.toString(),
      headers,
      body: request.body,
      attempt: 1,
      maxAttempts: 1,
    });
    const started = Date.now();
    try {
      const response = await this.options.transport({
        method: request.method,
        url: url.toString(),
        headers,
        body: request.body,
        timeoutMs: request.timeoutMs ?? this.options.timeoutMs,
        signal: this.options.signal,
        // Everything here is addressed by digest and may be repeated, but a pooled socket the
        // registry closed would fail a large upload half-way: uploads get their own.
        reuseConnection: request.body === undefined || request.body.length === 0,
      });
      tracer?.response({ ...response, elapsedMs: Date.now() - started });
      return response;
    } catch (error) {
      tracer?.failure(error as Error, Date.now() - started);
      throw error;
    }
  }
}

function pathOf(url: string): string {
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}
