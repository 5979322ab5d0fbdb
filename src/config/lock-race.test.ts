// The lock directory removed by a holder that is done, between the next writer's mkdir and
// the stat that Node's recursive mkdir makes after EEXIST: mkdirSync throws ENOENT. That is
// the lock coming free, not a failure (seen once in ten suite runs of config-race.test.ts).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";

const race = vi.hoisted(() => ({ pending: 0 }));

vi.mock("node:fs", async (original) => {
  const fs = await original<typeof import("node:fs")>();
  return {
    ...fs,
    mkdirSync: ((...args: Parameters<typeof fs.mkdirSync>) => {
      if (race.pending > 0) {
        race.pending--;
        throw Object.assign(new Error(`ENOENT: no such file or directory, stat '${String(args[0])}'`), {
          code: "ENOENT",
        });
      }
      return fs.mkdirSync(...args);
    }) as typeof fs.mkdirSync,
  };
});

const { withFileLock } = await import("./lock.js");

describe("the config lock when its directory goes away under mkdir", () => {
  it("looks again and takes the lock", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "cpctl-lock-race-")), "config.yaml");
    race.pending = 2;
    await expect(withFileLock(file, async () => "written")).resolves.toBe("written");
    expect(race.pending).toBe(0);
  });
});
