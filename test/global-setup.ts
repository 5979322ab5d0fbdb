// Once per test run: build the binary the end-to-end tests run, so a test never runs a stale
// bundle (esbuild takes well under a second), and choose the property tests' seed, which every
// test file's setup takes (test/fast-check-seed.ts) and this prints, at the start and again at
// the end when exploring (where a failure needs it to be replayed).
import { execFileSync } from "node:child_process";
import type { TestProject } from "vitest/node";
import { chooseSeed, seedLine } from "./helpers/fc-seed.js";

export default function setup(project: TestProject): () => void {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
  const choice = chooseSeed(process.env);
  project.provide("fcSeed", choice.seed);
  console.log(seedLine(choice));
  return () => {
    if (choice.explore) console.log(seedLine(choice));
  };
}
