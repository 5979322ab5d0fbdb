// The credential matcher against the gitignore semantics its patterns are written in: the same
// verdict as the `ignore` library (case-insensitive, patterns with a slash at any depth) for
// paths made of credential names in any case, their editors' and backup tools' copies, near
// misses and ordinary names.
import fc from "fast-check";
import ignore from "ignore";
import { describe, expect, it } from "vitest";
import { CREDENTIAL_FILES, isCredentialFile } from "./credentials.js";

/**
 * The names a credential file's copies take, as gitignore patterns of its last part `name`: a
 * backup suffix, then an editor's swap, undo, auto-save or lock file of that (vim and kate put
 * a dot before the name, unless it has one: either is taken).
 */
const BACKUP_SUFFIXES = ["", "~", ".bak", ".backup", ".orig", ".old", ".save", ".tmp"];

function copies(name: string): string[] {
  const backups = BACKUP_SUFFIXES.map((suffix) => `${name}${suffix}`);
  return backups.flatMap((copy) => [
    copy,
    `\\#${copy}#`,
    `.#${copy}`,
    ...[".sw[a-p]", ".un~", ".kate-swp"].flatMap((suffix) => [`${copy}${suffix}`, `.${copy}${suffix}`]),
  ]);
}

const reference = ignore({ ignorecase: true }).add(
  CREDENTIAL_FILES.flatMap((pattern) => {
    const slash = pattern.lastIndexOf("/");
    const parents = slash === -1 ? "" : `**/${pattern.slice(0, slash + 1)}`;
    return copies(pattern.slice(slash + 1)).map((last) => `${parents}${last}`);
  }),
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

  it("editors' and backup tools' copies of credential files, and more names (issue 32)", () => {
    for (const path of [
      ".env~",
      "#.env#",
      ".#.env",
      ".env.bak",
      ".env.swp",
      ".env.un~",
      ".npmrc~",
      ".npmrc.swo",
      ".netrc.bak",
      "key.pem.bak",
      "tls.key~",
      "server.pem.orig",
      ".id_rsa.swp",
      "id_ed25519.save",
      ".pgpass.old",
      "credentials.json.tmp",
      ".vault-token~",
      ".kube/config.bak",
      "ops/.aws/credentials~",
      ".dev.vars",
      ".ssh/id_ecdsa_sk",
      "home/.ssh/config",
      ".config/gh/hosts.yml",
      "me/.config/gcloud/credentials.db",
      ".config/gcloud/access_tokens.db",
    ])
      expect(isCredentialFile(path), path).toBe(true);
    for (const path of [
      "app.py~",
      "#notes#",
      ".app.py.swp",
      "README.bak",
      "key.txt.bak",
      "config.bak",
      "kube/config.bak",
      ".ssh",
      "gh/hosts.yml",
      "dev.vars",
      "env~",
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
    // A name's copies as editors and backup tools name them, and near misses of those.
    const suffixes = [...BACKUP_SUFFIXES, ".bak2", "~~", ".swp.bak"];
    const wrappers = [
      (name: string) => name,
      (name: string) => `#${name}#`,
      (name: string) => `.#${name}`,
      (name: string) => `.${name}.swp`,
      (name: string) => `${name}.swo`,
      (name: string) => `.${name}.swa`,
      (name: string) => `.${name}.un~`,
      (name: string) => `${name}.kate-swp`,
      (name: string) => `.${name}.kate-swp`,
      (name: string) => `${name}.swz`,
      (name: string) => `#${name}`,
      (name: string) => `${name}#`,
      (name: string) => `~${name}`,
    ];
    const decorated = fc
      .tuple(
        fc.constantFrom(...concrete, ...ordinary),
        fc.constantFrom(...suffixes),
        fc.constantFrom(...wrappers),
      )
      .map(([name, suffix, wrap]) => {
        const slash = name.lastIndexOf("/");
        return `${name.slice(0, slash + 1)}${wrap(`${name.slice(slash + 1)}${suffix}`)}`;
      });
    const part = fc.oneof(
      fc.constantFrom(...concrete, ...ordinary),
      decorated,
      fc.stringMatching(/^[a-z.#~]{1,8}$/),
    );
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
      // Fewer than the 2000 of before: the reference has 72 patterns for each credential name.
      { numRuns: 500 },
    );
  });
});
