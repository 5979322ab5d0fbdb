// Once per test run: build the binary the end-to-end tests run, so a test never runs a stale
// bundle (esbuild takes well under a second), and choose the property tests' seed, which every
// test file's setup takes (test/fast-check-seed.ts) and this prints, at the start and again at
// the end when exploring (where a failure needs it to be replayed). Every temporary directory
// the run makes goes under one of its own, removed at the end (helpers/run-temp.ts).
import { execFileSync } from "node:child_process";
import type { TestProject } from "vitest/node";
import { chooseSeed, seedLine } from "./helpers/fc-seed.js";
import { useRunTempDir } from "./helpers/run-temp.js";

export default function setup(project: TestProject): () => void {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
  const runTemp = useRunTempDir();
  const choice = chooseSeed(process.env);
  project.provide("fcSeed", choice.seed);
  console.log(seedLine(choice));
  return () => {
    if (choice.explore) console.log(seedLine(choice));
    runTemp.cleanUp();
  };
}
