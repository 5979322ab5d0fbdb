// Every test file's setup: the property tests (fast-check) run with the one seed the global
// setup chose for this run (test/helpers/fc-seed.ts says which and why), so that the suite is
// the same on every run unless exploring was asked for.
import fc from "fast-check";
import { inject } from "vitest";

fc.configureGlobal({ seed: inject("fcSeed") });

declare module "vitest" {
  export interface ProvidedContext {
    fcSeed: number;
  }
}
