// resource_spec rounding and limit defaults (spec 2.4). The service stores the spec with
// these applied; the emulator does the same, and `deploy diff` applies them to the desired
// spec so that an unset limit is not shown as a difference.
import type { ResourceSpecRequestT } from "./schemas.js";

type Spec = Partial<ResourceSpecRequestT>;

/** Rounds to one decimal, half away from zero (0.25 -> 0.3), despite binary floating point. */
export function roundCpu(cores: number): number {
  return Math.round((cores + Number.EPSILON) * 10) / 10;
}

/** CPU fields the service rounds to one decimal (spec 2.4 and 8). */
export const ROUNDED_CPU_FIELDS = [
  "cpu",
  "cpu_limit",
  "queue_cpu",
  "queue_cpu_limit",
  "redis_cpu",
  "redis_cpu_limit",
] as const;

/**
 * Defaults in the order they must be applied: a later default may read an earlier one
 * (queue_cpu_limit defaults from queue_cpu, which itself defaults from cpu).
 */
const DEFAULTS: [target: keyof ResourceSpecRequestT, from: keyof ResourceSpecRequestT, factor: number][] = [
  ["cpu_limit", "cpu", 2],
  ["memory_limit_mb", "memory_mb", 2],
  ["queue_min_scale", "min_scale", 1],
  ["queue_max_scale", "max_scale", 1],
  ["queue_cpu", "cpu", 1],
  ["queue_cpu_limit", "queue_cpu", 2],
  ["queue_memory_mb", "memory_mb", 1],
  ["queue_memory_limit_mb", "queue_memory_mb", 2],
  ["redis_cpu_limit", "redis_cpu", 2],
  // The one limit whose factor is 1, not 2.
  ["redis_memory_limit_mb", "redis_memory_mb", 1],
  ["db_cpu_limit", "db_cpu", 2],
  ["db_memory_limit_mb", "db_memory_mb", 2],
];

/** The value a field defaults to in `spec` when it is unset, computed from what it defaults from. */
function defaultFor(
  spec: Record<string, unknown>,
  from: string,
  factor: number,
  target: string,
): number | null {
  const base = spec[from];
  if (typeof base !== "number") return null;
  // The rounded CPU fields stay on one decimal; the others (db_cpu_limit) keep the exact
  // product, so a tiny db_cpu never gets a limit of 0.
  const value = base * factor;
  return (ROUNDED_CPU_FIELDS as readonly string[]).includes(target) ? roundCpu(value) : value;
}

/**
 * The fields of a stored spec that hold exactly their default (cpu_limit = 2 x cpu, queue_cpu =
 * cpu, ...). A partial change leaves these out of what it sends, so that they follow their
 * request as they would on create; a value equal to its default cannot be told apart from one.
 */
export function fieldsAtDefault(spec: Spec): Set<keyof ResourceSpecRequestT> {
  const values = spec as Record<string, unknown>;
  const result = new Set<keyof ResourceSpecRequestT>();
  for (const [target, from, factor] of DEFAULTS) {
    const value = values[target];
    const fallback = defaultFor(values, from, factor, target);
    if (typeof value === "number" && fallback !== null && Math.abs(value - fallback) < 1e-9)
      result.add(target);
  }
  return result;
}

/** The spec as the service stores it: CPU values rounded, unset limits filled from their requests. */
export function withResourceDefaults<T extends Spec>(spec: T): T & Spec {
  const result: Record<string, unknown> = { ...spec };
  for (const field of ROUNDED_CPU_FIELDS) {
    const value = result[field];
    if (typeof value === "number") result[field] = roundCpu(value);
  }
  for (const [target, from, factor] of DEFAULTS) {
    if (result[target] != null) continue;
    const value = defaultFor(result, from, factor, target);
    if (value !== null) result[target] = value;
  }
  return result as T & Spec;
}
