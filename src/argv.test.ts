import { describe, expect, it } from "vitest";
import { guessFormat } from "./argv.js";

describe("guessFormat", () => {
  it("is, before parsing, the format the command line names, then the environment", () => {
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

  it("agrees with what the parsed flags say: --json anywhere wins, else the last -o", () => {
    // As flagFormat reads commander's result: `deploy list -o yaml --json` prints JSON.
    expect(guessFormat(["deploi", "-o", "yaml", "--json"], {})).toBe("json");
    expect(guessFormat(["deploi", "--json", "-o", "yaml"], {})).toBe("json");
    // Commander keeps the last value of a repeated option.
    expect(guessFormat(["deploi", "-o", "json", "-o", "yaml"], {})).toBe("yaml");
    expect(guessFormat(["deploi", "--output=json", "-o", "id"], {})).toBe("id");
    // A short option's value may be attached.
    expect(guessFormat(["deploi", "-ojson"], {})).toBe("json");
  });
});
