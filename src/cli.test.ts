// bin/cpctl.cjs and src/cli.ts each ask whether a descriptor is a terminal: the entry for its
// --help fast path (before the bundle loads), the bundle for its streams (it may load nothing
// outside dist/). Both copies must give the same answer for every kind of descriptor.
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freshDir } from "../test/helpers/run-cli.js";
import { isTerminal } from "./cli.js";

/** bin/cpctl.cjs's isTerminal, taken from its text (requiring the file would run it). */
function binIsTerminal(): (fd: number) => boolean {
  const text = readFileSync(join(import.meta.dirname, "..", "bin", "cpctl.cjs"), "utf8");
  const source = /\nfunction isTerminal\(fd\) \{\n[\s\S]*?\n\}\n/.exec(text)?.[0];
  if (!source) throw new Error("bin/cpctl.cjs has no function isTerminal(fd)");
  return new Function("fs", "require", "process", `${source}\nreturn isTerminal;`)(
    process.getBuiltinModule("node:fs"),
    (id: string) => process.getBuiltinModule(id),
    process,
  );
}

describe("bin/cpctl.cjs and src/cli.ts agree on what is a terminal", () => {
  const fromBin = binIsTerminal();
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
      expect(fromBin(fd)).toBe(terminal);
    } finally {
      closeSync(fd);
    }
  });

  it("a closed descriptor", () => {
    const fd = openSync(file, "r");
    closeSync(fd);
    expect(isTerminal(fd)).toBe(false);
    expect(fromBin(fd)).toBe(false);
  });
});
