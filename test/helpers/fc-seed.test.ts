import fc from "fast-check";
import { describe, expect, inject, it } from "vitest";
import { chooseSeed, FIXED_SEED, seedLine } from "./fc-seed.js";

describe("the property tests' seed", () => {
  it("is fixed unless asked otherwise, in CI or not", () => {
    expect(chooseSeed({})).toEqual({ seed: FIXED_SEED, explore: false });
    expect(chooseSeed({ CI: "true" })).toEqual({ seed: FIXED_SEED, explore: false });
    expect(chooseSeed({ FC_SEED: "" })).toEqual({ seed: FIXED_SEED, explore: false });
  });

  it("FC_SEED=random explores: a new seed, said with the command that replays it", () => {
    const choice = chooseSeed({ FC_SEED: "random" }, () => 0.5);
    expect(choice).toEqual({ seed: 0x3fffffff, explore: true });
    expect(seedLine(choice)).toContain(`FC_SEED=${0x3fffffff} npm test`);
  });

  it("FC_SEED=<n> runs that seed; anything else is refused", () => {
    expect(chooseSeed({ FC_SEED: "42" })).toEqual({ seed: 42, explore: false });
    expect(() => chooseSeed({ FC_SEED: "abc" })).toThrow("FC_SEED='abc'");
  });

  it("is the one this run's properties use", () => {
    // The global setup chose it from the run's environment; the setup file applied it.
    const asked = chooseSeed(process.env);
    expect(fc.readConfigureGlobal().seed).toBe(asked.explore ? inject("fcSeed") : asked.seed);
  });
});
