// Property tests: the model against an independent oracle written from the spec text, and
// robustness of validation and defaults over generated input.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  Deployment,
  type DeploymentT,
  type ResourceSpecRequestT,
  ROUNDED_CPU_FIELDS,
  SOURCES,
  type Source,
  type Validated,
  validateCreateRequest,
  validatePatchRequest,
  withResourceDefaults,
} from "./index.js";
import type { FieldIssue } from "./issue-path.js";

const RUNS = { numRuns: 300 } as const;

type Json = Record<string, unknown>;

// --- the oracle: spec 2.2, 2.3, 2.4, 2.6 and 8, re-read without looking at rules.ts ---------

const BUILT: Source[] = ["gitrepo", "internal_source"];

/** Which sources may set each field. "Only for X" in the spec; see the notes for the rest. */
const ORACLE_SOURCE_CONFIG: Record<string, Source[]> = {
  integration_id: ["gitrepo"],
  repo_url: ["gitrepo"],
  deployment_type: ["gitrepo"],
  build_on_push: ["gitrepo"],
  // "Settable only for external_container. For gitrepo it is set by the service and read-only."
  custom_url: ["external_container"],
  // "Applicable to external_container."
  resource_spec: ["external_container"],
  listener_id: ["external_container"],
  // "Applies only to JavaScript deployments": only the sources that are built from code.
  install_command: BUILT,
  build_command: BUILT,
};
const ORACLE_REVISION_CONFIG: Record<string, Source[]> = {
  repo_ref: ["gitrepo"],
  // "Required on create for buildable sources; must be null for all other sources."
  agent_config_path: BUILT,
  // "Applies to external_container"; an internal container is an image too.
  image_uri: ["external_container", "internal_container"],
  source_tarball_path: ["internal_source"],
};

const CPU_REQUEST_FIELDS = ["cpu", "queue_cpu", "redis_cpu"];
const CPU_LIMIT_FIELDS = ["cpu_limit", "queue_cpu_limit", "redis_cpu_limit"];

/** CPU values are generated in hundredths; decimal rounding half up to tenths, in integers. */
const hundredths = (cores: number) => Math.round(cores * 100);
const tenthsOf = (cores: number) => Math.floor((hundredths(cores) + 5) / 10);

const isTag = (ref: unknown) => typeof ref === "string" && ref.startsWith("refs/tags/");

// Values that break a field's own type or format: the schema refuses them.
const INVALID = {
  uuid: "not-a-uuid",
  empty: "",
  enum: "staging",
  bool: "yes",
  cpuType: "x",
} as const;
const isInvalid = (value: unknown) => (Object.values(INVALID) as unknown[]).includes(value);

interface Verdict {
  /** Problems with a single field's type, format or bounds: the schema's. */
  shape: string[];
  /** Problems between fields. */
  rules: string[];
}

/**
 * Where the model must report an issue: every shape problem, and every rule problem except
 * where the shape problem of the same field (or of a field inside or around it) says it all.
 */
function expectedLocs({ shape, rules }: Verdict): string[] {
  // The model leaves out rule findings inside an object that holds a field the schema
  // refused (they may echo that field), and keeps those about the object itself.
  const parents = shape.map((loc) => loc.slice(0, loc.lastIndexOf(".")));
  const covered = (loc: string) => parents.some((parent) => loc.startsWith(`${parent}.`));
  return [...shape, ...rules.filter((loc) => !covered(loc))];
}

const at = (...loc: (string | number)[]) => ["body", ...loc].join(".");

function oracleCreate(body: Json): Verdict {
  const source = body.source as Source;
  const config = body.source_config as Json;
  const revision = body.source_revision_config as Json;
  const spec = (config.resource_spec ?? null) as Json | null;
  const shape: string[] = [];
  const rules: string[] = [];

  for (const [parent, values] of [
    ["source_config", config],
    ["source_revision_config", revision],
  ] as const) {
    for (const [field, value] of Object.entries(values)) {
      if (isInvalid(value)) shape.push(at(parent, field));
    }
  }
  for (const [field, value] of Object.entries(spec ?? {})) {
    if (value == null) continue;
    if (typeof value !== "number") shape.push(at("source_config", "resource_spec", field));
    else if (CPU_REQUEST_FIELDS.includes(field) && !(value >= 0.1 && value <= 8)) {
      shape.push(at("source_config", "resource_spec", field));
    } else if (CPU_LIMIT_FIELDS.includes(field) && !(value >= 0.1 && value <= 16)) {
      shape.push(at("source_config", "resource_spec", field));
    }
  }
  for (const [parent, values, table] of [
    ["source_config", config, ORACLE_SOURCE_CONFIG],
    ["source_revision_config", revision, ORACLE_REVISION_CONFIG],
  ] as const) {
    for (const [field, value] of Object.entries(values)) {
      if (value != null && !table[field]!.includes(source)) rules.push(at(parent, field));
    }
  }
  const refs = body.secret_references as unknown[] | null | undefined;
  if (refs != null && refs.length > 0 && source !== "external_container") rules.push(at("secret_references"));

  if (BUILT.includes(source) && revision.agent_config_path == null) {
    rules.push(at("source_revision_config", "agent_config_path"));
  }
  // A deployment needs something to run (cpctl's addition to the spec).
  if (source === "gitrepo") {
    if (config.integration_id == null) rules.push(at("source_config", "integration_id"));
    if (config.repo_url == null) rules.push(at("source_config", "repo_url"));
  }
  if (source === "external_container" && revision.image_uri == null)
    rules.push(at("source_revision_config", "image_uri"));

  // "Cannot be true when repo_ref is a tag (starts with refs/tags/)."
  if (config.build_on_push === true && isTag(revision.repo_ref))
    rules.push(at("source_config", "build_on_push"));

  // A limit below its request, as stored (both rounded to one decimal).
  for (const [request, limit] of [
    ["cpu", "cpu_limit"],
    ["redis_cpu", "redis_cpu_limit"],
  ]) {
    const low = spec?.[request!];
    const high = spec?.[limit!];
    if (typeof low === "number" && typeof high === "number" && tenthsOf(high) < tenthsOf(low)) {
      rules.push(at("source_config", "resource_spec", limit!));
    }
  }
  return { shape, rules };
}

// --- generators -----------------------------------------------------------------------------

const UUID_1 = "0b0c6a51-8f0e-4c5e-9a43-3f7d8b1e2c40";
const UUID_2 = "9f1d2c3b-4a5e-4f60-8a7b-1c2d3e4f5a6b";

/** For each field: values the schema accepts, and values it refuses. */
const SOURCE_CONFIG_POOLS: Record<string, [valid: unknown[], invalid: unknown[]]> = {
  integration_id: [[UUID_1], [INVALID.uuid]],
  repo_url: [["https://github.com/acme/agent"], [INVALID.empty]],
  deployment_type: [["dev_free", "dev", "prod"], [INVALID.enum]],
  build_on_push: [[true, false], [INVALID.bool]],
  custom_url: [["https://agent.example.com"], []],
  listener_id: [[UUID_2], []],
  install_command: [["npm ci"], [INVALID.empty]],
  build_command: [["npm run build"], []],
};
const REVISION_POOLS: Record<string, [valid: unknown[], invalid: unknown[]]> = {
  repo_ref: [["main", "release/1.x", "refs/heads/main", "refs/tags/v1.0", "refs/tags/x"], [INVALID.empty]],
  agent_config_path: [["agent.json", "apps/a/agent.json"], [INVALID.empty]],
  image_uri: [["docker.io/acme/agent:1"], []],
  source_tarball_path: [["uploads/abc/src.tar.gz"], []],
};

/** CPU values over a wide range, in and out of bounds, and the edges. */
const cpuAnyValue = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -50, max: 2000 }).map((n) => n / 100) },
  { weight: 2, arbitrary: fc.constantFrom(0.09, 0.1, 8, 8.01, 16, 16.01, 0.25, 0.15) },
  { weight: 1, arbitrary: fc.constantFrom(null, INVALID.cpuType) },
);
/** Mostly within bounds, sometimes not. */
const cpuRequestValue = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 10, max: 800 }).map((n) => n / 100) },
  { weight: 1, arbitrary: cpuAnyValue },
);
const cpuLimitValue = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 10, max: 1600 }).map((n) => n / 100) },
  { weight: 1, arbitrary: cpuAnyValue },
);

const resourceSpec = (leaning: boolean) =>
  fc.record(
    {
      cpu: leaning ? cpuRequestValue : cpuAnyValue,
      cpu_limit: leaning ? cpuLimitValue : cpuAnyValue,
      queue_cpu: leaning ? cpuRequestValue : cpuAnyValue,
      redis_cpu: leaning ? cpuRequestValue : cpuAnyValue,
      redis_cpu_limit: leaning ? cpuLimitValue : cpuAnyValue,
    },
    { requiredKeys: [] },
  );

const ABSENT = Symbol("absent");

/** Any value from the pools, with equal chances. */
const anyOf = ([valid, invalid]: [unknown[], unknown[]]) =>
  fc.constantFrom(ABSENT, null, ...valid, ...invalid);

/**
 * A value leaning to what the oracle's source table allows. It is only a bias: every
 * combination stays reachable, and the verdict is still the oracle's.
 */
const leaningTo = (allowed: boolean, [valid, invalid]: [unknown[], unknown[]]) =>
  allowed
    ? fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...valid) },
        { weight: 1, arbitrary: fc.constantFrom(ABSENT, null) },
        { weight: invalid.length ? 1 : 0, arbitrary: fc.constantFrom(ABSENT, ...invalid) },
      )
    : fc.oneof(
        { weight: 10, arbitrary: fc.constantFrom(ABSENT, null) },
        { weight: 1, arbitrary: fc.constantFrom(...valid) },
      );

function withoutAbsent(values: Record<string, unknown>): Json {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ABSENT));
}

const bodyFor = (source: Source, leaning: boolean) => {
  const config: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [field, pools] of Object.entries(SOURCE_CONFIG_POOLS)) {
    config[field] = leaning ? leaningTo(ORACLE_SOURCE_CONFIG[field]!.includes(source), pools) : anyOf(pools);
  }
  const specAllowed = ORACLE_SOURCE_CONFIG.resource_spec!.includes(source);
  config.resource_spec = fc.oneof(
    { weight: leaning && !specAllowed ? 10 : 2, arbitrary: fc.constantFrom(ABSENT, null) },
    { weight: leaning && !specAllowed ? 1 : 3, arbitrary: resourceSpec(leaning) },
  );
  const revision: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [field, pools] of Object.entries(REVISION_POOLS)) {
    revision[field] = leaning
      ? leaningTo(ORACLE_REVISION_CONFIG[field]!.includes(source), pools)
      : anyOf(pools);
  }
  const refs = [{ name: "DB_PASSWORD", secret_name: "db", secret_key: "pw" }];
  const secretReferences =
    leaning && source !== "external_container"
      ? fc.constantFrom(ABSENT, ABSENT, ABSENT, null, [], refs)
      : fc.constantFrom(ABSENT, null, [], refs);
  return fc
    .record({ config: fc.record(config), revision: fc.record(revision), refs: secretReferences })
    .map(({ config, revision, refs }): Json => {
      const body: Json = {
        name: "my-agent",
        source,
        source_config: withoutAbsent(config),
        source_revision_config: withoutAbsent(revision),
        secrets: [{ name: "API_KEY", value: "k" }],
      };
      if (refs !== ABSENT) body.secret_references = refs;
      return body;
    });
};

/** Half the bodies anything-goes, half leaning to valid, so both verdicts are well sampled. */
const createBody = fc
  .record({ source: fc.constantFrom(...SOURCES), leaning: fc.boolean() })
  .chain(({ source, leaning }) => bodyFor(source, leaning));

function locsOf(result: Validated<unknown>): string[] {
  return result.ok ? [] : result.issues.map((i) => i.loc.join("."));
}

const sorted = (values: string[]) => [...new Set(values)].sort();

// --- (a) the model never accepts what a rule forbids ----------------------------------------

describe("create bodies against the oracle", () => {
  it("refuses exactly what the oracle forbids, at the oracle's locations", () => {
    fc.assert(
      fc.property(createBody, (body) => {
        const verdict = oracleCreate(body);
        const result = validateCreateRequest(body);
        const forbidden = expectedLocs(verdict);
        if (forbidden.length) {
          // Whatever the oracle forbids is refused, with an issue at each expected location.
          expect(result.ok).toBe(false);
          expect(sorted(locsOf(result))).toEqual(expect.arrayContaining(sorted(forbidden)));
        }
        // And nothing else: an acceptance means the oracle found nothing forbidden, and no
        // issue appears where the oracle sees no problem.
        if (result.ok) expect(forbidden).toEqual([]);
        expect(sorted(locsOf(result))).toEqual(sorted(forbidden));
      }),
      RUNS,
    );
  });

  it("generates both accepted and refused bodies (the property is not vacuous)", () => {
    const samples = fc.sample(createBody, { numRuns: 2000, seed: 42 });
    const verdicts = samples.map(oracleCreate);
    const accepted = verdicts.filter((v) => !v.shape.length && !v.rules.length).length;
    const ruleOnly = verdicts.filter((v) => !v.shape.length && v.rules.length).length;
    expect(accepted).toBeGreaterThan(10);
    expect(ruleOnly).toBeGreaterThan(100);
    // Each kind of rule is reached.
    const reached = new Set(verdicts.flatMap((v) => v.rules));
    for (const loc of [
      "body.source_config.build_on_push",
      "body.source_revision_config.agent_config_path",
      "body.source_config.resource_spec",
      "body.source_config.resource_spec.cpu_limit",
      "body.secret_references",
      "body.source_revision_config.image_uri",
      "body.source_config.integration_id",
    ]) {
      expect(reached).toContain(loc);
    }
  });
});

// --- patch bodies against the oracle --------------------------------------------------------

const currentDeployment = fc
  .record({
    source: fc.constantFrom(...SOURCES),
    build_on_push: fc.constantFrom(true, false, null),
    repo_ref: fc.constantFrom("main", "refs/tags/v0.9"),
  })
  .map(({ source, build_on_push, repo_ref }): DeploymentT => {
    const git = source === "gitrepo";
    return Deployment.parse({
      name: "my-agent",
      source,
      source_config: git
        ? { integration_id: UUID_1, repo_url: "https://github.com/acme/agent", build_on_push }
        : {},
      source_revision_config: git
        ? { repo_ref, agent_config_path: "agent.json" }
        : source === "internal_source"
          ? { agent_config_path: "agent.json", source_tarball_path: "uploads/a" }
          : { image_uri: "docker.io/acme/agent:1" },
      secrets: [],
      id: "3e1b2c4d-5f60-4718-89a0-b1c2d3e4f506",
      tenant_id: "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d",
      created_at: "2025-01-01T00:00:00Z",
      updated_at: "2025-01-01T00:00:00Z",
      status: "READY",
      latest_revision_id: null,
      active_revision_id: null,
    });
  });

const patchBody = fc.record(
  {
    revision_source: fc.constantFrom("gitrepo", "internal_container", "internal_source", null),
    source_config: fc.record(
      {
        build_on_push: fc.constantFrom(true, false, null),
        integration_id: fc.constantFrom(UUID_1, UUID_2, null),
      },
      { requiredKeys: [] },
    ),
    source_revision_config: fc.record(
      {
        repo_ref: fc.constantFrom("main", "refs/tags/v1.0", null),
        agent_config_path: fc.constantFrom("agent.json", null),
        image_uri: fc.constantFrom("docker.io/acme/agent:2", null),
        source_tarball_path: fc.constantFrom("uploads/b", null),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

function oraclePatch(patch: Json, current: DeploymentT): string[] {
  const forbidden: string[] = [];
  const config = (patch.source_config ?? {}) as Json;
  const revision = (patch.source_revision_config ?? {}) as Json;
  // "Overrides the source for this revision; when omitted, the deployment's own source is used."
  const revisionSource = (patch.revision_source ?? current.source) as Source;
  for (const [field, value] of Object.entries(revision)) {
    if (value != null && !ORACLE_REVISION_CONFIG[field]!.includes(revisionSource)) {
      forbidden.push(at("source_revision_config", field));
    }
  }
  if (config.build_on_push != null && current.source !== "gitrepo")
    forbidden.push(at("source_config", "build_on_push"));
  // "Not changeable by PATCH."
  const integration = config.integration_id;
  if (integration != null && integration !== current.source_config.integration_id) {
    forbidden.push(at("source_config", "integration_id"));
  }
  // The deployment after the patch may not build on push from a tag; blame what the patch set.
  const buildOnPush = config.build_on_push ?? current.source_config.build_on_push;
  const ref = revision.repo_ref ?? current.source_revision_config.repo_ref;
  if ((config.build_on_push != null || revision.repo_ref != null) && buildOnPush === true && isTag(ref)) {
    forbidden.push(
      config.build_on_push != null
        ? at("source_config", "build_on_push")
        : at("source_revision_config", "repo_ref"),
    );
  }
  return forbidden;
}

describe("patch bodies against the oracle", () => {
  it("generates both accepted and refused patches (the property is not vacuous)", () => {
    const samples = fc.sample(fc.tuple(patchBody, currentDeployment), { numRuns: 1000, seed: 7 });
    const verdicts = samples.map(([patch, current]) => oraclePatch(patch, current));
    expect(verdicts.filter((v) => v.length === 0).length).toBeGreaterThan(50);
    const reached = new Set(verdicts.flat());
    for (const loc of [
      "body.source_config.build_on_push",
      "body.source_revision_config.repo_ref",
      "body.source_revision_config.agent_config_path",
      "body.source_config.integration_id",
    ]) {
      expect(reached).toContain(loc);
    }
  });

  it("refuses exactly what the oracle forbids, at the oracle's locations", () => {
    fc.assert(
      fc.property(patchBody, currentDeployment, (patch, current) => {
        const forbidden = oraclePatch(patch, current);
        const result = validatePatchRequest(patch, current);
        expect(result.ok).toBe(forbidden.length === 0);
        expect(sorted(locsOf(result))).toEqual(sorted(forbidden));
      }),
      RUNS,
    );
  });
});

// --- (b) validation never throws and always answers in the 422 shape ------------------------

function expectWellFormed(result: Validated<unknown>): void {
  expect(typeof result.ok).toBe("boolean");
  if (result.ok) return;
  expect(result.issues.length).toBeGreaterThan(0);
  for (const issue of result.issues as FieldIssue[]) {
    expect(Array.isArray(issue.loc)).toBe(true);
    expect(issue.loc[0]).toBe("body");
    for (const part of issue.loc) expect(["string", "number"]).toContain(typeof part);
    expect(typeof issue.msg).toBe("string");
    expect(issue.msg.trim().length).toBeGreaterThan(0);
    expect(typeof issue.type).toBe("string");
    expect(issue.type.length).toBeGreaterThan(0);
  }
}

/** Bodies with the right top-level keys and anything inside, to reach the rules with junk. */
const nearMiss = (values: fc.Arbitrary<unknown>) =>
  fc.record(
    {
      name: fc.oneof(fc.constant("my-agent"), values),
      source: fc.oneof(fc.constantFrom(...SOURCES), values),
      revision_source: fc.oneof(fc.constantFrom("gitrepo", "internal_source"), values),
      source_config: fc.oneof(
        fc.dictionary(
          fc.constantFrom(
            "integration_id",
            "repo_url",
            "build_on_push",
            "resource_spec",
            "listener_config",
            "custom_url",
            "cpu",
          ),
          values,
        ),
        fc.record({
          resource_spec: fc.dictionary(
            fc.constantFrom("cpu", "cpu_limit", "volumes", "sidecars", "min_scale"),
            values,
          ),
        }),
        values,
      ),
      source_revision_config: fc.oneof(
        fc.dictionary(
          fc.constantFrom("repo_ref", "agent_config_path", "image_uri", "source_tarball_path"),
          values,
        ),
        values,
      ),
      secrets: fc.oneof(fc.array(fc.record({ name: fc.constantFrom("A", "B"), value: fc.string() })), values),
      secret_references: fc.oneof(fc.array(values), values),
    },
    { requiredKeys: [] },
  );

describe("validation is total", () => {
  const inputs = fc.oneof(fc.jsonValue(), fc.anything(), nearMiss(fc.jsonValue()), nearMiss(fc.anything()));
  it("validateCreateRequest never throws and answers in the 422 shape", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        expectWellFormed(validateCreateRequest(input));
      }),
      { numRuns: 300 },
    );
  });
  it("validatePatchRequest never throws and answers in the 422 shape", () => {
    fc.assert(
      fc.property(inputs, currentDeployment, (input, current) => {
        expectWellFormed(validatePatchRequest(input, current));
      }),
      { numRuns: 300 },
    );
  });
});

// --- (c) defaults never produce a limit below its request -----------------------------------

/** Request, limit and the limit's default factor (spec 2.4). */
const PAIRS: [request: string, limit: string, factor: number][] = [
  ["cpu", "cpu_limit", 2],
  ["memory_mb", "memory_limit_mb", 2],
  ["queue_cpu", "queue_cpu_limit", 2],
  ["queue_memory_mb", "queue_memory_limit_mb", 2],
  ["redis_cpu", "redis_cpu_limit", 2],
  ["redis_memory_mb", "redis_memory_limit_mb", 1],
  ["db_cpu", "db_cpu_limit", 2],
  ["db_memory_mb", "db_memory_limit_mb", 2],
];
/** Requests that default from another (spec 2.4: "Default: cpu", "Default: memory_mb"). */
const REQUEST_DEFAULTS: Record<string, string> = { queue_cpu: "cpu", queue_memory_mb: "memory_mb" };
/** The fields spec 8 gives one decimal; the oracle compares them in tenths. */
const ONE_DECIMAL_FIELDS = new Set([
  "cpu",
  "cpu_limit",
  "queue_cpu",
  "queue_cpu_limit",
  "redis_cpu",
  "redis_cpu_limit",
]);

/**
 * The oracle for limits: the resource_spec locations of the limits that end up below their
 * requests once the spec's defaults are applied, derived afresh from the spec's table.
 */
function misorderedLimits(spec: Json): string[] {
  const value = (field: string): number | undefined => {
    const given = spec[field];
    if (typeof given === "number") return ONE_DECIMAL_FIELDS.has(field) ? tenthsOf(given) : given;
    return REQUEST_DEFAULTS[field] ? value(REQUEST_DEFAULTS[field]) : undefined;
  };
  const found: string[] = [];
  for (const [request, limit, factor] of PAIRS) {
    const low = value(request);
    if (low === undefined) continue;
    const given = spec[limit];
    const high =
      typeof given === "number" ? (ONE_DECIMAL_FIELDS.has(limit) ? tenthsOf(given) : given) : low * factor;
    if (high < low) found.push(at("source_config", "resource_spec", limit));
  }
  return found;
}

const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 2 });
const hundredthsIn = (min: number, max: number) =>
  fc.integer({ min: min * 100, max: max * 100 }).map((n) => n / 100);

/**
 * Resource specs within every field's bounds, each request and limit present or not,
 * independently: so limits meet requests given, requests defaulted, or nothing. db values
 * are whole tenths or tiny requests (a sub-tenth db pair is the unit test in rules.test.ts).
 */
const boundedSpec = fc
  .record({
    cpu: optional(hundredthsIn(0.1, 8)),
    cpu_limit: optional(hundredthsIn(0.1, 16)),
    memory_mb: optional(fc.integer({ min: 1, max: 65536 })),
    memory_limit_mb: optional(fc.integer({ min: 1, max: 131072 })),
    queue_cpu: optional(hundredthsIn(0.1, 8)),
    queue_cpu_limit: optional(hundredthsIn(0.1, 16)),
    queue_memory_mb: optional(fc.integer({ min: 1, max: 65536 })),
    queue_memory_limit_mb: optional(fc.integer({ min: 1, max: 131072 })),
    redis_cpu: optional(hundredthsIn(0.1, 8)),
    redis_cpu_limit: optional(hundredthsIn(0.1, 16)),
    redis_memory_mb: optional(fc.integer({ min: 1, max: 65536 })),
    redis_memory_limit_mb: optional(fc.integer({ min: 1, max: 131072 })),
    db_cpu: optional(
      fc.oneof(
        fc.integer({ min: 1, max: 640 }).map((n) => n / 10),
        fc.constantFrom(0.001, 0.01, 0.02, 0.05),
      ),
    ),
    db_cpu_limit: optional(fc.integer({ min: 1, max: 1280 }).map((n) => n / 10)),
    db_memory_mb: optional(fc.integer({ min: 1, max: 65536 })),
    db_memory_limit_mb: optional(fc.integer({ min: 1, max: 131072 })),
  })
  .map((spec) => withoutUndefined(spec) as Partial<ResourceSpecRequestT>);

function withoutUndefined(values: Record<string, unknown>): Json {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

const validateSpec = (spec: Partial<ResourceSpecRequestT>) =>
  validateCreateRequest({
    name: "a",
    source: "external_container",
    source_config: { resource_spec: spec },
    source_revision_config: { image_uri: "img:1" },
    secrets: [],
  });

/** Specs the oracle finds sound: the "valid inputs" of the properties below. */
const validSpec = boundedSpec.filter((spec) => misorderedLimits(spec as Json).length === 0);

const ONE_DECIMAL = /^\d+(\.\d)?$/;

describe("limits against the oracle, defaults included", () => {
  it("refuses exactly the limits that end up below their requests", () => {
    fc.assert(
      fc.property(boundedSpec, (spec) => {
        const expected = misorderedLimits(spec as Json);
        const result = validateSpec(spec);
        expect(sorted(locsOf(result)), JSON.stringify(spec)).toEqual(sorted(expected));
      }),
      RUNS,
    );
  });
  it("generates sound and unsound specs, with limits that meet defaulted requests", () => {
    const samples = fc.sample(boundedSpec, { numRuns: 1000, seed: 11 }) as Json[];
    const sound = samples.filter((spec) => misorderedLimits(spec).length === 0);
    expect(sound.length).toBeGreaterThan(100);
    expect(samples.length - sound.length).toBeGreaterThan(100);
    const meetsDefault = (spec: Json) =>
      spec.cpu != null && spec.queue_cpu == null && spec.queue_cpu_limit != null;
    expect(sound.filter(meetsDefault).length).toBeGreaterThan(5);
    expect(
      samples.filter((spec) => meetsDefault(spec) && misorderedLimits(spec).length > 0).length,
    ).toBeGreaterThan(5);
  });
});

describe("withResourceDefaults over valid specs", () => {
  it("never produces a limit below its request, and fills every limit whose request is known", () => {
    fc.assert(
      fc.property(validSpec, (spec) => {
        const out = withResourceDefaults(spec) as Json;
        for (const [request, limit] of PAIRS) {
          const low = out[request];
          if (typeof low !== "number") continue;
          expect(typeof out[limit], `${limit} of ${JSON.stringify(spec)}`).toBe("number");
          expect(out[limit] as number, `${limit} of ${JSON.stringify(spec)}`).toBeGreaterThanOrEqual(low);
        }
      }),
      RUNS,
    );
  });
  it("gives every CPU value at most one decimal", () => {
    fc.assert(
      fc.property(validSpec, (spec) => {
        const out = withResourceDefaults(spec) as Json;
        for (const field of ROUNDED_CPU_FIELDS) {
          const value = out[field];
          if (value != null)
            expect(String(value), `${field} of ${JSON.stringify(spec)}`).toMatch(ONE_DECIMAL);
        }
      }),
      RUNS,
    );
  });
  it("is idempotent and keeps explicit values (CPU ones rounded)", () => {
    fc.assert(
      fc.property(validSpec, (spec) => {
        const once = withResourceDefaults(spec);
        expect(withResourceDefaults(once)).toEqual(once);
        for (const [field, value] of Object.entries(spec)) {
          const expected = (ROUNDED_CPU_FIELDS as readonly string[]).includes(field)
            ? tenthsOf(value as number) / 10
            : value;
          expect((once as Json)[field]).toBe(expected);
        }
      }),
      RUNS,
    );
  });
});
