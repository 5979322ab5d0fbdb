// The credential matcher against the gitignore semantics its patterns are written in: the same
// verdict as the `ignore` library (case-insensitive, patterns with a slash at any depth) for
// paths made of credential names in any case, near misses and ordinary names.
import fc from "fast-check";
import ignore from "ignore";
import { describe, expect, it } from "vitest";
import { CREDENTIAL_FILES, isCredentialFile } from "./credentials.js";

const reference = ignore({ ignorecase: true }).add(
  CREDENTIAL_FILES.map((pattern) => (pattern.includes("/") ? `**/${pattern}` : pattern)),
);

describe("isCredentialFile", () => {
  it("names from the issue, in their odd cases, and near misses", () => {
    for (const path of [".ENV", ".Env.production", "server.PEM", "ID_RSA", "credentials.json", ".pgpass"])
      expect(isCredentialFile(path), path).toBe(true);
    for (const path of ["ops/.kube/config", "infra/terraform.tfvars", "a/b/.AWS/Credentials"])
      expect(isCredentialFile(path), path).toBe(true);
    for (const path of [
      ".envoy.yaml",
      "environment.py",
      "kube/config",
      "id_utils.py",
      "credentials.py",
      "aws/credentials",
      // Only ASCII letters are folded, as the gitignore matcher does: the Kelvin sign is not a k.
      "\u212Aubeconfig",
    ])
      expect(isCredentialFile(path), path).toBe(false);
  });

  it("property: the same verdict as a gitignore matcher of the same patterns", () => {
    const concrete = CREDENTIAL_FILES.flatMap((pattern) => [
      pattern.replaceAll("*", ""),
      pattern.replaceAll("*", "x.y"),
      pattern.replaceAll("*", "prod"),
    ]);
    const ordinary = [
      "app.py",
      "env",
      ".envoy.yaml",
      "config",
      "kube",
      "credentials",
      "id_utils.py",
      "token",
      "x.key.bak",
    ];
    const part = fc.oneof(fc.constantFrom(...concrete, ...ordinary), fc.stringMatching(/^[a-z.]{1,8}$/));
    const casing = fc.array(fc.boolean(), { minLength: 40, maxLength: 40 });
    const path = fc
      .tuple(fc.array(part, { minLength: 1, maxLength: 4 }), casing)
      .map(([parts, upper]) =>
        [...parts.join("/")].map((ch, i) => (upper[i % upper.length] ? ch.toUpperCase() : ch)).join(""),
      );
    fc.assert(
      fc.property(path, (candidate) => {
        fc.pre(!candidate.split("/").some((piece) => piece === "" || piece === "." || piece === ".."));
        expect(isCredentialFile(candidate)).toBe(reference.ignores(candidate));
      }),
      { numRuns: 2000 },
    );
  });
});
