// A secret value never appears in a message, whole or in part, however the file or flag that
// holds it is broken: an unquoted value in a JSON file (V8's message quoted the text around
// it), a number in YAML (the model quoted the value), a reserved first character, a bad
// escape, a tag or an alias name (the YAML library quoted them), `--set secrets=...`, or the
// value given to --secret without NAME=. Generated cases (fast-check), in text and JSON error
// modes; no 4-character piece of the value may show (a valid request prints it masked).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { jsonErrorOffset } from "../../src/util/syntax-error.js";
import { freshDir, runCli } from "../helpers/run-cli.js";
import { report, STACK_LINE } from "./helpers.js";

const dir = freshDir("secret-messages");
const DRY_CREATE = ["deploy", "create", "--dry-run", "--base-url", "http://127.0.0.1:9"];
const FLAGS = ["--name", "n", "--source", "internal_container", "--image-uri", "r.example.com/a:1"];
let cases = 0;
afterAll(() => report("secret messages", { cases, runs: cases * 2 }));

/** Letters that never meet in a message: any 4 of them in a row on stderr came from the value. */
const word = fc.stringMatching(/^[qxzjvwkQXZJVWK]{8,24}$/);
const digits = fc.stringMatching(/^[1-9][0-9]{8,14}$/);

const header =
  "name: n\nsource: internal_container\nsource_revision_config:\n  image_uri: r.example.com/a:1\n";
const yamlSecret = (value: string) => `${header}secrets:\n  - name: K\n    value: ${value}\n`;
const jsonStart = '{"name":"n","source":"internal_container","secrets":[{"name":"K","value":';

interface Case {
  kind: string;
  secret: string;
  args: (file: string) => string[];
  file?: string;
}

const fileCase = (kind: string, text: (secret: string) => string, secret = word) =>
  secret.map((value): Case => ({ kind, secret: value, file: text(value), args: (file) => ["-f", file] }));

const flagCase = (kind: string, args: (secret: string) => string[]) =>
  word.map((value): Case => ({ kind, secret: value, args: () => [...FLAGS, ...args(value)] }));

const hostileCase: fc.Arbitrary<Case> = fc.oneof(
  fileCase("json unquoted", (v) => `${jsonStart}${v}}]}`),
  fileCase("json unquoted number-like", (v) => `${jsonStart}-${v}}]}`),
  fileCase("json cut short", (v) => `${jsonStart}"${v}`),
  fileCase("json bad escape", (v) => `${jsonStart}"${v}\\q${v}"}]}`),
  fileCase("json control character", (v) => `${jsonStart}"${v}\u0001${v}"}]}`),
  fileCase("yaml number", (v) => yamlSecret(v), digits),
  fileCase("yaml reserved start", (v) => yamlSecret(`@${v}`)),
  fileCase("yaml backquote start", (v) => yamlSecret(`\`${v}`)),
  fileCase("yaml bad escape", (v) => yamlSecret(`"${v}\\q${v}"`)),
  fileCase("yaml tag", (v) => yamlSecret(`!${v} x`)),
  fileCase("yaml alias", (v) => yamlSecret(`*${v}`)),
  fileCase("yaml block header", (v) => yamlSecret(`|${v}\n      x`)),
  fileCase("yaml secrets as text", (v) => `${header}secrets: ${v}\n`),
  fileCase("yaml secrets as a list of text", (v) => `${header}secrets: [${v}]\n`),
  fileCase("yaml secret as a list", (v) => yamlSecret(`[${v}]`)),
  flagCase("--set secrets", (v) => ["--set", `secrets=${v}`]),
  flagCase("--set secrets[0]", (v) => ["--set", `secrets[0]=${v}`]),
  flagCase("--set without a path", (v) => ["--set", `=${v}`]),
  flagCase("--set bad path", (v) => ["--set", `secrets..value=${v}`]),
  flagCase("--secret without a name", (v) => ["--secret", `${v}-${v}`]),
  word.map(
    (v): Case => ({
      kind: "--secrets-file unclosed quote",
      secret: v,
      file: `A=1\nK="${v}\n`,
      args: (file) => [...FLAGS, "--secrets-file", file],
    }),
  ),
);

function pieces(secret: string): string[] {
  return Array.from({ length: secret.length - 3 }, (_, i) => secret.slice(i, i + 4));
}

describe("no secret value in any message", () => {
  it("the two reported: an unquoted secret in a JSON file, a numeric secret in YAML", async () => {
    const json = await runCli([...DRY_CREATE, "-f", "-"], { stdin: `${jsonStart}sk-live-0123456789}]}` });
    expect(json.stderr).toBe("error: stdin:1: not valid JSON (column 74: unexpected character)\n");
    const yaml = await runCli([...DRY_CREATE, "-f", "-"], { stdin: yamlSecret("8675309123") });
    expect(yaml.code).toBe(2);
    expect(yaml.stderr).toContain("stdin:7: secrets[0].value: must be a string, not a number\n");
    expect(yaml.stderr).not.toContain("8675309123");
  });

  it("for generated broken files and flags, in text and JSON error output", async () => {
    await fc.assert(
      fc.asyncProperty(hostileCase, async (c) => {
        cases++;
        let file = "";
        if (c.file !== undefined) {
          file = join(dir, `case-${cases}`);
          writeFileSync(file, c.file);
        }
        for (const mode of [[], ["-o", "json"]]) {
          const r = await runCli([...DRY_CREATE, ...c.args(file), ...mode]);
          // The temporary directory's random suffix can hold any 4 letters: it is not the value.
          const all = `${r.stdout}\n${r.stderr}`.replaceAll(dir, "<dir>");
          // An unknown YAML tag is only a warning to the library: the value is then plain text.
          expect([0, 2], `${c.kind}: ${r.stderr}`).toContain(r.code);
          expect(all).not.toMatch(STACK_LINE);
          for (const piece of pieces(c.secret)) expect(all, `${c.kind}: ${piece}`).not.toContain(piece);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("jsonErrorOffset", () => {
  it("agrees with JSON.parse on where a text stops being JSON", () => {
    const jsonish = fc.oneof(
      fc.json().map((text) => text),
      fc
        .json()
        .chain((text) =>
          fc
            .tuple(
              fc.nat(text.length),
              fc.constantFrom("", "}", "]", ",", ":", '"', "x", "\\", "-", "0", "\n", " "),
            )
            .map(([at, insert]) => text.slice(0, at) + insert + text.slice(at + 1)),
        ),
    );
    fc.assert(
      fc.property(jsonish, (text) => {
        let position: number | null = null;
        let valid = true;
        try {
          JSON.parse(text);
        } catch (error) {
          valid = false;
          const match = /at position (\d+)/.exec((error as Error).message);
          if (match) position = Number(match[1]);
        }
        const offset = jsonErrorOffset(text);
        if (valid) expect(offset).toBe(text.length);
        else {
          expect(offset).toBeLessThanOrEqual(text.length);
          // V8 points at the character after a bad number sign or a bad escape; the scanner at
          // its start: the same line either way.
          if (position !== null) expect(Math.abs(offset - position)).toBeLessThanOrEqual(2);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
