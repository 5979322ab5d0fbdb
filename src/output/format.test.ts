import { describe, expect, it } from "vitest";
import { flagFormat, formatWithoutConfig } from "./format.js";

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
