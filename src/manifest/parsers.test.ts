// Properties of the parsers behind --set, --secrets-file, ${env:NAME} and durations: they
// round-trip what they should, and refuse everything else with a UsageError (never a crash).
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

  it("dotenv round-trips names and double-quoted values with escapes", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(identifier, fc.string()), { selector: ([name]) => name, maxLength: 8 }),
        (pairs) => {
          const text = pairs
            .map(
              ([name, value]) =>
                `${name}="${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t")}"`,
            )
            .join("\n");
          expect(parseDotenv(text, ".env").map(({ name, value }) => ({ name, value }))).toEqual(
            pairs.map(([name, value]) => ({ name, value })),
          );
        },
      ),
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
      }),
    );
  });

  it("refuses anything else, and formats what it parses", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const ms = parseDuration(text);
        if (ms !== null) expect(/^\s*\d+(\.\d+)?(ms|s|m|h)?\s*$/.test(text)).toBe(true);
      }),
    );
    for (const bad of ["", "-5s", "5 minutes", "1d", "ms"]) expect(parseDuration(bad)).toBeNull();
    expect(formatDuration(65_000)).toBe("1m05s");
  });
});
