// Identifiers. Random ones for what the emulator creates, deterministic ones (a hash of a
// name) for what must come out the same on every start: tenants derived from a key, and the
// listeners and integrations seeded per tenant, so that a test or a user's script can rely
// on an ID it saw yesterday.
import { createHash, createHmac, randomBytes, randomUUID } from "node:crypto";

export function newId(): string {
  return randomUUID();
}

/** A UUID (version 5 layout) derived from `parts`: same parts, same UUID, on any machine. */
export function stableUuid(...parts: string[]): string {
  const bytes = createHash("sha256").update(parts.join("\u0000")).digest();
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** A positive integer derived from `parts`, for installation IDs (fits in 31 bits). */
export function stableInt(...parts: string[]): number {
  return createHash("sha256").update(parts.join("\u0000")).digest().readUInt32BE(0) >>> 1;
}

/** A git commit SHA: 40 lowercase hexadecimal digits. */
export function newCommitSha(): string {
  return randomBytes(20).toString("hex");
}

export function newSigningKey(): string {
  return randomBytes(32).toString("hex");
}

export function sign(key: string, value: string): string {
  return createHmac("sha256", key).update(value).digest("hex");
}
