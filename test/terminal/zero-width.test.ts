// A terminal that says it is 0 columns wide: what `script -qc CMD /dev/null < /dev/null` gives
// (it copies the size of a terminal on its input, and there is none), and some CI runners'
// pseudo-terminals. The spinner divided by that width: one frame then cleared an endless
// number of lines in a synchronous loop (hundreds of MB of cursor-up sequences, SIGTERM never
// seen). On such a terminal cpctl writes plain lines, as off a terminal, and every run ends.
// No sleeps: each wait is for a piece of output, bounded by a timeout.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { plain, python3Available, runOnPty, terminalEnv } from "./helpers/pty.js";

const SPINNER_FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
const ISO_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z revision [0-9a-f-]{36}: /m;
/** Far above what a wait of one revision writes, far below what the loop wrote in a second. */
const BOUNDED = 16 * 1024;
const ZERO = { columns: 0, rows: 0 };

let em: TestEmulator;
beforeEach(async (t) => {
  if (!python3Available()) t.skip("python3 with its pty module is not installed");
  em = await startTestEmulator({ stageMs: 1000 });
});
afterEach(async () => {
  await em?.close();
});

const env = () => terminalEnv({ CPCTL_BASE_URL: em.url, CPCTL_API_KEY: em.apiKey });

describe("a terminal of 0 columns", () => {
  test("a wait writes timestamped lines (no spinner), ends, and its output stays small", async () => {
    const deployment = (await em.createDeployment("internal_container", "zero-wide")) as { id: string };
    const t = runOnPty(["deploy", "wait", deployment.id, "--interval", "100ms"], { env: env(), ...ZERO });
    try {
      await t.waitFor("CREATING");
      em.settle();
      const { code, output } = await t.finished();
      expect(code, plain(output).slice(0, 2000)).toBe(0);
      expect(output.length).toBeLessThan(BOUNDED);
      expect(output).not.toMatch(SPINNER_FRAME);
      expect(output).not.toContain("\x1b[1A"); // no cursor-up: nothing is redrawn
      expect(plain(output)).toMatch(ISO_LINE);
      expect(plain(output)).toMatch(/DEPLOYED/);
    } finally {
      t.kill();
    }
  });

  test("SIGTERM ends a wait promptly: exit 130 and the command that resumes it", async () => {
    const deployment = (await em.createDeployment("internal_container", "zero-term")) as { id: string };
    const t = runOnPty(["deploy", "wait", deployment.id, "--interval", "100ms"], { env: env(), ...ZERO });
    try {
      await t.waitFor("CREATING");
      t.terminate();
      const { code, output } = await t.finished();
      expect(code, plain(output).slice(0, 2000)).toBe(130);
      expect(plain(output)).toContain(`cpctl deploy wait ${deployment.id}`);
      expect(output.length).toBeLessThan(BOUNDED);
    } finally {
      t.kill();
    }
  });

  test("a terminal resized to 0 columns while the spinner runs: the rest of the wait in lines, and it ends", async () => {
    const deployment = (await em.createDeployment("internal_container", "shrunk")) as { id: string };
    const t = runOnPty(["deploy", "wait", deployment.id, "--interval", "100ms"], { env: env() });
    try {
      await t.waitFor(SPINNER_FRAME);
      await t.waitFor("CREATING");
      const before = t.raw().length;
      t.resizeToZero();
      // The spinner's place is taken by a line saying where the wait stands.
      await t.waitFor(/\d{4}-\d\d-\d\dT\S+ revision [0-9a-f-]{36}: CREATING/);
      em.settle();
      const { code, output } = await t.finished();
      expect(code, plain(output).slice(0, 2000)).toBe(0);
      const after = output.slice(before);
      expect(after.length).toBeLessThan(BOUNDED);
      expect(plain(after)).toMatch(/revision [0-9a-f-]{36}: DEPLOYED/);
      expect(after).not.toMatch(SPINNER_FRAME);
    } finally {
      t.kill();
    }
  });

  test("a table is laid out for a terminal of the default width, whole", async () => {
    await em.createDeployment("internal_container", "a-deployment-with-a-rather-long-name");
    const { code, output } = await runOnPty(["deploy", "list"], { env: env(), ...ZERO }).finished();
    expect(code, plain(output)).toBe(0);
    expect(plain(output)).toMatch(/^NAME\s+/m);
    expect(plain(output)).toContain("a-deployment-with-a-rather-long-name");
  });

  test("--help is wrapped at the default width", async () => {
    const { code, output } = await runOnPty(["deploy", "create", "--help"], {
      env: env(),
      ...ZERO,
    }).finished();
    expect(code).toBe(0);
    const lines = plain(output).split("\n");
    expect(lines.length).toBeGreaterThan(20);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(100);
  });
});
