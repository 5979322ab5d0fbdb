// resource_spec defaults and rounding (spec 2.4 and 8).
import { describe, expect, it } from "vitest";
import { ROUNDED_CPU_FIELDS, roundCpu, withResourceDefaults } from "./index.js";

describe("roundCpu", () => {
  it("rounds to one decimal, half away from zero, despite binary floating point", () => {
    expect(roundCpu(0.25)).toBe(0.3);
    expect(roundCpu(0.15)).toBe(0.2);
    expect(roundCpu(0.35)).toBe(0.4);
    expect(roundCpu(1.04)).toBe(1.0);
    expect(roundCpu(1.05)).toBe(1.1);
    expect(roundCpu(2.45)).toBe(2.5);
    expect(roundCpu(0.1)).toBe(0.1);
    expect(roundCpu(0.14)).toBe(0.1);
    expect(roundCpu(8)).toBe(8);
    expect(roundCpu(7.96)).toBe(8);
  });
  it("matches decimal rounding for every hundredth from 0.01 to 20.00", () => {
    for (let hundredths = 1; hundredths <= 2000; hundredths++) {
      const expected = Math.floor((hundredths + 5) / 10) / 10;
      expect(roundCpu(hundredths / 100), `${hundredths / 100}`).toBe(expected);
    }
  });
  it("is idempotent", () => {
    for (const x of [0.1, 0.25, 0.3, 1.04, 7.95, 15.55]) expect(roundCpu(roundCpu(x))).toBe(roundCpu(x));
  });
});

describe("withResourceDefaults", () => {
  it("names the six CPU fields the service rounds", () => {
    expect([...ROUNDED_CPU_FIELDS].sort()).toEqual(
      ["cpu", "cpu_limit", "queue_cpu", "queue_cpu_limit", "redis_cpu", "redis_cpu_limit"].sort(),
    );
  });
  it("defaults limits to 2 x their request", () => {
    const out = withResourceDefaults({
      cpu: 1.5,
      memory_mb: 512,
      redis_cpu: 0.5,
      db_cpu: 2,
      db_memory_mb: 1024,
    });
    expect(out).toMatchObject({
      cpu_limit: 3,
      memory_limit_mb: 1024,
      queue_cpu_limit: 3,
      queue_memory_limit_mb: 1024,
      redis_cpu_limit: 1,
      db_cpu_limit: 4,
      db_memory_limit_mb: 2048,
    });
  });
  it("defaults redis_memory_limit_mb to 1 x redis_memory_mb", () => {
    expect(withResourceDefaults({ redis_memory_mb: 256 }).redis_memory_limit_mb).toBe(256);
  });
  it("defaults the queue values from the main ones", () => {
    const out = withResourceDefaults({ min_scale: 1, max_scale: 4, cpu: 2, memory_mb: 300 });
    expect(out).toMatchObject({
      queue_min_scale: 1,
      queue_max_scale: 4,
      queue_cpu: 2,
      queue_cpu_limit: 4,
      queue_memory_mb: 300,
      queue_memory_limit_mb: 600,
    });
  });
  it("chains queue_cpu_limit = 2 x (queue_cpu ?? cpu)", () => {
    expect(withResourceDefaults({ cpu: 1 }).queue_cpu_limit).toBe(2);
    expect(withResourceDefaults({ cpu: 1, queue_cpu: 3 }).queue_cpu_limit).toBe(6);
    expect(withResourceDefaults({ queue_cpu: 0.5 }).queue_cpu_limit).toBe(1);
    expect(withResourceDefaults({ memory_mb: 100, queue_memory_mb: 250 }).queue_memory_limit_mb).toBe(500);
    // The main limit does not feed the queue limit.
    expect(withResourceDefaults({ cpu: 1, cpu_limit: 5 }).queue_cpu_limit).toBe(2);
  });
  it("keeps given limits and explicit values", () => {
    const given = {
      cpu: 1,
      cpu_limit: 1.5,
      memory_mb: 512,
      memory_limit_mb: 600,
      queue_cpu: 2,
      queue_cpu_limit: 2.5,
      queue_memory_mb: 100,
      queue_memory_limit_mb: 150,
      queue_min_scale: 0,
      queue_max_scale: 9,
      min_scale: 1,
      max_scale: 2,
      redis_cpu: 0.5,
      redis_cpu_limit: 0.7,
      redis_memory_mb: 128,
      redis_memory_limit_mb: 512,
      db_cpu: 1,
      db_cpu_limit: 1.5,
      db_memory_mb: 1024,
      db_memory_limit_mb: 1536,
    };
    expect(withResourceDefaults(given)).toEqual(given);
  });
  it("keeps 0 as an explicit value (a default only fills null or absent)", () => {
    expect(withResourceDefaults({ min_scale: 2, queue_min_scale: 0 }).queue_min_scale).toBe(0);
    expect(withResourceDefaults({ cpu: 1, cpu_limit: null }).cpu_limit).toBe(2);
  });
  it("rounds CPU values to one decimal before deriving limits", () => {
    expect(withResourceDefaults({ cpu: 0.25 })).toMatchObject({
      cpu: 0.3,
      cpu_limit: 0.6,
      queue_cpu: 0.3,
      queue_cpu_limit: 0.6,
    });
    expect(withResourceDefaults({ cpu: 0.15 })).toMatchObject({ cpu: 0.2, cpu_limit: 0.4 });
    expect(withResourceDefaults({ cpu: 1.04, cpu_limit: 2.06 })).toMatchObject({ cpu: 1.0, cpu_limit: 2.1 });
    expect(withResourceDefaults({ redis_cpu: 0.35 })).toMatchObject({ redis_cpu: 0.4, redis_cpu_limit: 0.8 });
    expect(withResourceDefaults({ queue_cpu: 0.45 })).toMatchObject({ queue_cpu: 0.5, queue_cpu_limit: 1 });
    // 3 x 0.1 is not 0.3 in binary: a derived value must still be one decimal.
    expect(withResourceDefaults({ cpu: 0.3 }).cpu_limit).toBe(0.6);
  });
  it("leaves unset fields unset and does not touch fields without defaults", () => {
    expect(withResourceDefaults({})).toEqual({});
    const out = withResourceDefaults({ orchestrator_cpu: 0.25, executor_memory_mb: 100, labels: { a: "b" } });
    expect(out).toEqual({ orchestrator_cpu: 0.25, executor_memory_mb: 100, labels: { a: "b" } });
  });
  it("does not modify its argument", () => {
    const spec = { cpu: 0.25 };
    withResourceDefaults(spec);
    expect(spec).toEqual({ cpu: 0.25 });
  });
  it("is idempotent", () => {
    for (const spec of [
      { cpu: 0.25 },
      { cpu: 1.04, memory_mb: 100, redis_cpu: 0.15 },
      { queue_cpu: 7.95, db_cpu: 0.33 },
    ]) {
      const once = withResourceDefaults(spec);
      expect(withResourceDefaults(once)).toEqual(once);
    }
  });
  it("a tiny db_cpu does not get a db_cpu_limit of 0 (below its request and not a valid value)", () => {
    // db_cpu has no spec bounds (the schema only asks for more than 0); 2 x 0.01 = 0.02 is rounded to 0.
    const out = withResourceDefaults({ db_cpu: 0.01 });
    expect(out.db_cpu_limit).toBeGreaterThanOrEqual(0.01);
  });
});
