// The lock both the config file and the emulator's state file take (their own tests race real
// processes and kill -9 them); here its contract, in one process: a held lock is refused as the
// caller's rule says, a holder judged gone is taken over, and a release never removes another
// holder's file.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type HolderRule, NumberedLock } from "./numbered-lock.js";

const heldWhileRunning: HolderRule = (top) => (top.running ? `process ${top.holder?.pid}` : null);
const alwaysGone: HolderRule = () => null;

function lockDir(): string {
  return join(mkdtempSync(join(tmpdir(), "cpctl-lock-")), "state.lock");
}

describe("NumberedLock", () => {
  it("is taken once; a second taker is told who holds it; released, the directory goes", () => {
    const dir = lockDir();
    const first = new NumberedLock(dir, heldWhileRunning, "test-lock");
    const second = new NumberedLock(dir, heldWhileRunning, "test-lock");
    expect(first.tryTake()).toBe("taken");
    expect(first.holds()).toBe(true);
    expect(second.tryTake()).toEqual({ heldBy: `process ${process.pid}` });
    const record = JSON.parse(readFileSync(join(dir, "1"), "utf8"));
    expect(record).toMatchObject({ format: "test-lock", pid: process.pid });
    first.release();
    expect(first.holds()).toBe(false);
    expect(existsSync(dir)).toBe(false);
    expect(second.tryTake()).toBe("taken");
    second.release();
  });

  it("a holder the rule calls gone is taken over: it no longer holds, and its release leaves the new file", () => {
    const dir = lockDir();
    const old = new NumberedLock(dir, alwaysGone, "test-lock");
    const next = new NumberedLock(dir, alwaysGone, "test-lock");
    expect(old.tryTake()).toBe("taken");
    expect(next.tryTake()).toBe("taken");
    expect(old.holds()).toBe(false);
    expect(next.holds()).toBe(true);
    expect(readdirSync(dir)).toEqual(["2"]);
    old.release();
    expect(readdirSync(dir)).toEqual(["2"]);
    expect(next.holds()).toBe(true);
    next.release();
    expect(existsSync(dir)).toBe(false);
  });

  it("the rule is shown the top holder: its record, and that it ran on this host", () => {
    const dir = lockDir();
    const first = new NumberedLock(dir, alwaysGone, "test-lock");
    expect(first.tryTake()).toBe("taken");
    const seen: unknown[] = [];
    const second = new NumberedLock(
      dir,
      (top) => {
        seen.push(top.here);
        return top.holder?.pid === process.pid ? "held" : null;
      },
      "test-lock",
    );
    expect(second.tryTake()).toEqual({ heldBy: "held" });
    expect(seen).toEqual([true]);
    first.release();
  });
});
