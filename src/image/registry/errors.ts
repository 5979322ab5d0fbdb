// What a registry says when it refuses something: the OCI error body
// (`{"errors": [{"code", "message", "detail"}]}`) in a few words for a message.

import type { TransportResponse } from "../../api/transport.js";
import { visible } from "../../output/safe-text.js";

/** ": CODE: message" of the first error the body holds, or "" when it holds none. */
export function describeRegistryError(response: TransportResponse): string {
  const first = registryErrors(response)[0];
  if (!first) return "";
  const message = first.message ? `: ${visible(first.message.slice(0, 300))}` : "";
  return `: ${visible(first.code.slice(0, 60))}${message}`;
}

export function registryErrors(response: TransportResponse): { code: string; message: string }[] {
  if (response.body.length === 0 || response.body.length > 64 * 1024) return [];
  try {
    const body = JSON.parse(response.body.toString("utf8")) as { errors?: unknown };
    if (!Array.isArray(body.errors)) return [];
    return body.errors
      .filter((e): e is Record<string, unknown> => e !== null && typeof e === "object")
      .map((e) => ({
        code: String(e.code ?? "UNKNOWN"),
        message: typeof e.message === "string" ? e.message : "",
      }));
  } catch {
    return [];
  }
}

/** Whether the registry says it has no such thing (upload forgotten, blob unknown). */
export function hasErrorCode(response: TransportResponse, code: string): boolean {
  return registryErrors(response).some((e) => e.code === code);
}
