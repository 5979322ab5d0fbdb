// `cpctl config set` run by several processes at once (two terminals, a setup script that
// runs in parallel): every write lands. Each is a read-modify-write of the user file, so
// without a lock the last rename wins and the others' profiles are gone, although every
// process said "set ..." and exited 0. Real processes of the built binary, a bounded number
// of rounds; the file is checked after each round.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { killSpawnedClis, report, spawnBuiltCli } from "./helpers.js";

const homes: string[] = [];
afterEach(() => killSpawnedClis());
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function freshHome(): string {
  const home = mkdtempSync(join(tmpdir(), "cpctl-config-race-"));
  homes.push(home);
  return home;
}

/** `writers` processes at once, each setting baseUrl of its own profile; their exit codes. */
async function round(home: string, writers: number, tag: string): Promise<(number | null)[]> {
  const runs = Array.from({ length: writers }, (_, i) =>
    spawnBuiltCli(["config", "set", "baseUrl", `https://w${i}.example.com`, "--profile", `${tag}-w${i}`], {
      env: { HOME: home },
    }),
  );
  const codes: (number | null)[] = [];
  for (const run of runs) {
    const [code] = await run.exited;
    if (code !== 0) throw new Error(`config set exited ${code}: ${run.out.stderr}`);
    codes.push(code);
  }
  return codes;
}

function profilesIn(home: string): Record<string, { baseUrl?: string }> {
  const text = readFileSync(join(home, ".config", "cpctl", "config.yaml"), "utf8");
  return (parse(text) as { profiles?: Record<string, { baseUrl?: string }> }).profiles ?? {};
}

describe("concurrent `cpctl config set`: no write is lost", () => {
  it("two writers, 20 rounds on one file: every profile is in the file", async () => {
    const home = freshHome();
    let written = 0;
    let lost = 0;
    for (let r = 0; r < 20; r++) {
      await round(home, 2, `r${r}`);
      written += 2;
      const profiles = profilesIn(home);
      for (let i = 0; i < 2; i++) {
        if (profiles[`r${r}-w${i}`]?.baseUrl !== `https://w${i}.example.com`) lost++;
      }
    }
    // Every earlier round is still there too.
    expect(Object.keys(profilesIn(home))).toHaveLength(written);
    expect(lost).toBe(0);
    report("config set, 2 writers", { rounds: 20, writes: written, lost });
  }, 120_000);

  it("six writers creating the file, 4 rounds: all six profiles, a mode-0600 file, no leftovers", async () => {
    let lost = 0;
    for (let r = 0; r < 4; r++) {
      const home = freshHome();
      await round(home, 6, "new");
      const profiles = profilesIn(home);
      for (let i = 0; i < 6; i++) if (profiles[`new-w${i}`]?.baseUrl !== `https://w${i}.example.com`) lost++;
      // No lock, no temporary file left behind.
      expect(readdirSync(join(home, ".config", "cpctl"))).toEqual(["config.yaml"]);
    }
    expect(lost).toBe(0);
    report("config set, 6 writers creating the file", { rounds: 4, writes: 24, lost });
  }, 120_000);
});
