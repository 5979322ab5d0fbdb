// `npm run demo` on a terminal: each cpctl command writes to the terminal itself, so lists are
// tables with headers (they were tab-separated rows without one), and the failing release is
// made with `cpctl emulator fail-next`, as a reader would.
import { fileURLToPath } from "node:url";
import { beforeEach, expect, test } from "vitest";
import { plain, python3Available, runOnPty, terminalEnv } from "./helpers/pty.js";

const DEMO = fileURLToPath(new URL("../../scripts/demo.mjs", import.meta.url));

beforeEach((t) => {
  if (!python3Available()) t.skip("python3 with its pty module is not installed");
});

test("the demo shows tables on a terminal, and fails a release with cpctl emulator fail-next", async () => {
  const run = runOnPty([], {
    script: DEMO,
    env: terminalEnv({ CPCTL_DEMO_STAGE_MS: "20" }),
    columns: 120,
    rows: 200,
  });
  const { code, output } = await run.finished(60_000);
  const text = plain(output);
  expect(code, text).toBe(0);
  expect(text).toContain("# demo finished: every command exited as expected");
  expect(text).toMatch(/\$ cpctl deploy list\n+NAME\s+STATUS\s+ID\s+SOURCE/);
  expect(text).toMatch(/\$ cpctl deploy revisions demo-agent\n+ID\s+STATUS\s+SOURCE\s+REF/);
  expect(text).toContain(
    `$ cpctl emulator fail-next --stage BUILDING --message 'npm ERR! Missing script: "build"'`,
  );
  expect(text).not.toContain("curl");
}, 90_000);
