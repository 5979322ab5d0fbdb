// The temporary directories a killed image push leaves are removed by the next push: only
// cpctl's own (by name, owner and the file naming its process), only those whose process is
// gone, never one of a push still going.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ownHolder } from "../util/process-holder.js";
import { makeTempDir, OWNER_FILE, removeStaleTempDirs } from "./temp-dirs.js";

let before: string | undefined;
let root: string;

beforeEach(() => {
  // A temporary directory of this test's own: other tests' pushes clean the suite's.
  root = mkdtempSync(join(tmpdir(), "cpctl-temp-dirs-test-"));
  before = process.env.TMPDIR;
  process.env.TMPDIR = root;
});

afterEach(() => {
  if (before === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = before;
});

/** A PID that was in use a moment ago and is free now. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "0"]);
  return child.pid!;
}

function planted(name: string, owner: object | string | null): string {
  const dir = join(root, name);
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, "archive.tar"), "x".repeat(1000));
  if (owner !== null) {
    writeFileSync(join(dir, OWNER_FILE), typeof owner === "string" ? owner : JSON.stringify(owner));
  }
  return dir;
}

describe("stale temporary directories of image pushes", () => {
  it("removes a directory whose process is gone, and keeps this process's own", () => {
    const mine = makeTempDir("image");
    expect(mine.startsWith(join(root, "cpctl-image-"))).toBe(true);
    const stale = planted("cpctl-image-Ab12Cd", { ...ownHolder(), pid: deadPid() });
    expect(removeStaleTempDirs()).toBe(1);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(mine)).toBe(true);
  });

  it("keeps what it cannot tell is gone, and what is not its own", () => {
    const dead = deadPid();
    const kept = [
      // Another host, another PID namespace: its PID cannot be checked here.
      planted("cpctl-image-host01", { ...ownHolder(), pid: dead, host: `${hostname()}-other` }),
      planted("cpctl-image-names1", { ...ownHolder(), pid: dead, pid_ns: "pid:[1]" }),
      // No file naming its process (a test's own, another tool's), or one that is not JSON.
      planted("cpctl-image-nofile", null),
      planted("cpctl-image-garbag", "not json"),
      // Not the pattern: another name, a longer suffix.
      planted("cpctl-other-Ab12Cd", { ...ownHolder(), pid: dead }),
      planted("cpctl-image-Ab12Cd7", { ...ownHolder(), pid: dead }),
    ];
    // A link of the pattern to a stale-looking directory elsewhere is not followed.
    const elsewhere = mkdtempSync(join(tmpdir(), "elsewhere-"));
    writeFileSync(join(elsewhere, OWNER_FILE), JSON.stringify({ ...ownHolder(), pid: dead }));
    symlinkSync(elsewhere, join(root, "cpctl-image-linked"));
    expect(removeStaleTempDirs()).toBe(0);
    for (const dir of kept) expect(existsSync(join(dir, "archive.tar")), dir).toBe(true);
    expect(readdirSync(elsewhere)).toEqual([OWNER_FILE]);
  });
});
