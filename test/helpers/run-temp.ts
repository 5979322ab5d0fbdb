// Every temporary file and directory of one test run under one directory, removed when the run
// ends. Tests (and the binaries, emulators and engines they start) make their temporary
// directories with the system's temporary directory (os.tmpdir(), TMPDIR), thousands a run;
// pointing TMPDIR at a directory of the run's own keeps them together, so that the run leaves
// nothing behind. CPCTL_KEEP_TEST_TMP=1 keeps it, to look at what a failed test wrote.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const RUN_TEMP_PREFIX = "cpctl-test-run-";

/**
 * Makes the run's directory and points TMPDIR (in `env`, which the test workers and every
 * process they start inherit) at it; returns the clean-up for the end of the run.
 */
export function useRunTempDir(env: NodeJS.ProcessEnv = process.env): {
  directory: string;
  cleanUp: () => void;
} {
  const directory = mkdtempSync(join(tmpdir(), RUN_TEMP_PREFIX));
  const before = env.TMPDIR;
  env.TMPDIR = directory;
  return {
    directory,
    cleanUp: () => {
      if (before === undefined) delete env.TMPDIR;
      else env.TMPDIR = before;
      if (env.CPCTL_KEEP_TEST_TMP === "1") {
        console.log(`test files kept in ${directory} (CPCTL_KEEP_TEST_TMP=1)`);
        return;
      }
      rmSync(directory, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}
