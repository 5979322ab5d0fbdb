// End-to-end tests run the built binary: build it once per test run, so a test never runs
// a stale bundle (esbuild takes well under a second).
import { execFileSync } from "node:child_process";

export default function setup(): void {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
}
