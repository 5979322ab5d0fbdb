// Shapes, per-field bounds and the wording of schema problems (validate.ts over schemas.ts).
import { describe, expect, it } from "vitest";
import { toJSONSchema } from "zod/mini";
import { closest } from "../util/did-you-mean.js";
import {
  Deployment,
  DeploymentCreateRequest,
  DeploymentPatchRequest,
  type DeploymentT,
  describeIssue,
  formatLoc,
  formatPath,
  RESOURCE_SPEC_FIELDS,
  type Validated,
  validateCreateRequest,
  validatePatchRequest,
  validatePatchShape,
} from "./index.js";
import type { FieldIssue } from "./issue-path.js";

type Json = Record<string, unknown>;

function body(overrides: Json = {}): Json {
  return {
    name: "my-agent",
    source: "external_container",
    source_config: {},
    source_revision_config: { image_uri: "docker.io/acme/agent:1" },
    secrets: [],
    ...overrides,
  };
}

const CURRENT: DeploymentT = Deployment.parse({
  ...body(),
  id: "3e1b2c4d-5f60-4718-89a0-b1c2d3e4f506",
  tenant_id: "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d",
  created_at: "2025-01-01T00:00:00Z",
  updated_at: "2025-01-01T00:00:00Z",
  status: "READY",
  latest_revision_id: null,
  active_revision_id: null,
});

function issuesOf(result: Validated<unknown>): FieldIssue[] {
  if (result.ok) throw new Error(`expected a refusal, got ok: ${JSON.stringify(result.value)}`);
  return result.issues;
}

function issueAt(result: Validated<unknown>, ...loc: (string | number)[]): FieldIssue {
  const issues = issuesOf(result);
  const hit = issues.find((i) => JSON.stringify(i.loc) === JSON.stringify(["body", ...loc]));
  if (!hit) throw new Error(`no issue at ${JSON.stringify(["body", ...loc])} in ${JSON.stringify(issues)}`);
  return hit;
}

describe("deployment names", () => {
  const nameResult = (name: unknown) => validateCreateRequest(body({ name }));
  it("accepts ordinary names, inner spaces, unicode and 128 characters", () => {
    for (const name of ["a", "my-agent", "My Agent 2", "agent_ü_日本", "x".repeat(128), "0b0c6a51-8f0e"]) {
      expect(nameResult(name).ok, name).toBe(true);
    }
  });
  it("refuses an empty name", () => {
    expect(issueAt(nameResult(""), "name").msg).toMatch(/must not be empty/);
  });
  it("refuses more than 128 characters", () => {
    expect(issueAt(nameResult("x".repeat(129)), "name").msg).toBe("must be at most 128 characters");
  });
  it("refuses surrounding white space", () => {
    for (const name of [" agent", "agent ", "\tagent", "agent\n", " "]) {
      expect(issueAt(nameResult(name), "name").msg, JSON.stringify(name)).toMatch(
        /white space|must not be empty/,
      );
    }
    expect(issueAt(nameResult(" agent"), "name").msg).toBe("must not start or end with white space");
  });
  it("refuses control characters", () => {
    for (const name of ["a\u0000b", "a\u0007b", "a\u001bb", "a\u007fb", "a\u0085b"]) {
      expect(
        issuesOf(nameResult(name)).map((i) => i.msg),
        JSON.stringify(name),
      ).toContain("must not contain control characters");
    }
  });
  it("refuses a UUID-shaped name, in any case", () => {
    for (const name of ["0b0c6a51-8f0e-4c5e-9a43-3f7d8b1e2c40", "0B0C6A51-8F0E-4C5E-9A43-3F7D8B1E2C40"]) {
      expect(issueAt(nameResult(name), "name").msg).toMatch(/must not be a UUID/);
    }
  });
  it("refuses a missing or non-string name", () => {
    const missing = body();
    delete missing.name;
    expect(issueAt(validateCreateRequest(missing), "name")).toMatchObject({
      msg: "is required",
      type: "missing",
    });
    expect(issueAt(nameResult(42), "name").msg).toBe("must be a string, not a number (42)");
  });
});

describe("unknown fields", () => {
  it("suggests the nearest top-level field (source_confg -> source_config)", () => {
    const result = validateCreateRequest({ ...body(), source_confg: {} });
    expect(issueAt(result, "source_confg")).toEqual({
      loc: ["body", "source_confg"],
      msg: "is not a known field; did you mean 'source_config'?",
      type: "extra_forbidden",
    });
  });
  it("points a resource field put directly under source_config to resource_spec", () => {
    const result = validateCreateRequest(body({ source_config: { cpu: 1 } }));
    expect(issueAt(result, "source_config", "cpu").msg).toBe(
      "is not a known field; did you mean 'resource_spec.cpu'?",
    );
    for (const field of ["memory_mb", "max_scale", "sidecars"]) {
      const r = validateCreateRequest(body({ source_config: { [field]: 1 } }));
      expect(issueAt(r, "source_config", field).msg).toContain(`did you mean 'resource_spec.${field}'?`);
    }
  });
  it("suggests nested fields too", () => {
    expect(
      issueAt(
        validateCreateRequest(body({ source_revision_config: { image_url: "x" } })),
        "source_revision_config",
        "image_url",
      ).msg,
    ).toBe("is not a known field; did you mean 'image_uri'?");
    const spec = body({ source_config: { resource_spec: { cpu_limt: 1 } } });
    expect(issueAt(validateCreateRequest(spec), "source_config", "resource_spec", "cpu_limt").msg).toContain(
      "did you mean 'cpu_limit'?",
    );
    const secrets = body({ secrets: [{ name: "A", valu: "1" }] });
    expect(issueAt(validateCreateRequest(secrets), "secrets", 0, "valu").msg).toContain(
      "did you mean 'value'?",
    );
  });
  it("says to remove a field that resembles nothing", () => {
    const result = validateCreateRequest({ ...body(), completely_unrelated: true });
    expect(issueAt(result, "completely_unrelated").msg).toBe("is not a known field; remove it");
  });
  it("refuses unknown fields in a patch", () => {
    const result = validatePatchRequest({ source_config: { build_on_psh: true } }, CURRENT);
    expect(issueAt(result, "source_config", "build_on_psh").msg).toContain("did you mean 'build_on_push'?");
    expect(issueAt(validatePatchRequest({ secretz: [] }, CURRENT), "secretz").msg).toContain(
      "did you mean 'secrets'?",
    );
  });
  it("suggests patch-only fields for a typo in a patch (revison_source -> revision_source)", () => {
    const result = validatePatchRequest({ revison_source: "gitrepo" }, CURRENT);
    expect(issueAt(result, "revison_source").msg).toBe(
      "is not a known field; did you mean 'revision_source'?",
    );
  });
  it("closest() only suggests near words", () => {
    expect(closest("source_confg", ["name", "source", "source_config"])).toBe("source_config");
    expect(closest("SECRETS", ["secrets"])).toBe("secrets");
    expect(closest("zzzzzz", ["name", "source"])).toBeNull();
    expect(closest("x", [])).toBeNull();
  });
});

describe("wrong types", () => {
  const spec = (resource_spec: Json) => validateCreateRequest(body({ source_config: { resource_spec } }));
  it("names the expected type and quotes the value", () => {
    expect(issueAt(spec({ cpu: "x" }), "source_config", "resource_spec", "cpu")).toEqual({
      loc: ["body", "source_config", "resource_spec", "cpu"],
      msg: 'must be a number, not a string ("x")',
      type: "number_type",
    });
    expect(issueAt(spec({ memory_mb: 1.5 }), "source_config", "resource_spec", "memory_mb").msg).toBe(
      "must be an integer, not a fraction (1.5)",
    );
    // zod calls a string-to-string map a "record"; either word tells the user what to give.
    expect(issueAt(spec({ labels: [] }), "source_config", "resource_spec", "labels").msg).toMatch(
      /^must be an? (object|record), not an array$/,
    );
    expect(issueAt(validateCreateRequest(body({ secrets: {} })), "secrets").msg).toBe(
      "must be an array, not an object",
    );
    expect(issueAt(validateCreateRequest(body({ source_config: "x" })), "source_config").msg).toBe(
      'must be an object, not a string ("x")',
    );
    const bop = validateCreateRequest(body({ source: "gitrepo", source_config: { build_on_push: "yes" } }));
    expect(issueAt(bop, "source_config", "build_on_push").msg).toBe(
      'must be a boolean, not a string ("yes")',
    );
  });
  it("shortens long quoted strings", () => {
    const msg = issueAt(spec({ cpu: "y".repeat(100) }), "source_config", "resource_spec", "cpu").msg;
    expect(msg).toBe(`must be a number, not a string ("${"y".repeat(40)}…")`);
  });
  it("lists the allowed values of an enum", () => {
    expect(issueAt(validateCreateRequest(body({ source: "git" })), "source")).toMatchObject({
      msg: 'must be one of "gitrepo", "external_container", "internal_container", "internal_source"',
      type: "enum",
    });
    expect(
      issueAt(validatePatchRequest({ revision_source: "external_container" }, CURRENT), "revision_source")
        .msg,
    ).toBe('must be one of "gitrepo", "internal_container", "internal_source"');
  });
  it("uses the field's own message for formats and bounds", () => {
    const git = body({ source: "gitrepo", source_config: { integration_id: "not-a-uuid" } });
    expect(issueAt(validateCreateRequest(git), "source_config", "integration_id").msg).toMatch(
      /must be a UUID/,
    );
    expect(issueAt(spec({ min_scale: -1 }), "source_config", "resource_spec", "min_scale").msg).toBe(
      "must be 0 or more",
    );
    expect(issueAt(spec({ memory_mb: 0 }), "source_config", "resource_spec", "memory_mb").msg).toBe(
      "must be at least 1 (MB)",
    );
    expect(issueAt(spec({ db_cpu: 0 }), "source_config", "resource_spec", "db_cpu").msg).toBe(
      "must be more than 0 cores",
    );
    const vol = spec({ volumes: [{ name: "Data_1" }] });
    expect(issueAt(vol, "source_config", "resource_spec", "volumes", 0, "name").msg).toMatch(
      /must be a DNS label/,
    );
    const env = body({ secrets: [{ name: "1BAD", value: "x" }] });
    expect(issueAt(validateCreateRequest(env), "secrets", 0, "name").msg).toMatch(
      /must be an environment variable name/,
    );
    const empty = body({ source_revision_config: { image_uri: "" } });
    expect(issueAt(validateCreateRequest(empty), "source_revision_config", "image_uri").msg).toBe(
      "must not be empty",
    );
  });
  it("requires the top-level fields of a create body", () => {
    const result = validateCreateRequest({});
    for (const field of ["name", "source_config", "source_revision_config", "secrets"]) {
      expect(issueAt(result, field)).toMatchObject({ msg: "is required", type: "missing" });
    }
    // The missing source at least lists what to give.
    expect(issueAt(result, "source").msg).toMatch(/gitrepo/);
  });
  it("a missing source says 'is required' like the other missing fields", () => {
    expect(issueAt(validateCreateRequest({}), "source")).toMatchObject({
      msg: expect.stringMatching(/^is required: one of "gitrepo", /),
      type: "missing",
    });
  });
  it("refuses a body that is not an object", () => {
    for (const input of [null, [], "x", 1]) {
      const issues = issuesOf(validateCreateRequest(input));
      expect(issues[0]!.loc).toEqual(["body"]);
      expect(issues[0]!.msg).toMatch(/^must be an object/);
    }
  });
});

describe("patch shape", () => {
  it("accepts an empty patch and all-null fields", () => {
    expect(validatePatchShape({}).ok).toBe(true);
    expect(
      validatePatchShape({
        revision_source: null,
        source_config: null,
        source_revision_config: null,
        secrets: null,
        secret_references: null,
      }).ok,
    ).toBe(true);
    expect(validatePatchRequest({}, CURRENT).ok).toBe(true);
  });
  it("refuses what the schema refuses, without a deployment", () => {
    expect(issueAt(validatePatchShape({ name: "new" }), "name").msg).toMatch(/^is not a known field/);
    expect(
      issueAt(
        validatePatchShape({ source_config: { resource_spec: { cpu: 9 } } }),
        "source_config",
        "resource_spec",
        "cpu",
      ).msg,
    ).toBe("must be between 0.1 and 8 cores");
  });
});

describe("describeIssue / formatPath", () => {
  it("formats paths and drops the leading body", () => {
    expect(formatPath(["source_config", "resource_spec", "sidecars", 0, "name"])).toBe(
      "source_config.resource_spec.sidecars[0].name",
    );
    expect(
      describeIssue({ loc: ["body", "secrets", 1, "name"], msg: "duplicates", type: "value_error" }),
    ).toBe("secrets[1].name: duplicates");
    expect(describeIssue({ loc: ["body"], msg: "must be an object", type: "x" })).toBe("must be an object");
    // The server's 422 loc, as the API client reads it: any values, the body left out.
    expect(formatLoc(["body", "secrets", 0, "value"])).toBe("secrets[0].value");
    expect(formatLoc([0, "name"])).toBe("[0].name");
  });
});

describe("JSON Schema (z.toJSONSchema)", () => {
  it("is generated for the create and patch requests and lists the required fields", () => {
    const schema = toJSONSchema(DeploymentCreateRequest) as {
      required?: string[];
      properties?: Json;
      additionalProperties?: unknown;
    };
    expect([...(schema.required ?? [])].sort()).toEqual(
      ["name", "secrets", "source", "source_config", "source_revision_config"].sort(),
    );
    expect(Object.keys(schema.properties ?? {})).toContain("secret_references");
    expect(schema.additionalProperties).toBe(false);
    const patch = toJSONSchema(DeploymentPatchRequest) as { required?: string[] };
    expect(patch.required ?? []).toEqual([]);
  });
  it("knows every resource_spec field", () => {
    const schema = toJSONSchema(DeploymentCreateRequest) as { properties: Record<string, Json> };
    const text = JSON.stringify(schema.properties.source_config);
    for (const field of RESOURCE_SPEC_FIELDS) expect(text).toContain(`"${field}"`);
  });
});
