// The state lock in one process: who counts as holding it, and a holder that lost its lock
// acknowledging nothing. Two processes racing for it: command.test.ts.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../../test/helpers/emulator.js";
import { EmulatorStartError, startEmulator } from "./server.js";

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

/** A lock as an emulator would have left it; returns its file. */
function plantLock(path: string, holder: Record<string, unknown>): string {
  mkdirSync(`${path}.lock`, { recursive: true });
  const file = join(`${path}.lock`, "1");
  writeFileSync(file, JSON.stringify(holder));
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

  it("an emulator of this machine whose PID is free (killed): taken over at once, its file removed", async () => {
    const path = statePath();
    const first = await startEmulator({ port: 0, statePath: path });
    const [mine] = readdirSync(`${path}.lock`);
    const holder = JSON.parse(readFileSync(join(`${path}.lock`, mine!), "utf8"));
    expect(holder).toMatchObject({ pid: process.pid, host: hostname() });
    await first.close();
    plantLock(path, { ...holder, pid: 999_999_999 });
    const em = await startEmulator({ port: 0, statePath: path });
    expect(readdirSync(`${path}.lock`)).toEqual(["2"]);
    await em.close();
  });

  it("an emulator of another container or host: refused, saying how to free the lock once it is gone", async () => {
    const path = statePath();
    plantLock(path, { pid: 1, host: "3f2a9c1b7d4e", pid_ns: "pid:[4026532999]" });
    await expect(startEmulator({ port: 0, statePath: path })).rejects.toThrow(
      /in use by another emulator \(process 1 on host 3f2a9c1b7d4e, in another container or on another host, so it cannot be checked from here; if that emulator is gone, delete .*\.lock\)/,
    );
    rmSync(`${path}.lock`, { recursive: true });
    await (await startEmulator({ port: 0, statePath: path })).close();
  });

  it("a lock file that cannot be read: refused, never taken over", async () => {
    const path = statePath();
    const file = plantLock(path, {});
    writeFileSync(file, "{half");
    await expect(startEmulator({ port: 0, statePath: path })).rejects.toThrow(
      /in use by another emulator \(its lock file .* cannot be read; if no emulator uses the file, delete /,
    );
    expect(readFileSync(file, "utf8")).toBe("{half");
  });
});

describe("a holder that lost its lock", () => {
  it("answers 503 to a change and says so on stderr, never acknowledging it", async () => {
    const path = statePath();
    const em = await startTestEmulator({ statePath: path });
    expect((await em.createDeployment("internal_container")).id).toBeDefined();
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    // Someone deleted the lock by hand, and another emulator took the file.
    rmSync(`${path}.lock`, { recursive: true });
    plantLock(path, { pid: 1, host: "elsewhere", pid_ns: null });
    const refused = await em.post("/v2/deployments", em.createBody("internal_container"));
    expect(refused.status).toBe(503);
    expect(refused.json.detail).toMatch(/no longer holds the lock .* Stop this emulator/);
    const written = stderr.mock.calls.map((call) => String(call[0])).join("");
    expect(written).toMatch(/another emulator took over the state file/);
    expect(written).not.toMatch(/internal error|\n\s+at /);
  });
});
