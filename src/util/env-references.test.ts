import { describe, expect, test } from "vitest";
import { envReferences, interpolateEnv, isLiteral } from "./env-references.js";

describe(`\${env:NAME} references`, () => {
  test("are replaced by the variable's value, anywhere in the string", () => {
    expect(interpolateEnv(`\${env:HOST}`, { HOST: "api.example.com" })).toEqual({
      ok: true,
      value: "api.example.com",
      variables: ["HOST"],
    });
    expect(interpolateEnv(`https://\${env:HOST}:\${env:PORT}/v`, { HOST: "h", PORT: "1" })).toMatchObject({
      value: "https://h:1/v",
      variables: ["HOST", "PORT"],
    });
  });

  test("an unset variable is reported by name; an empty one is an empty value", () => {
    expect(interpolateEnv(`\${env:A}\${env:B}`, { A: "x" })).toEqual({ ok: false, unset: "B" });
    expect(interpolateEnv(`\${env:A}`, { A: "" })).toEqual({ ok: true, value: "", variables: ["A"] });
  });

  test(`$\${ stands for a literal \${, and other \${...} forms are left alone`, () => {
    expect(interpolateEnv(`$\${env:A} \${HOME}`, { A: "x" })).toMatchObject({ value: `\${env:A} \${HOME}` });
    expect(envReferences(`\${env:A}-\${env:B} $\${env:C}`)).toEqual(["A", "B"]);
  });

  test("a malformed reference is an error, never text; the message quotes the reference only", () => {
    for (const text of [
      `\${env:}`,
      `\${env:1A}`,
      `\${env:A B}`,
      `\${env:A-B}`,
      `x \${env:UNCLOSED and the rest`,
      `\${env:OK} \${env:}`,
    ]) {
      const result = interpolateEnv(text, { OK: "v", A: "v" });
      expect(result.ok, text).toBe(false);
      expect(result).toHaveProperty("malformed");
    }
    const long = interpolateEnv(`\${env:${"s3cret".repeat(20)}`, {});
    expect("malformed" in long && long.malformed.length).toBeLessThanOrEqual(43);
  });

  test("a credential is literal unless it is nothing but references", () => {
    expect(isLiteral("sk-123")).toBe(true);
    expect(isLiteral(`\${env:KEY}`)).toBe(false);
    expect(isLiteral(` \${env:A}\${env:B} `)).toBe(false);
    expect(isLiteral(`prefix-\${env:KEY}`)).toBe(true);
  });
});
