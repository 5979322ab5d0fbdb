// What the registry's handlers share: the request as they see it, the answer they return, and
// the checks every endpoint starts with (credentials, the repository, the method, a digest).
import type { IncomingMessage } from "node:http";
import { isDigest, SHA256_DIGEST } from "../../model/image-reference.js";
import type { Core } from "../core.js";
import type { RequestEvent } from "../request-pipeline.js";
import { authenticate, authorize } from "./access.js";
import type { BlobBody } from "./backend.js";
import { digestInvalid, RegistryError } from "./errors.js";
import type { RegistryPath } from "./paths.js";
import type { RegistryStorage } from "./storage.js";
import type { PushTokenClaims } from "./tokens.js";

export interface RegistryAnswer {
  status: number;
  headers: Record<string, string>;
  body?: BlobBody;
}

export interface RegistryRequest {
  method: string;
  path: RegistryPath;
  query: URLSearchParams;
  request: IncomingMessage;
  /** The emulator's time, read once for the request. */
  now: number;
  /** http://HOST:PORT as the client addressed the registry. */
  origin: string;
}

export interface Registry {
  core: Core;
  storage: RegistryStorage;
  observers: ReadonlySet<(event: RequestEvent) => void>;
}

const JSON_TYPE = "application/json";

export function claims(registry: Registry, r: RegistryRequest, name: string | null): PushTokenClaims {
  return authenticate(registry.core, r.request.headers, r.now, {
    origin: r.origin,
    scope: name === null ? null : `repository:${name}:pull,push`,
  });
}

export function claimsFor(registry: Registry, r: RegistryRequest, name: string): PushTokenClaims {
  const found = claims(registry, r, name);
  authorize(registry.core, found, name);
  return found;
}

export function mayRead(registry: Registry, found: PushTokenClaims, name: string): boolean {
  try {
    authorize(registry.core, found, name);
    return true;
  } catch {
    return false;
  }
}

export function allow(r: RegistryRequest, methods: string[]): void {
  if (!methods.includes(r.method)) {
    throw new RegistryError(405, "UNSUPPORTED", `${r.method} is not supported here`, null, {
      Allow: methods.join(", "),
    });
  }
}

export function unsupported(what: string): RegistryError {
  return new RegistryError(405, "UNSUPPORTED", `${what} is not supported by the emulator's registry`);
}

export function checkDigest(digest: string): void {
  if (!SHA256_DIGEST.test(digest)) {
    throw digestInvalid(
      isDigest(digest)
        ? `unsupported digest algorithm: the emulator's registry takes sha256 digests only`
        : "invalid digest: expected sha256: and 64 lower-case hexadecimal digits",
      { digest: digest.slice(0, 200) },
    );
  }
}

export function json(status: number, value: unknown): RegistryAnswer {
  const data = Buffer.from(JSON.stringify(value));
  return {
    status,
    headers: { "Content-Type": JSON_TYPE, "Content-Length": String(data.length) },
    body: { kind: "buffer", data },
  };
}
