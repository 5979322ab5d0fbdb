// A deployment's own health, asked of its agent server: `GET {custom_url}/ok` with the same
// credentials as the control plane (service-facts, "The address of a deployment"). One
// attempt, one answer: `ok` (200 and `{"ok": true}`), `failing` (it answered, but not that), or
// `unknown` (no address, no answer). Whoever asks again (a verification) decides when.
//
// The key goes to the deployment's address only where it cannot be read on the way: https, or
// plain http to this machine (the emulator's stand-ins). A plain-http address elsewhere is not
// asked at all: its health is unknown, and the reason says why.
import { ApiError, InterruptedError, NetworkError } from "../errors.js";
import type { ApiClient } from "./client.js";

export type AgentHealth =
  | { health: "ok"; url: string }
  | { health: "failing"; url: string; status: number; reason: string }
  | { health: "unknown"; url: string | null; reason: string };

export interface HealthAsk {
  /** This attempt's deadline. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export async function agentHealth(
  api: ApiClient,
  address: string | null,
  ask: HealthAsk,
): Promise<AgentHealth> {
  if (!address) return { health: "unknown", url: null, reason: "the deployment has no address (custom_url)" };
  const url = okUrl(address);
  if (!url)
    return { health: "unknown", url: address, reason: `its address is not an http(s) URL: ${address}` };
  if (!keySafeAt(url)) {
    return {
      health: "unknown",
      url: address,
      reason: `its address is plain http to another host (${url.host}): cpctl does not send the API key there`,
    };
  }
  try {
    const answer = await api.get<unknown>(url.toString(), {
      absoluteUrl: true,
      sendCredentials: true,
      maxAttempts: 1,
      timeoutMs: ask.timeoutMs,
      signal: ask.signal,
    });
    if (isOk(answer.body)) return { health: "ok", url: address };
    return {
      health: "failing",
      url: address,
      status: answer.status,
      reason: 'it did not answer {"ok": true}',
    };
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    if (error instanceof ApiError) {
      return { health: "failing", url: address, status: error.status, reason: reasonOf(error) };
    }
    if (error instanceof NetworkError) {
      return { health: "unknown", url: address, reason: error.message.split("\n")[0]! };
    }
    throw error;
  }
}

/** `{address}/ok`, keeping a path the address has (the emulator's: /<deployment ID>). */
function okUrl(address: string): URL | null {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/ok`;
  url.search = "";
  url.hash = "";
  return url;
}

function keySafeAt(url: URL): boolean {
  if (url.protocol === "https:") return true;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return (
    host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host)
  );
}

function isOk(body: unknown): boolean {
  return body !== null && typeof body === "object" && (body as { ok?: unknown }).ok === true;
}

/** "HTTP 500: Revision ... is unhealthy": the server's own words when it gave some. */
function reasonOf(error: ApiError): string {
  const detail = (error.body as { detail?: unknown } | null)?.detail;
  return `HTTP ${error.status}${typeof detail === "string" && detail ? `: ${detail.slice(0, 200)}` : ""}`;
}
