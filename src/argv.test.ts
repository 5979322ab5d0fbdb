import { describe, expect, it } from "vitest";
import { guessFormat } from "./argv.js";

describe("guessFormat", () => {
  it("is, before parsing, the first format the command line names, then the environment", () => {
    const env = { CPCTL_OUTPUT: "yaml" };
    expect(guessFormat(["deploy", "list"], env)).toBe("yaml");
    expect(guessFormat(["deploy", "list", "-o", "ndjson"], env)).toBe("ndjson");
    expect(guessFormat(["deploy", "list", "--output=id"], {})).toBe("id");
    expect(guessFormat(["--json", "deploy", "list"], {})).toBe("json");
    expect(guessFormat(["-o", "bogus", "-o", "yaml"], {})).toBe("yaml");
    // A value of another option is not a flag, nor is anything after "--".
    expect(guessFormat(["--profile", "--json", "deploy", "list"], {})).toBe("table");
    expect(guessFormat(["deploy", "get", "--", "--json"], {})).toBe("table");
  });
});
