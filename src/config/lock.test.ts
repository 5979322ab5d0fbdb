// The config file's lock in one process: a live holder makes a writer wait (and give up with a
// message that names it), a holder killed with kill -9 or unchecked for too long is taken over.
// Several processes at once: test/reliability/config-race.test.ts.
import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { failure } from "../../test/helpers/failure.js";
import { OperationError } from "../errors.js";
import { LOCK_STALE_MS, withFileLock } from "./lock.js";

/** This process, as a lock file names its holder. */
const ownIdentity = () => {
  let pidNs: string | null = null;
  try {
    pidNs = readlinkSync("/proc/self/ns/pid");
  } catch {
    // Not Linux.
  }
  return { pid: process.pid, host: hostname(), pid_ns: pidNs };
};

const root = mkdtempSync(join(tmpdir(), "cpctl-config-lock-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
const configPath = () => {
  const dir = join(root, `home-${++counter}`);
  mkdirSync(dir);
  return join(dir, "config.yaml");
};

/** A lock file as a holder leaves it, last touched `ageMs` ago. */
function plantLock(path: string, holder: object, ageMs = 0): void {
  mkdirSync(`${path}.lock`);
  const file = join(`${path}.lock`, "1");
  writeFileSync(file, JSON.stringify({ format: "cpctl-config-lock", ...holder }));
  const at = (Date.now() - ageMs) / 1000;
  utimesSync(file, at, at);
}

describe("withFileLock", () => {
  it("runs the work holding the lock, then removes the lock directory", async () => {
    const path = configPath();
    const seen = await withFileLock(path, async (stillHeld) => {
      expect(readdirSync(`${path}.lock`)).toEqual(["1"]);
      return stillHeld();
    });
    expect(seen).toBe(true);
    expect(readdirSync(join(path, ".."))).toEqual([]);
  });

  it("one at a time: a second writer waits for the first", async () => {
    const path = configPath();
    const order: string[] = [];
    let release!: () => void;
    const first = withFileLock(path, async () => {
      order.push("first in");
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      order.push("first out");
    });
    while (order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const second = withFileLock(path, async () => {
      order.push("second in");
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(order).toEqual(["first in"]);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(["first in", "first out", "second in"]);
  });

  it("a live holder that does not let go: the writer gives up, naming it and the lock", async () => {
    const path = configPath();
    plantLock(path, ownIdentity());
    const error = await failure(
      withFileLock(path, async () => "never", { waitMs: 200 }),
      OperationError,
    );
    expect(error.message).toBe(
      `${path} is being changed by another cpctl (process ${process.pid}), for more than 0.2 s: nothing was written; try again`,
    );
    expect(error.hints).toEqual([
      `If no cpctl is running, remove the lock directory ${path}.lock and try again.`,
    ]);
  });

  it("a holder killed with kill -9 (its PID free now) is taken over at once", async () => {
    const path = configPath();
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid!;
    plantLock(path, { ...ownIdentity(), pid: gone });
    expect(await withFileLock(path, async (stillHeld) => stillHeld(), { waitMs: 0 })).toBe(true);
  });

  it("a live PID whose lock is older than the stale time (reused, or frozen) is taken over", async () => {
    const path = configPath();
    plantLock(path, ownIdentity(), LOCK_STALE_MS + 1_000);
    expect(await withFileLock(path, async () => "taken", { waitMs: 0 })).toBe("taken");
  });

  it("a holder in another PID space: held while fresh, taken once older than the stale time", async () => {
    const elsewhere = { ...ownIdentity(), pid: 1, host: "another-container" };
    const fresh = configPath();
    plantLock(fresh, elsewhere, 1_000);
    const error = await failure(
      withFileLock(fresh, async () => "never", { waitMs: 50 }),
      OperationError,
    );
    expect(error.message).toContain("(process 1 on host another-container)");
    const stale = configPath();
    plantLock(stale, elsewhere, LOCK_STALE_MS + 1_000);
    expect(await withFileLock(stale, async () => "taken", { waitMs: 0 })).toBe("taken");
  });

  it("a holder that lost the lock (another took the next number) is told before it writes", async () => {
    const path = configPath();
    const held = await withFileLock(path, async (stillHeld) => {
      writeFileSync(join(`${path}.lock`, "2"), "{}");
      return stillHeld();
    });
    expect(held).toBe(false);
  });
});
