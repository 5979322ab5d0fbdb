// `deploy push` on a real terminal (the built binary on a pseudo-terminal): without --name it
// asks, offering the directory's name; then numbered steps, the wait's spinner with its
// elapsed time, and the outcome.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { freshDir } from "../helpers/run-cli.js";
import { plain, python3Available, runOnPty, terminalEnv } from "./helpers/pty.js";

let em: TestEmulator;
beforeEach(async (t) => {
  if (!python3Available()) t.skip("python3 with its pty module is not installed");
  em = await startTestEmulator({ stageMs: 0 });
});
afterEach(async () => {
  await em?.close();
});

function projectNamed(name: string): string {
  const dir = join(freshDir("pty-push"), name);
  mkdirSync(dir);
  writeFileSync(join(dir, "agent.json"), '{"graphs":{}}');
  writeFileSync(join(dir, "agent.py"), "graph = None\n");
  return dir;
}

describe("deploy push on a terminal", () => {
  test("asks for the name (the directory's by default), shows its steps and the outcome, offers to remember the name", async () => {
    const dir = projectNamed("weather-bot");
    const t = runOnPty(["deploy", "push", "--interval", "100ms"], {
      cwd: dir,
      env: terminalEnv({ CPCTL_BASE_URL: em.url, CPCTL_API_KEY: em.apiKey }),
    });
    await t.waitFor("Deployment name");
    await t.waitFor("weather-bot");
    t.type("\r");
    await t.waitFor("Remember deployment weather-bot for . in ./.cpctlrc.yaml? (Y/n)");
    t.type("\r");
    const { code, output } = await t.finished();
    const screen = plain(output);
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/1\. Packed 2 files from \./);
    expect(screen).toMatch(/2\. Created deployment weather-bot/);
    expect(screen).toMatch(/revision [0-9a-f]{8}: DEPLOYED after/);
    expect(screen).toMatch(/result\s+deployed after/);
    const list = await em.get("/v2/deployments?name=weather-bot");
    expect(list.json.resources).toHaveLength(1);
    expect(readFileSync(join(dir, ".cpctlrc.yaml"), "utf8")).toBe("deployment: weather-bot\n");

    // The next push asks nothing: the directory remembers its deployment, and nothing changed.
    const again = runOnPty(["deploy", "push"], {
      cwd: dir,
      env: terminalEnv({ CPCTL_BASE_URL: em.url, CPCTL_API_KEY: em.apiKey }),
    });
    const next = await again.finished();
    expect(next.code, plain(next.output)).toBe(0);
    expect(plain(next.output)).toContain("deployment weather-bot (from ./.cpctlrc.yaml)");
    expect(plain(next.output)).toContain("nothing to push");
    expect(plain(next.output)).not.toContain("Deployment name");
  });

  test("a missing directory or archive is said before the name is asked", async () => {
    const cwd = freshDir("pty-push-missing");
    for (const args of [
      ["deploy", "push", "./no-such-dir"],
      ["deploy", "push", "--image-archive", "no.tar"],
    ]) {
      const t = runOnPty(args, {
        cwd,
        env: terminalEnv({ CPCTL_BASE_URL: em.url, CPCTL_API_KEY: em.apiKey }),
      });
      const { code, output } = await t.finished();
      const screen = plain(output);
      expect(code, screen).toBe(2);
      expect(screen).toMatch(/no such directory|does not exist/i);
      expect(screen).not.toContain("Deployment name");
    }
  });
});
