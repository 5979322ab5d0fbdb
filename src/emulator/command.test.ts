// `cpctl emulator` as users run it (the built CLI in child processes): two emulators racing
// to take over a dead one's state lock, the message of a lock conflict, and the tenants of
// the configured keys on stderr. No sleeps: every wait is for a line or an exit.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { httpRequest } from "../../test/helpers/emulator.js";
import { report } from "../../test/reliability/helpers.js";
import { tenantIdForCredential } from "./api/key-grants.js";
import { readStateFiles } from "./store/persistence.js";

const bin = fileURLToPath(new URL("../../bin/cpctl.cjs", import.meta.url));
const env = { PATH: process.env.PATH ?? "", HOME: "/nonexistent-home-for-tests" };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cpctl-emulator-cmd-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  children.clear();
});

interface Started {
  child: ChildProcess;
  /** The URL once it listens, or null if it exited first. */
  outcome: Promise<{ url: string | null; code: number | null; stderr: string }>;
  stderr: () => string;
}

/** Starts `cpctl emulator`; `outcome` settles on its first stdout line or on its exit. */
function start(args: string[]): Started {
  const child = spawn(process.execPath, [bin, "emulator", "--port", "0", ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const outcome = new Promise<{ url: string | null; code: number | null; stderr: string }>((resolve) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^listening on (http:\/\/\S+)\n/.exec(stdout);
      if (match) resolve({ url: match[1]!, code: null, stderr });
    });
    child.on("exit", (code) => resolve({ url: null, code, stderr }));
  });
  return { child, outcome, stderr: () => stderr };
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

const createBody = (name: string) => ({
  name,
  source: "internal_container",
  source_config: {},
  source_revision_config: { image_uri: "registry.example.com/a:1" },
  secrets: [],
});

describe("two emulators taking over a dead emulator's state lock at once", () => {
  it("exactly one wins each round, the other says why (no internal error), and no acknowledged write is lost", async () => {
    const file = join(dir, "race.state.json");
    const ROUNDS = 15;
    const acknowledged: string[] = [];
    let refusals = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Round 0 starts on a fresh file; every later one on the lock of the emulator killed
      // with SIGKILL at the end of the round before.
      const pair = [start(["--state", file, "--stage-ms", "5"]), start(["--state", file, "--stage-ms", "5"])];
      const outcomes = await Promise.all(pair.map((p) => p.outcome));
      const winners = outcomes.filter((o) => o.url !== null);
      expect(winners, JSON.stringify(outcomes)).toHaveLength(1);
      const loser = outcomes.find((o) => o.url === null)!;
      expect(loser.code).toBe(1);
      expect(loser.stderr).toMatch(
        /^error: cannot start: the state file .*race\.state\.json is in use by another emulator \(process \d+ on host /,
      );
      expect(loser.stderr).not.toMatch(/internal error|report it|\n\s+at /);
      refusals++;

      const url = winners[0]!.url!;
      // The winner serves everything acknowledged before, and acknowledges one more.
      const list = await httpRequest(`${url}/v2/deployments?limit=100`, { headers: { "X-Api-Key": "race" } });
      expect(list.json.resources.map((d: { name: string }) => d.name).sort()).toEqual(
        [...acknowledged].sort(),
      );
      const made = await httpRequest(`${url}/v2/deployments`, {
        method: "POST",
        headers: { "X-Api-Key": "race", "Content-Type": "application/json" },
        body: JSON.stringify(createBody(`round-${round}`)),
      });
      expect(made.status).toBe(201);
      acknowledged.push(`round-${round}`);
      await Promise.all(pair.map((p) => killed(p.child)));
    }
    // What the next emulator would load: the state file with its journal replayed.
    const saved = readStateFiles(file).state!.deployments.map((d) => d.name);
    expect(saved.sort()).toEqual([...acknowledged].sort());
    expect(refusals).toBe(ROUNDS);
    report("emulator lock takeover race", {
      rounds: ROUNDS,
      emulators_started: 2 * ROUNDS,
      winners: ROUNDS,
      refused_cleanly: refusals,
      acknowledged: acknowledged.length,
      lost: acknowledged.filter((name) => !saved.includes(name)).length,
    });
  });
});

describe("start-up messages", () => {
  it("prints the tenant each configured key acts for on stderr", async () => {
    const started = start([
      "--api-key",
      "dev-key-1",
      "--api-key",
      "org=0a0a0a0a-0000-4000-8000-000000000001",
    ]);
    const { url } = await started.outcome;
    expect(url).not.toBeNull();
    await new Promise<void>((resolve) => {
      const check = () => {
        if (!started.stderr().includes("local control plane ready")) return;
        started.child.stderr!.off("data", check);
        resolve();
      };
      started.child.stderr!.on("data", check);
      check();
    });
    expect(started.stderr()).toContain(
      `API key dev-… acts for tenant ${tenantIdForCredential("dev-key-1")}\n`,
    );
    expect(started.stderr()).toContain("API key o… acts for tenant 0a0a0a0a-0000-4000-8000-000000000001\n");
    expect(started.stderr()).not.toContain("dev-key-1");
    await killed(started.child);
  });
});
