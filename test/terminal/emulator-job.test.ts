// `cpctl emulator` says how to stop it in words that work where it runs: in the foreground of
// a terminal Ctrl-C reaches it; as a background job (`cpctl emulator &`, as the README starts
// it) Ctrl-C goes to the shell, so it names `kill PID` (and `fg`). A real interactive bash with
// job control on a pseudo-terminal decides which the emulator is.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, test } from "vitest";
import { freshDir } from "../helpers/run-cli.js";
import { BIN, python3Available, runOnPty, terminalEnv } from "./helpers/pty.js";

const bashAvailable = spawnSync("bash", ["--version"], { stdio: "ignore" }).status === 0;

describe("cpctl emulator on a terminal", () => {
  beforeEach((t) => {
    if (!python3Available()) t.skip("python3 with its pty module is not installed");
  });

  test("in the foreground: Ctrl-C stops it", async () => {
    const run = runOnPty(["emulator", "--port", "0"], { env: terminalEnv() });
    await run.waitFor("local control plane ready");
    await run.waitFor("Ctrl-C stops it");
    run.type("\x03");
    expect((await run.finished()).code).toBe(0);
  });

  test.skipIf(!bashAvailable)(
    "in the background of an interactive shell: kill PID, or fg then Ctrl-C",
    async () => {
      // The pseudo-terminal runs node, which runs an interactive bash: bash takes the terminal
      // and puts each job in a process group of its own, as a user's shell does.
      const dir = freshDir("emulator-job");
      const shell = join(dir, "shell.mjs");
      writeFileSync(
        shell,
        `import { spawnSync } from "node:child_process";
process.exit(spawnSync("bash", ["--norc", "--noprofile", "-i"], { stdio: "inherit" }).status ?? 1);
`,
      );
      const run = runOnPty([], { env: { ...terminalEnv(), PS1: "$ " }, script: shell, cwd: dir });
      // `$!` is the job's PID as the shell knows it; the emulator must name the same.
      run.type(`"${process.execPath}" "${BIN}" emulator --port 0 & echo "job=$!"\r`);
      const job = Number((await run.waitFor(/job=\d+/)).slice(4));
      try {
        await run.waitFor("local control plane ready");
        const advice = await run.waitFor(/kill \d+ stops it \(or fg, then Ctrl-C\)/);
        expect(advice).toBe(`kill ${job} stops it (or fg, then Ctrl-C)`);
        expect(run.raw()).not.toContain("Ctrl-C stops it");
        run.type(`kill ${job}; wait; exit\r`);
        await run.waitFor("stopped");
        expect((await run.finished()).code).toBe(0);
      } finally {
        killQuietly(job);
        run.kill();
      }
    },
  );
});

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Gone already, as it should be.
  }
}
