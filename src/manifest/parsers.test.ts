// Properties of the parsers behind --set, --secrets-file, ${env:NAME} and durations: they
// round-trip what they should, and refuse everything else with a UsageError (never a crash).
import { parseEnv } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { failure } from "../../test/helpers/failure.js";
import { UsageError } from "../errors.js";
import { DeploymentCreateRequest, DeploymentPatchRequest } from "../model/schemas.js";
import { formatDuration, parseDuration } from "../util/duration.js";
import { interpolate } from "./file.js";
import { mergeByName, parseDotenv, secretFromFlag, secretRefFromFlag } from "./secrets.js";
import { parseAssignment, setAt, typedSetValue } from "./set-path.js";

const identifier = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,15}$/);
const fieldName = fc.stringMatching(/^[a-z_][a-z0-9_]{0,12}$/);

/** Parses or refuses with a UsageError; anything else thrown is a bug. */
function usageOrValue<T>(fn: () => T): T | UsageError {
  try {
    return fn();
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
}

describe("--set PATH=VALUE", () => {
  it("splits dotted and indexed paths and keeps everything after the first = as the value", () => {
    fc.assert(
      fc.property(
        fc
          .array(fc.oneof(fieldName, fc.nat({ max: 20 })), { minLength: 1, maxLength: 5 })
          .filter((p) => typeof p[0] === "string"),
        fc.string(),
        (path, value) => {
          const text = `${path.map((part, i) => (typeof part === "number" ? `[${part}]` : i === 0 ? part : `.${part}`)).join("")}=${value}`;
          expect(parseAssignment(text)).toEqual({ path, raw: value });
        },
      ),
    );
  });

  it("never throws anything but a UsageError, whatever the text", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = usageOrValue(() => parseAssignment(text));
        if (parsed instanceof UsageError) return;
        for (const schema of [DeploymentCreateRequest, DeploymentPatchRequest])
          usageOrValue(() => typedSetValue(schema, parsed.path, parsed.raw));
      }),
      { numRuns: 500 },
    );
  });

  it("types numbers, integers and booleans by the schema", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.1, max: 8, noNaN: true }),
        fc.nat({ max: 1000 }),
        fc.boolean(),
        (cpu, scale, flag) => {
          expect(
            typedSetValue(DeploymentCreateRequest, ["source_config", "resource_spec", "cpu"], String(cpu)),
          ).toBe(cpu);
          expect(
            typedSetValue(
              DeploymentCreateRequest,
              ["source_config", "resource_spec", "min_scale"],
              String(scale),
            ),
          ).toBe(scale);
          expect(
            typedSetValue(DeploymentCreateRequest, ["source_config", "build_on_push"], String(flag)),
          ).toBe(flag);
        },
      ),
    );
    expect(
      usageOrValue(() =>
        typedSetValue(DeploymentCreateRequest, ["source_config", "resource_spec", "min_scale"], "1.5"),
      ),
    ).toBeInstanceOf(UsageError);
    expect(typedSetValue(DeploymentCreateRequest, ["source_config", "repo_url"], "null")).toBeNull();
    expect(
      typedSetValue(DeploymentCreateRequest, ["source_config", "resource_spec", "labels", "team"], "42"),
    ).toBe("42");
  });

  it("setAt builds the objects and arrays on the way", () => {
    const body: Record<string, unknown> = {};
    setAt(body, ["source_config", "resource_spec", "sidecars", 0, "name"], "proxy");
    expect(body).toEqual({ source_config: { resource_spec: { sidecars: [{ name: "proxy" }] } } });
  });
});

describe("secrets", () => {
  it("--secret over a file's secrets: replaces by name, and keeps entries that are not objects for validation", () => {
    const base = [null, "text", { name: "A", value: "old" }, { value: "no name" }];
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: fc.constantFrom("A", "B"), value: fc.string() })),
        (overrides) => {
          const merged = mergeByName(base, overrides);
          // Nothing thrown (a null entry used to crash with "Cannot read properties of null").
          expect(merged.slice(0, 2)).toEqual([null, "text"]);
          expect(merged[3]).toEqual({ value: "no name" });
          const lastA = overrides.filter((o) => o.name === "A").at(-1);
          expect(merged[2]).toEqual(lastA ?? { name: "A", value: "old" });
          expect(merged.filter((m) => (m as { name?: string } | null)?.name === "B").length).toBe(
            overrides.some((o) => o.name === "B") ? 1 : 0,
          );
        },
      ),
    );
  });

  it("dotenv reads what dotenv and Node's util.parseEnv read alike, as they read it", () => {
    // Entries of every form the two agree on: bare values (with a ` # comment`), single-,
    // double- and backtick-quoted ones over several lines, `\n` in double quotes, `export `,
    // comment and blank lines, CRLF line ends, a name given twice (the last wins).
    const bare = fc.stringMatching(/^[A-Za-z0-9_./:@+=-]([A-Za-z0-9_./:@+= -]{0,20}[A-Za-z0-9_./:@+=-])?$/);
    const inside = (quote: string) =>
      fc
        .array(
          fc.oneof(
            fc.stringMatching(/^[A-Za-z0-9 #=:./-]{0,12}$/),
            fc.constant("\n"),
            fc.constant(quote === '"' ? "\\n" : "\n"),
          ),
          {
            maxLength: 4,
          },
        )
        .map((parts) => parts.join(""));
    const value = fc.oneof(
      bare,
      fc.tuple(bare, fc.stringMatching(/^[a-z #]{0,10}$/)).map(([text, comment]) => `${text} # ${comment}`),
      fc.constant(""),
      ...["'", '"', "`"].map((quote) => inside(quote).map((text) => `${quote}${text}${quote}`)),
    );
    const entry = fc.tuple(
      fc.constantFrom("", "export "),
      fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,6}$/),
      value,
    );
    const line = fc.oneof(
      { weight: 4, arbitrary: entry.map(([exported, name, text]) => `${exported}${name}=${text}`) },
      // (Not a line of white space alone: Node 20's util.parseEnv then glues the line break to
      // the next name, "\nB"; Node 22 and later do not.)
      { weight: 1, arbitrary: fc.constantFrom("", "# a comment") },
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), fc.constantFrom("\n", "\r\n"), (lines, end) => {
        const text = lines.join(end);
        const ours = Object.fromEntries(parseDotenv(text, ".env").map(({ name, value }) => [name, value]));
        expect(ours).toEqual(parseEnv(text));
      }),
      { numRuns: 300 },
    );
  });

  it("dotenv: a quoted value may span lines (a PEM key); errors name the line where an entry starts", () => {
    const pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----";
    const text = `# keys\nKEY="${pem}"\nOTHER='a\nb' # two lines\nLAST=x\nBROKEN\n`;
    const error = usageOrValue(() => parseDotenv(text, ".env"));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(/^\.env:8: expected NAME=VALUE/);
    expect(parseDotenv(text.replace("BROKEN\n", ""), ".env")).toEqual([
      { name: "KEY", value: pem, line: 2 },
      { name: "OTHER", value: "a\nb", line: 5 },
      { name: "LAST", value: "x", line: 7 },
    ]);
    for (const [unclosed, line] of [
      ['A=1\nKEY="-----BEGIN\nabc\n', 2],
      ["KEY='abc", 1],
    ] as const) {
      const refused = usageOrValue(() => parseDotenv(unclosed, ".env"));
      expect((refused as UsageError).message).toMatch(
        new RegExp(`^\\.env:${line}: the .*quoted value of KEY is not closed`),
      );
    }
  });

  it("dotenv: `#` starts a comment as dotenv and Node read it; a value they would cut short is refused", () => {
    const read = (text: string) => parseDotenv(text, ".env").map(({ name, value }) => [name, value]);
    // What follows `=` is only a comment: the value is empty (refused later unless --allow-empty-secrets).
    expect(read("TOKEN= # from vault")).toEqual([["TOKEN", ""]]);
    expect(read("TOKEN=#x")).toEqual([["TOKEN", ""]]);
    expect(read("TOKEN=abc # comment")).toEqual([["TOKEN", "abc"]]);
    expect(read("TOKEN='ab#cd'")).toEqual([["TOKEN", "ab#cd"]]);
    expect(read('TOKEN="ab#cd" # c')).toEqual([["TOKEN", "ab#cd"]]);
    for (const [text, parsed] of [
      ["TOKEN= # from vault", { TOKEN: "" }],
      ["TOKEN=#x", { TOKEN: "" }],
    ] as const)
      expect(parseEnv(text)).toEqual(parsed);
    // `ab#cd`: dotenv and Node send "ab"; cpctl refuses, naming the line, never the value.
    const cut = usageOrValue(() => parseDotenv("A=1\nTOKEN=s3cr#et", ".env"));
    expect((cut as UsageError).message).toMatch(/^\.env:2: the value of TOKEN holds '#'.*quote the value/);
    expect((cut as UsageError).message).not.toContain("s3cr");
    // Where the two readers disagree (an escaped quote in double quotes), it is refused too.
    expect((usageOrValue(() => parseDotenv('A="q\\"z"', ".env")) as UsageError).message).toMatch(
      /^\.env:1: .*single quotes/,
    );
    expect((usageOrValue(() => parseDotenv('A="x"y', ".env")) as UsageError).message).toMatch(
      /^\.env:1: unexpected text after the closing quote/,
    );
  });

  it("dotenv refuses bad lines with the line number and never echoes the value", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((s) => !s.includes("\n")),
        (line) => {
          const result = usageOrValue(() => parseDotenv(`GOOD=1\n${line}`, ".env"));
          if (result instanceof UsageError) {
            expect(result.message).toMatch(/^\.env:2: /);
            const secretPart = line.split("=").slice(1).join("=");
            if (secretPart.length > 8) expect(result.message).not.toContain(secretPart);
          }
        },
      ),
    );
  });

  it("--secret NAME=VALUE and --secret-ref NAME=SECRET:KEY split at the right places", () => {
    fc.assert(
      fc.property(identifier, fc.string(), (name, value) => {
        expect(secretFromFlag(`${name}=${value}`, {})).toEqual({ name, value });
      }),
    );
    expect(secretRefFromFlag("DB=creds:url:with:colons")).toEqual({
      name: "DB",
      secret_name: "creds",
      secret_key: "url:with:colons",
    });
  });
});

describe("${env:NAME} interpolation", () => {
  it("replaces every placeholder, keeps other ${...} forms, and unescapes $${", async () => {
    await fc.assert(
      fc.asyncProperty(
        identifier,
        fc.string().filter((s) => !s.includes("$")),
        async (name, value) => {
          const env = { [name]: value };
          const never = async () => new Error("unexpected");
          expect(await interpolate(`a \${env:${name}} b \${HOME} $\${env:${name}}`, env, never)).toBe(
            `a ${value} b \${HOME} \${env:${name}}`,
          );
        },
      ),
    );
  });

  it("names the path of an unset variable", async () => {
    const error = await failure(
      interpolate(
        { a: [{ b: "${env:NOPE_UNSET}" }] },
        {},
        async (path, what) => new Error(`${path.join(".")} ${"unset" in what ? what.unset : what.malformed}`),
      ),
    );
    expect(error.message).toBe("a.0.b NOPE_UNSET");
  });
});

describe("durations", () => {
  it("accepts every unit of CLI.md and a bare number as seconds", () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000 }), (n) => {
        expect(parseDuration(`${n}ms`)).toBe(n);
        expect(parseDuration(`${n}`)).toBe(n * 1000);
        expect(parseDuration(`${n}s`)).toBe(n * 1000);
        expect(parseDuration(`${n}m`)).toBe(n * 60_000);
        expect(parseDuration(`${n}h`)).toBe(n * 3_600_000);
        expect(parseDuration(`${n}d`)).toBe(n * 86_400_000);
      }),
    );
  });

  it("refuses anything else, and formats what it parses", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const ms = parseDuration(text);
        if (ms !== null) expect(/^\s*\d+(\.\d+)?(ms|s|m|h|d)?\s*$/.test(text)).toBe(true);
      }),
    );
    for (const bad of ["", "-5s", "5 minutes", "1w", "1dd", "ms"]) expect(parseDuration(bad)).toBeNull();
    expect(formatDuration(65_000)).toBe("1m05s");
    expect(formatDuration(3_720_000)).toBe("1h02m");
    expect(formatDuration(7 * 86_400_000 + 3 * 3_600_000 + 59_000)).toBe("7d03h");
  });
});
