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
import { readStateFile } from "./store/persistence.js";

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
function start(args: string[], extraEnv: Record<string, string> = {}): Started {
  const child = spawn(process.execPath, [bin, "emulator", "--port", "0", ...args], {
    env: { ...env, ...extraEnv },
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
    // What the next emulator would load.
    const saved = readStateFile(file)!.deployments.map((d) => d.name);
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
  /** Resolves once the emulator has said it is ready (the key lines come before). */
  const ready = (started: Started) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!started.stderr().includes("local control plane ready")) return;
        started.child.stderr!.off("data", check);
        resolve();
      };
      started.child.stderr!.on("data", check);
      check();
    });

  /** Every piece of 4 characters of `secret`: none may appear in what the emulator prints. */
  const pieces = (secret: string) =>
    Array.from({ length: secret.length - 3 }, (_, i) => secret.slice(i, i + 4));

  it("prints the tenant each configured key acts for on stderr, naming the key by its place, never by any part of it", async () => {
    const started = start([
      "--api-key",
      "Dv8qLm3Wz",
      "--api-key",
      "org=0a0a0a0a-0000-4000-8000-000000000001",
    ]);
    const { url } = await started.outcome;
    expect(url).not.toBeNull();
    await ready(started);
    expect(started.stderr()).toContain(
      `API key #1 of --api-key acts for tenant ${tenantIdForCredential("Dv8qLm3Wz")}\n`,
    );
    expect(started.stderr()).toContain(
      "API key #2 of --api-key acts for tenant 0a0a0a0a-0000-4000-8000-000000000001\n",
    );
    for (const piece of pieces("Dv8qLm3Wz")) expect(started.stderr()).not.toContain(piece);
    await killed(started.child);
  });

  it("takes the keys and the control token from the environment: those keys only, the token required, neither printed", async () => {
    const keys = ["Zq9vW7kXdev", "Pm4tR8yHorg=0a0a0a0a-0000-4000-8000-000000000001"];
    const token = "Ct7uJ3nBtoken";
    const started = start([], {
      CPCTL_EMULATOR_API_KEYS: `${keys[0]}\n${keys[1]}\n`,
      CPCTL_EMULATOR_CONTROL_TOKEN: token,
    });
    const { url } = await started.outcome;
    expect(url, started.stderr()).not.toBeNull();
    await ready(started);
    expect(started.stderr()).toContain(
      `API key #1 of CPCTL_EMULATOR_API_KEYS acts for tenant ${tenantIdForCredential(keys[0]!)}\n`,
    );
    expect(started.stderr()).toContain(
      "API key #2 of CPCTL_EMULATOR_API_KEYS acts for tenant 0a0a0a0a-0000-4000-8000-000000000001\n",
    );
    for (const secret of [keys[0]!, "Pm4tR8yHorg", token])
      for (const piece of pieces(secret)) expect(started.stderr()).not.toContain(piece);

    const list = (key: string) => httpRequest(`${url}/v2/deployments`, { headers: { "X-Api-Key": key } });
    expect((await list(keys[0]!)).status).toBe(200);
    expect((await list("Pm4tR8yHorg")).status).toBe(200);
    expect((await list("any-other-key")).status).toBe(401);
    const stats = (headers: Record<string, string>) => httpRequest(`${url}/_emulator/stats`, { headers });
    expect((await stats({})).status).toBe(401);
    expect((await stats({ "X-Control-Token": token })).status).toBe(200);
    await killed(started.child);
  });

  it("an empty CPCTL_EMULATOR_API_KEYS (a CI secret that is missing) stops the start with exit 2, rather than accepting any key", async () => {
    const started = start([], { CPCTL_EMULATOR_API_KEYS: "" });
    const outcome = await started.outcome;
    expect(outcome.url).toBeNull();
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/^error: CPCTL_EMULATOR_API_KEYS is set but empty: /);
    expect(outcome.stderr).not.toMatch(/internal error|\n\s+at /);
  });
});
