import { describe, expect, it } from "vitest";
import { colorEnabled, flagFormat, formatWithoutConfig } from "./format.js";

describe("the output format without the config files", () => {
  it.each([
    [{}, {}, "table"],
    [{}, { CPCTL_OUTPUT: "yaml" }, "yaml"],
    [{}, { CPCTL_OUTPUT: "bogus" }, "table"],
    [{ output: "ndjson" }, { CPCTL_OUTPUT: "yaml" }, "ndjson"],
    [{ output: "id", json: true }, { CPCTL_OUTPUT: "yaml" }, "json"],
    [{ json: true }, {}, "json"],
  ] as const)("flags %o, environment %o: %s", (flags, env, format) => {
    expect(formatWithoutConfig(flags, env)).toBe(format);
  });

  it("--json is -o json and wins over it", () => {
    expect(flagFormat({ json: true, output: "yaml" })).toBe("json");
    expect(flagFormat({ output: "yaml" })).toBe("yaml");
    expect(flagFormat({})).toBeUndefined();
  });
});

describe("colour", () => {
  const on = (isTTY: boolean, env: Record<string, string>, colorFlag = true) =>
    colorEnabled({ isTTY, env, colorFlag });

  it("on a terminal unless NO_COLOR, TERM=dumb or --no-color", () => {
    expect(on(true, {})).toBe(true);
    expect(on(false, {})).toBe(false);
    expect(on(true, { NO_COLOR: "1" })).toBe(false);
    expect(on(true, { NO_COLOR: "" })).toBe(true);
    expect(on(true, { TERM: "dumb" })).toBe(false);
    expect(on(true, {}, false)).toBe(false);
  });

  it("FORCE_COLOR as Node reads it: over a pipe, NO_COLOR and TERM=dumb, never over --no-color", () => {
    for (const value of ["1", "2", "3", "true", ""]) {
      expect(on(false, { FORCE_COLOR: value }), value).toBe(true);
      expect(on(true, { FORCE_COLOR: value, NO_COLOR: "1", TERM: "dumb" }), value).toBe(true);
      expect(on(true, { FORCE_COLOR: value }, false), value).toBe(false);
    }
    for (const value of ["0", "false"]) expect(on(true, { FORCE_COLOR: value }), value).toBe(false);
    // A value Node gives no meaning to changes nothing.
    expect(on(true, { FORCE_COLOR: "yes" })).toBe(true);
    expect(on(false, { FORCE_COLOR: "yes" })).toBe(false);
  });
});
