import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RUN_TEMP_PREFIX, useRunTempDir } from "./run-temp.js";

describe("the test run's temporary directory", () => {
  it("is where this run's tests make their temporary directories", () => {
    // global-setup.ts points TMPDIR at it for the workers and what they start.
    expect(tmpdir()).toContain(RUN_TEMP_PREFIX);
  });

  it("is removed whole at the end, and TMPDIR given back", () => {
    const env: NodeJS.ProcessEnv = { TMPDIR: tmpdir() };
    const { directory, cleanUp } = useRunTempDir(env);
    expect(env.TMPDIR).toBe(directory);
    const inner = mkdtempSync(join(directory, "cpctl-home-"));
    mkdirSync(join(inner, "a", "b"), { recursive: true });
    writeFileSync(join(inner, "a", "b", "file"), "x");
    cleanUp();
    expect(existsSync(directory)).toBe(false);
    expect(env.TMPDIR).toBe(tmpdir());
  });

  it("is kept with CPCTL_KEEP_TEST_TMP=1", () => {
    const env: NodeJS.ProcessEnv = { CPCTL_KEEP_TEST_TMP: "1" };
    const { directory, cleanUp } = useRunTempDir(env);
    cleanUp();
    expect(existsSync(directory)).toBe(true);
    expect(env.TMPDIR).toBeUndefined();
    rmSync(directory, { recursive: true });
  });
});
