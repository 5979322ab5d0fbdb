// The state lock in one process: who counts as holding it (PID reuse, PID namespaces, the
// heartbeat), old cpctl's lock file, and a holder that lost its lock acknowledging nothing.
// Two processes racing for it: command.test.ts.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../../test/helpers/emulator.js";
import { ownIdentity, processStartTicks } from "../util/process-identity.js";
import { EmulatorStartError, startEmulator } from "./server.js";
import { LOCK_STALE_MS } from "./state-lock.js";

afterEach(() => {
  vi.restoreAllMocks();
  return closeTestEmulators();
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cpctl-emulator-lock-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
let counter = 0;
const statePath = () => join(dir, `state-${++counter}.json`);

/** A lock as a holder would have left it, `ageMs` after its last heartbeat. */
function plantLock(path: string, holder: Record<string, unknown>, ageMs = 0): string {
  mkdirSync(`${path}.lock`, { recursive: true });
  const file = join(`${path}.lock`, "1");
  writeFileSync(file, JSON.stringify({ format: "cpctl-emulator-lock", ...holder }));
  const when = (Date.now() - ageMs) / 1000;
  utimesSync(file, when, when);
  return file;
}

describe("who holds the state lock", () => {
  it("a live emulator of this process: refused, with a clear typed error", async () => {
    const path = statePath();
    const first = await startEmulator({ port: 0, statePath: path });
    const refusal = startEmulator({ port: 0, statePath: path });
    await expect(refusal).rejects.toBeInstanceOf(EmulatorStartError);
    await expect(refusal).rejects.toThrow(
      new RegExp(
        `in use by another emulator \\(process ${process.pid} on host .*\\); stop it or use another --state file`,
      ),
    );
    await first.close();
    expect(readdirSync(dir)).not.toContain(`state-${counter}.json.lock`);
    await (await startEmulator({ port: 0, statePath: path })).close();
  });

  it("a PID now used by a younger process (PID reuse) is a dead holder: taken over at once", async () => {
    const path = statePath();
    plantLock(path, { ...ownIdentity(), start_ticks: "1" });
    await (await startEmulator({ port: 0, statePath: path })).close();
  });

  it("PID 1 of this namespace that is not the holder (another start time): taken over at once", async () => {
    const path = statePath();
    expect(processStartTicks(1)).not.toBeNull();
    plantLock(path, { ...ownIdentity(), pid: 1, start_ticks: "999999999999" });
    await (await startEmulator({ port: 0, statePath: path })).close();
  });

  it("PID 1 of a killed container (another PID namespace): taken over once its heartbeat lapsed", async () => {
    const path = statePath();
    const container = {
      pid: 1,
      host: "3f2a9c1b7d4e",
      boot_id: ownIdentity().boot_id,
      pid_ns: "pid:[4026532999]",
      start_ticks: "12",
    };
    const file = plantLock(path, container, 1000);
    const refusal = startEmulator({ port: 0, statePath: path });
    await expect(refusal).rejects.toThrow(
      /process 1 on host 3f2a9c1b7d4e, whose PID cannot be checked from here .* lapses 10 s after its last refresh: start again in 9 s/,
    );
    const lapsed = (Date.now() - LOCK_STALE_MS - 1000) / 1000;
    utimesSync(file, lapsed, lapsed);
    const em = await startEmulator({ port: 0, statePath: path });
    // The newcomer holds the next number; the dead one's file is gone.
    expect(readdirSync(`${path}.lock`)).toEqual(["2"]);
    expect(JSON.parse(readFileSync(join(`${path}.lock`, "2"), "utf8")).pid).toBe(process.pid);
    await em.close();
  });

  it("an old cpctl's lock file (a bare PID): taken over when the PID is free, refused while it runs", async () => {
    const path = statePath();
    writeFileSync(`${path}.lock`, "999999999");
    await (await startEmulator({ port: 0, statePath: path })).close();
    writeFileSync(`${path}.lock`, String(process.pid));
    await expect(startEmulator({ port: 0, statePath: path })).rejects.toThrow(/a lock of an older cpctl/);
  });
});

describe("a holder that lost its lock", () => {
  it("answers 503 to a change and says so on stderr, never acknowledging it", async () => {
    const path = statePath();
    const em = await startTestEmulator({ statePath: path });
    expect((await em.createDeployment("internal_container")).id).toBeDefined();
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    // What a newcomer that (wrongly) judged it dead does: take the next number.
    const [mine] = readdirSync(`${path}.lock`);
    writeFileSync(join(`${path}.lock`, String(Number(mine) + 1)), "{}");
    const refused = await em.post("/v2/deployments", em.createBody("internal_container"));
    expect(refused.status).toBe(503);
    expect(refused.json.detail).toMatch(/no longer holds the lock .* Stop this emulator/);
    const written = stderr.mock.calls.map((call) => String(call[0])).join("");
    expect(written).toMatch(/another emulator took over the state file/);
    expect(written).not.toMatch(/internal error|\n\s+at /);
  });
});
