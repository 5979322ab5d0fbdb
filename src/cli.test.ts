// src/cli.ts asks whether a descriptor is a terminal without loading node:tty when fstat
// already tells: each kind of descriptor must still get the answer tty would give.
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freshDir } from "../test/helpers/run-cli.js";
import { isTerminal } from "./cli.js";

describe("what src/cli.ts takes for a terminal", () => {
  const file = join(freshDir("is-terminal"), "file");
  writeFileSync(file, "x");

  it.each([
    ["a regular file", () => openSync(file, "r"), false],
    ["/dev/null", () => openSync("/dev/null", "r"), false],
    ["/dev/zero, a character device that is no terminal", () => openSync("/dev/zero", "r"), false],
    ["a pseudo-terminal", () => openSync("/dev/ptmx", "r+"), true],
  ] as const)("%s", (_label, open, terminal) => {
    const fd = open();
    try {
      expect(isTerminal(fd)).toBe(terminal);
      expect(process.getBuiltinModule("node:tty").isatty(fd)).toBe(terminal);
    } finally {
      closeSync(fd);
    }
  });

  it("a closed descriptor", () => {
    const fd = openSync(file, "r");
    closeSync(fd);
    expect(isTerminal(fd)).toBe(false);
  });
});
