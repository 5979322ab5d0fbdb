// Secret values never reach the screen unless --show-secrets is given.

export const MASK = "****";

/**
 * Returns a copy with the `value` of every entry of every `secrets` array masked, at any depth
 * (a Deployment, a create or patch body, a list of deployments). Other fields are untouched.
 */
export function maskSecrets<T>(value: T): T {
  return mask(value, false) as T;
}

function mask(value: unknown, inSecrets: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => mask(item, inSecrets));
  if (value === null || typeof value !== "object") return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (inSecrets && key === "value" && typeof child === "string") result[key] = MASK;
    else result[key] = mask(child, key === "secrets" && Array.isArray(child));
  }
  return result;
}
