// Cross-field rules of spec 2.2, 2.3, 2.4 and 7, exercised through the public entry points
// validateCreateRequest / validatePatchRequest, with exact `loc` paths and actionable messages.
import { describe, expect, it } from "vitest";
import {
  BUILDABLE_SOURCES,
  Deployment,
  type DeploymentT,
  NON_CHANGEABLE_FIELDS,
  type PatchRequest,
  patchTriggersRevision,
  REQUIRED_ON_CREATE,
  REVISION_FIELD_SOURCES,
  REVISION_SOURCES,
  REVISION_TRIGGERS,
  revisionTriggers,
  SECRET_REFERENCES_SOURCES,
  SOURCE_CONFIG_FIELD_SOURCES,
  SOURCES,
  type Source,
  type Validated,
  validateCreateRequest,
  validatePatchRequest,
} from "./index.js";
import type { FieldIssue } from "./issue-path.js";

// --- fixtures -------------------------------------------------------------------------------

type Json = Record<string, unknown>;
type Loc = (string | number)[];

const INTEGRATION_ID = "0b0c6a51-8f0e-4c5e-9a43-3f7d8b1e2c40";
const OTHER_UUID = "9f1d2c3b-4a5e-4f60-8a7b-1c2d3e4f5a6b";
const LISTENER_ID = "5d6e7f80-91a2-4b3c-8d4e-5f6071829304";

/** A minimal valid create body for each source. */
const BASE: Record<Source, { source_config: Json; source_revision_config: Json }> = {
  gitrepo: {
    source_config: { integration_id: INTEGRATION_ID, repo_url: "https://github.com/acme/agent" },
    source_revision_config: { repo_ref: "main", agent_config_path: "agent.json" },
  },
  internal_source: {
    source_config: {},
    source_revision_config: {
      agent_config_path: "agent.json",
      source_tarball_path: "uploads/abc/src.tar.gz",
    },
  },
  external_container: {
    source_config: {},
    source_revision_config: { image_uri: "docker.io/acme/agent:1.2.3" },
  },
  internal_container: {
    source_config: {},
    source_revision_config: { image_uri: "registry.internal/acme/agent:1.2.3" },
  },
};

interface Parts {
  source_config?: Json;
  source_revision_config?: Json;
  secrets?: unknown[];
  secret_references?: unknown;
}

function createBody(source: Source, parts: Parts = {}): Json {
  const body: Json = {
    name: "my-agent",
    source,
    source_config: { ...BASE[source].source_config, ...parts.source_config },
    source_revision_config: { ...BASE[source].source_revision_config, ...parts.source_revision_config },
    secrets: parts.secrets ?? [],
  };
  if (parts.secret_references !== undefined) body.secret_references = parts.secret_references;
  return body;
}

function create(source: Source, parts: Parts = {}): Validated<unknown> {
  return validateCreateRequest(createBody(source, parts));
}

/** A deployment as the service returns it, checked against the response schema. */
function deployment(source: Source, parts: Parts = {}): DeploymentT {
  return Deployment.parse({
    ...createBody(source, parts),
    id: "3e1b2c4d-5f60-4718-89a0-b1c2d3e4f506",
    tenant_id: "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d",
    created_at: "2025-01-01T00:00:00Z",
    updated_at: "2025-01-01T00:00:00Z",
    status: "READY",
    latest_revision_id: null,
    active_revision_id: null,
  });
}

function issuesOf(result: Validated<unknown>): FieldIssue[] {
  if (result.ok) throw new Error(`expected a refusal, got ok: ${JSON.stringify(result.value)}`);
  return result.issues;
}

function expectOk(result: Validated<unknown>): void {
  expect(result.ok ? [] : result.issues).toEqual([]);
  expect(result.ok).toBe(true);
}

/** The body is refused with an issue at exactly `loc` (after "body") whose message matches. */
function expectIssue(result: Validated<unknown>, loc: Loc, msg: RegExp, type?: string): FieldIssue {
  const issues = issuesOf(result);
  const full = ["body", ...loc];
  const hit = issues.find((i) => JSON.stringify(i.loc) === JSON.stringify(full));
  expect(hit, `no issue at ${JSON.stringify(full)} in ${JSON.stringify(issues)}`).toBeDefined();
  expect(hit!.msg).toMatch(msg);
  if (type) expect(hit!.type).toBe(type);
  return hit!;
}

/** As expectIssue, and it is the only problem reported. */
function expectOnlyIssue(result: Validated<unknown>, loc: Loc, msg: RegExp, type?: string): void {
  expectIssue(result, loc, msg, type);
  expect(issuesOf(result)).toHaveLength(1);
}

/** A valid, non-null sample for each source_config / source_revision_config field. */
const SOURCE_CONFIG_SAMPLES: Record<keyof typeof SOURCE_CONFIG_FIELD_SOURCES, unknown> = {
  integration_id: INTEGRATION_ID,
  repo_url: "https://github.com/acme/agent",
  deployment_type: "dev",
  build_on_push: false,
  custom_url: "https://agent.example.com",
  resource_spec: { cpu: 1 },
  listener_id: LISTENER_ID,
  listener_config: { k8s_namespace: null },
  install_command: "npm ci",
  build_command: "npm run build",
};
const REVISION_SAMPLES: Record<keyof typeof REVISION_FIELD_SOURCES, string> = {
  repo_ref: "main",
  agent_config_path: "agent.json",
  image_uri: "docker.io/acme/agent:2",
  source_tarball_path: "uploads/def/src.tar.gz",
};

const REMOVE_OR_NULL = /remove it|must be null/;

// --- fields valid only for some sources -----------------------------------------------------

describe("source_config fields valid only for certain sources (create)", () => {
  for (const [field, allowed] of Object.entries(SOURCE_CONFIG_FIELD_SOURCES)) {
    for (const source of SOURCES) {
      const sample = SOURCE_CONFIG_SAMPLES[field as keyof typeof SOURCE_CONFIG_SAMPLES];
      if (allowed.includes(source)) {
        it(`accepts source_config.${field} for ${source}`, () => {
          expectOk(create(source, { source_config: { [field]: sample } }));
        });
      } else {
        it(`refuses source_config.${field} for ${source}`, () => {
          const result = create(source, { source_config: { [field]: sample } });
          expectOnlyIssue(result, ["source_config", field], REMOVE_OR_NULL, "source_mismatch");
          if (!(field === "custom_url" && source === "gitrepo")) {
            expect(issuesOf(result)[0]!.msg).toContain(`applies only to ${allowed.join(" or ")} deployments`);
            expect(issuesOf(result)[0]!.msg).toContain(`not ${source}`);
          }
        });
      }
      if (!allowed.includes(source)) {
        it(`accepts source_config.${field}: null for ${source} (null means absent)`, () => {
          expectOk(create(source, { source_config: { [field]: null } }));
        });
      }
    }
  }

  it("spells out the table of spec 2.2", () => {
    expect(SOURCE_CONFIG_FIELD_SOURCES).toEqual({
      integration_id: ["gitrepo"],
      repo_url: ["gitrepo"],
      deployment_type: ["gitrepo"],
      build_on_push: ["gitrepo"],
      custom_url: ["external_container"],
      resource_spec: ["external_container"],
      listener_id: ["external_container"],
      listener_config: ["external_container"],
      install_command: ["gitrepo", "internal_source"],
      build_command: ["gitrepo", "internal_source"],
    });
  });
});

describe("source_revision_config fields valid only for certain sources (create)", () => {
  for (const [field, allowed] of Object.entries(REVISION_FIELD_SOURCES)) {
    const sample = REVISION_SAMPLES[field as keyof typeof REVISION_SAMPLES];
    for (const source of SOURCES) {
      if (allowed.includes(source)) {
        it(`accepts source_revision_config.${field} for ${source}`, () => {
          expectOk(create(source, { source_revision_config: { [field]: sample } }));
        });
      } else {
        it(`refuses source_revision_config.${field} for ${source}`, () => {
          expectOnlyIssue(
            create(source, { source_revision_config: { [field]: sample } }),
            ["source_revision_config", field],
            REMOVE_OR_NULL,
            "source_mismatch",
          );
        });
      }
    }
  }

  it("spells out the table of spec 2.3", () => {
    expect(REVISION_FIELD_SOURCES).toEqual({
      repo_ref: ["gitrepo"],
      agent_config_path: ["gitrepo", "internal_source"],
      image_uri: ["external_container", "internal_container"],
      source_tarball_path: ["internal_source"],
    });
  });
});

describe("source_revision_config fields valid only for certain sources (patch)", () => {
  for (const [field, allowed] of Object.entries(REVISION_FIELD_SOURCES)) {
    const sample = REVISION_SAMPLES[field as keyof typeof REVISION_SAMPLES];
    // Without revision_source the deployment's own source decides.
    for (const source of SOURCES) {
      const patch = { source_revision_config: { [field]: sample } };
      it(`${allowed.includes(source) ? "accepts" : "refuses"} ${field} when patching a ${source} deployment`, () => {
        const result = validatePatchRequest(patch, deployment(source));
        if (allowed.includes(source)) expectOk(result);
        else expectOnlyIssue(result, ["source_revision_config", field], REMOVE_OR_NULL, "source_mismatch");
      });
    }
    // With revision_source, that source decides, whatever the deployment's own.
    for (const revisionSource of REVISION_SOURCES) {
      for (const current of ["gitrepo", "external_container"] as const) {
        const ok = allowed.includes(revisionSource);
        it(`${ok ? "accepts" : "refuses"} ${field} with revision_source ${revisionSource} on a ${current} deployment`, () => {
          const patch = { revision_source: revisionSource, source_revision_config: { [field]: sample } };
          const result = validatePatchRequest(patch, deployment(current));
          if (ok) expectOk(result);
          else expectOnlyIssue(result, ["source_revision_config", field], REMOVE_OR_NULL, "source_mismatch");
        });
      }
    }
  }
});

describe("source_config fields valid only for certain sources (patch)", () => {
  const changeable = Object.entries(SOURCE_CONFIG_FIELD_SOURCES).filter(
    ([field]) => !NON_CHANGEABLE_FIELDS.some((path) => path.length === 2 && path[1] === field),
  );
  it("leaves the changeable fields of spec 2.2", () => {
    expect(changeable.map(([field]) => field).sort()).toEqual(
      [
        "build_command",
        "build_on_push",
        "custom_url",
        "install_command",
        "listener_config",
        "resource_spec",
      ].sort(),
    );
  });
  for (const [field, allowed] of changeable) {
    const sample = SOURCE_CONFIG_SAMPLES[field as keyof typeof SOURCE_CONFIG_SAMPLES];
    for (const source of SOURCES) {
      const patch = { source_config: { [field]: sample } };
      if (allowed.includes(source)) {
        it(`accepts source_config.${field} when patching a ${source} deployment`, () => {
          expectOk(validatePatchRequest(patch, deployment(source)));
        });
      } else {
        it(`refuses source_config.${field} when patching a ${source} deployment`, () => {
          const result = validatePatchRequest(patch, deployment(source));
          expectIssue(result, ["source_config", field], /remove it|read-only/);
        });
      }
    }
  }
});

describe("secret_references only for external_container", () => {
  const refs = [{ name: "DB_PASSWORD", secret_name: "db", secret_key: "password" }];
  it("names external_container as the only source", () => {
    expect(SECRET_REFERENCES_SOURCES).toEqual(["external_container"]);
  });
  for (const source of SOURCES) {
    if (source === "external_container") {
      it("accepts secret_references for external_container (create and patch)", () => {
        expectOk(create(source, { secret_references: refs }));
        expectOk(validatePatchRequest({ secret_references: refs }, deployment(source)));
      });
    } else {
      it(`refuses secret_references for ${source} (create and patch)`, () => {
        const msg = new RegExp(`applies only to external_container deployments, not ${source}; remove it`);
        expectOnlyIssue(
          create(source, { secret_references: refs }),
          ["secret_references"],
          msg,
          "source_mismatch",
        );
        expectOnlyIssue(
          validatePatchRequest({ secret_references: refs }, deployment(source)),
          ["secret_references"],
          msg,
        );
      });
      it(`accepts null or empty secret_references for ${source}`, () => {
        expectOk(create(source, { secret_references: null }));
        expectOk(create(source, { secret_references: [] }));
      });
    }
  }
});

// --- build_on_push and tags -----------------------------------------------------------------

describe("build_on_push cannot be true with a tag repo_ref", () => {
  const TAG_MSG =
    /build_on_push cannot be true when repo_ref is a tag \(refs\/tags\/v1\.0\).*set build_on_push to false or use a branch name/;

  it("refuses a tag with build_on_push true on create, blaming build_on_push", () => {
    const result = create("gitrepo", {
      source_config: { build_on_push: true },
      source_revision_config: { repo_ref: "refs/tags/v1.0" },
    });
    expectOnlyIssue(result, ["source_config", "build_on_push"], TAG_MSG, "value_error");
  });
  it("accepts a tag with build_on_push false or unset, and a branch with build_on_push true", () => {
    expectOk(
      create("gitrepo", {
        source_config: { build_on_push: false },
        source_revision_config: { repo_ref: "refs/tags/v1.0" },
      }),
    );
    expectOk(
      create("gitrepo", {
        source_config: { build_on_push: null },
        source_revision_config: { repo_ref: "refs/tags/v1.0" },
      }),
    );
    expectOk(
      create("gitrepo", {
        source_config: { build_on_push: true },
        source_revision_config: { repo_ref: "main" },
      }),
    );
    // Only the full ref path is a tag: a branch may contain "tags".
    expectOk(
      create("gitrepo", {
        source_config: { build_on_push: true },
        source_revision_config: { repo_ref: "tags/v1.0" },
      }),
    );
    expectOk(
      create("gitrepo", {
        source_config: { build_on_push: true },
        source_revision_config: { repo_ref: "refs/heads/main" },
      }),
    );
  });

  it("patch: build_on_push true against a tag already on the deployment", () => {
    const current = deployment("gitrepo", {
      source_config: { build_on_push: false },
      source_revision_config: { repo_ref: "refs/tags/v1.0" },
    });
    expectOnlyIssue(
      validatePatchRequest({ source_config: { build_on_push: true } }, current),
      ["source_config", "build_on_push"],
      TAG_MSG,
    );
    // Moving to a branch in the same patch makes it fine.
    expectOk(
      validatePatchRequest(
        { source_config: { build_on_push: true }, source_revision_config: { repo_ref: "main" } },
        current,
      ),
    );
  });
  it("patch: a tag against build_on_push true already on the deployment, blaming repo_ref", () => {
    const current = deployment("gitrepo", {
      source_config: { build_on_push: true },
      source_revision_config: { repo_ref: "main" },
    });
    expectOnlyIssue(
      validatePatchRequest({ source_revision_config: { repo_ref: "refs/tags/v1.0" } }, current),
      ["source_revision_config", "repo_ref"],
      TAG_MSG,
    );
    // Turning build_on_push off in the same patch makes it fine.
    expectOk(
      validatePatchRequest(
        { source_config: { build_on_push: false }, source_revision_config: { repo_ref: "refs/tags/v1.0" } },
        current,
      ),
    );
  });
  it("patch: both in the same patch", () => {
    const current = deployment("gitrepo");
    expectOnlyIssue(
      validatePatchRequest(
        { source_config: { build_on_push: true }, source_revision_config: { repo_ref: "refs/tags/v1.0" } },
        current,
      ),
      ["source_config", "build_on_push"],
      TAG_MSG,
    );
  });
});

// --- agent_config_path ----------------------------------------------------------------------

describe("agent_config_path", () => {
  it("is required on create for the built sources", () => {
    expect([...BUILDABLE_SOURCES].sort()).toEqual(["gitrepo", "internal_source"]);
  });
  for (const source of ["gitrepo", "internal_source"] as const) {
    it(`is required on create for ${source} (null or absent)`, () => {
      const msg = new RegExp(
        `is required for ${source} deployments: the path of the agent configuration file \\(agent\\.json\\)`,
      );
      expectOnlyIssue(
        create(source, { source_revision_config: { agent_config_path: null } }),
        ["source_revision_config", "agent_config_path"],
        msg,
        "missing",
      );
      const body = createBody(source);
      delete (body.source_revision_config as Json).agent_config_path;
      expectOnlyIssue(
        validateCreateRequest(body),
        ["source_revision_config", "agent_config_path"],
        msg,
        "missing",
      );
    });
  }
  for (const source of ["external_container", "internal_container"] as const) {
    const msg = new RegExp(`must be null for ${source} deployments: only built sources`);
    it(`must be null for ${source} on create`, () => {
      expectOnlyIssue(
        create(source, { source_revision_config: { agent_config_path: "agent.json" } }),
        ["source_revision_config", "agent_config_path"],
        msg,
      );
      expectOk(create(source, { source_revision_config: { agent_config_path: null } }));
    });
    it(`must be null when patching a ${source} deployment`, () => {
      expectOnlyIssue(
        validatePatchRequest(
          { source_revision_config: { agent_config_path: "agent.json" } },
          deployment(source),
        ),
        ["source_revision_config", "agent_config_path"],
        msg,
      );
    });
  }
  it("must be null when revision_source is internal_container, even on a built deployment", () => {
    const patch = {
      revision_source: "internal_container",
      source_revision_config: { agent_config_path: "agent.json" },
    };
    for (const current of ["gitrepo", "internal_source"] as const) {
      expectOnlyIssue(
        validatePatchRequest(patch, deployment(current)),
        ["source_revision_config", "agent_config_path"],
        /must be null for internal_container deployments/,
      );
    }
  });
  it("is accepted when revision_source is a built source, even on a container deployment", () => {
    const patch = {
      revision_source: "internal_source",
      source_revision_config: {
        agent_config_path: "agent.json",
        source_tarball_path: "uploads/x/src.tar.gz",
      },
    };
    expectOk(validatePatchRequest(patch, deployment("internal_container")));
  });
  it("is not required on patch", () => {
    expectOk(
      validatePatchRequest({ source_revision_config: { repo_ref: "develop" } }, deployment("gitrepo")),
    );
  });
});

// --- required on create ---------------------------------------------------------------------

describe("required on create", () => {
  it("lists what each source needs beyond agent_config_path", () => {
    const required = Object.fromEntries(
      Object.entries(REQUIRED_ON_CREATE).map(([source, fields]) => [
        source,
        fields!.map(([parent, field]) => `${parent}.${field}`),
      ]),
    );
    expect(required).toEqual({
      gitrepo: ["source_config.integration_id", "source_config.repo_url"],
      external_container: ["source_revision_config.image_uri"],
    });
  });
  it("gitrepo needs integration_id", () => {
    expectOnlyIssue(
      create("gitrepo", { source_config: { integration_id: null } }),
      ["source_config", "integration_id"],
      /is required for gitrepo deployments: the git integration's ID, from the integration listing/,
      "missing",
    );
  });
  it("gitrepo needs repo_url", () => {
    expectOnlyIssue(
      create("gitrepo", { source_config: { repo_url: null } }),
      ["source_config", "repo_url"],
      /is required for gitrepo deployments: the git repository URL/,
      "missing",
    );
  });
  it("external_container needs image_uri", () => {
    expectOnlyIssue(
      create("external_container", { source_revision_config: { image_uri: null } }),
      ["source_revision_config", "image_uri"],
      /is required for external_container deployments: the container image URI/,
      "missing",
    );
  });
  it("reports every missing field at once", () => {
    const result = validateCreateRequest({
      name: "a",
      source: "gitrepo",
      source_config: {},
      source_revision_config: {},
      secrets: [],
    });
    expect(issuesOf(result).map((i) => i.loc.join("."))).toEqual(
      expect.arrayContaining([
        "body.source_config.integration_id",
        "body.source_config.repo_url",
        "body.source_revision_config.agent_config_path",
      ]),
    );
  });
});

// --- resource_spec --------------------------------------------------------------------------

function withSpec(spec: Json): Validated<unknown> {
  return create("external_container", { source_config: { resource_spec: spec } });
}
const SPEC: Loc = ["source_config", "resource_spec"];

describe("resource_spec CPU bounds (spec 2.4 and 8)", () => {
  for (const field of ["cpu", "queue_cpu", "redis_cpu"]) {
    it(`${field}: 0.1 to 8 cores`, () => {
      for (const ok of [0.1, 0.5, 1, 7.99, 8]) expectOk(withSpec({ [field]: ok }));
      for (const bad of [0.09, 0, -1, 8.01, 9, 16]) {
        expectOnlyIssue(
          withSpec({ [field]: bad }),
          [...SPEC, field],
          /must be between 0\.1 and 8 cores/,
          "value_error",
        );
      }
    });
  }
  for (const field of ["cpu_limit", "queue_cpu_limit", "redis_cpu_limit"]) {
    it(`${field}: 0.1 to 16 cores`, () => {
      for (const ok of [0.1, 8, 8.01, 15.99, 16]) expectOk(withSpec({ [field]: ok }));
      for (const bad of [0.09, 0, 16.01, 17, 32]) {
        expectOnlyIssue(
          withSpec({ [field]: bad }),
          [...SPEC, field],
          /must be between 0\.1 and 16 cores/,
          "value_error",
        );
      }
    });
  }
  it("applies the bounds on patch too", () => {
    const result = validatePatchRequest(
      { source_config: { resource_spec: { cpu: 8.01 } } },
      deployment("external_container"),
    );
    expectOnlyIssue(result, [...SPEC, "cpu"], /between 0\.1 and 8 cores/);
  });
});

describe("resource_spec limits and scales", () => {
  const pairs: [string, string, number, number][] = [
    ["cpu", "cpu_limit", 2, 1],
    ["memory_mb", "memory_limit_mb", 512, 256],
    ["queue_cpu", "queue_cpu_limit", 2, 1],
    ["queue_memory_mb", "queue_memory_limit_mb", 512, 256],
    ["redis_cpu", "redis_cpu_limit", 1, 0.5],
    ["redis_memory_mb", "redis_memory_limit_mb", 512, 256],
    ["db_cpu", "db_cpu_limit", 1, 0.5],
    ["db_memory_mb", "db_memory_limit_mb", 1024, 512],
  ];
  for (const [request, limit, high, low] of pairs) {
    it(`${limit} below ${request} is refused; equal or above is accepted`, () => {
      expectOnlyIssue(
        withSpec({ [request]: high, [limit]: low }),
        [...SPEC, limit],
        new RegExp(
          `must be at least ${request} \\(${high}\\); a limit below its request cannot be scheduled`,
        ),
        "value_error",
      );
      expectOk(withSpec({ [request]: high, [limit]: high }));
      expectOk(withSpec({ [request]: low, [limit]: high }));
    });
  }
  it("compares CPU after rounding to one decimal, as the service stores it", () => {
    // 0.26 and 0.25 both round to 0.3.
    expectOk(withSpec({ cpu: 0.26, cpu_limit: 0.25 }));
    // 0.15 rounds to 0.2, 0.14 to 0.1.
    expectIssue(withSpec({ cpu: 0.15, cpu_limit: 0.14 }), [...SPEC, "cpu_limit"], /must be at least cpu/);
  });
  it("compares db_cpu with db_cpu_limit exactly, as neither is rounded when stored", () => {
    // Only cpu, queue_cpu and redis_cpu (and their limits) have one decimal (spec 8);
    // withResourceDefaults keeps db values exact, so 1.0 cannot hold a request of 1.04.
    expectIssue(
      withSpec({ db_cpu: 1.04, db_cpu_limit: 1 }),
      [...SPEC, "db_cpu_limit"],
      /must be at least db_cpu/,
    );
    expectIssue(
      withSpec({ db_cpu: 0.02, db_cpu_limit: 0.01 }),
      [...SPEC, "db_cpu_limit"],
      /must be at least db_cpu/,
    );
  });
  it("refuses a limit below a request that takes its default (queue_cpu defaults to cpu, queue_memory_mb to memory_mb)", () => {
    // Stored as queue_cpu 4, queue_cpu_limit 2: a limit below its request (spec 2.4 defaults).
    expectIssue(withSpec({ cpu: 4, queue_cpu_limit: 2 }), [...SPEC, "queue_cpu_limit"], /must be at least/);
    expectIssue(
      withSpec({ memory_mb: 1024, queue_memory_limit_mb: 512 }),
      [...SPEC, "queue_memory_limit_mb"],
      /must be at least/,
    );
  });
  for (const [min, max] of [
    ["min_scale", "max_scale"],
    ["queue_min_scale", "queue_max_scale"],
    ["orchestrator_min_scale", "orchestrator_max_scale"],
  ] as const) {
    it(`${min} above ${max} is refused`, () => {
      expectOnlyIssue(
        withSpec({ [min]: 3, [max]: 2 }),
        [...SPEC, max],
        new RegExp(`must be at least ${min} \\(3\\)`),
        "value_error",
      );
      expectOk(withSpec({ [min]: 2, [max]: 2 }));
      expectOk(withSpec({ [min]: 0, [max]: 5 }));
    });
  }
});

describe("resource_spec volumes and containers", () => {
  const MOUNT_MSG = /names no volume: 'data' must match a name under resource_spec\.volumes/;
  it("volume_mounts must name a volume", () => {
    expectOnlyIssue(
      withSpec({ volume_mounts: [{ name: "data", mountPath: "/data" }] }),
      [...SPEC, "volume_mounts", 0, "name"],
      MOUNT_MSG,
    );
    expectOnlyIssue(
      withSpec({
        volumes: [{ name: "cache", emptyDir: {} }],
        volume_mounts: [
          { name: "cache", mountPath: "/c" },
          { name: "data", mountPath: "/data" },
        ],
      }),
      [...SPEC, "volume_mounts", 1, "name"],
      MOUNT_MSG,
    );
    expectOk(
      withSpec({
        volumes: [{ name: "data", emptyDir: {} }],
        volume_mounts: [{ name: "data", mountPath: "/data" }],
      }),
    );
  });
  it("a container's volumeMounts must name a volume", () => {
    const sidecar = { name: "proxy", image: "envoy:1", volumeMounts: [{ name: "data", mountPath: "/data" }] };
    expectOnlyIssue(
      withSpec({ sidecars: [sidecar] }),
      [...SPEC, "sidecars", 0, "volumeMounts", 0, "name"],
      MOUNT_MSG,
    );
    expectOnlyIssue(
      withSpec({ init_containers: [sidecar] }),
      [...SPEC, "init_containers", 0, "volumeMounts", 0, "name"],
      MOUNT_MSG,
    );
    expectOk(withSpec({ volumes: [{ name: "data", emptyDir: {} }], sidecars: [sidecar] }));
  });
  it("volume names are unique", () => {
    expectOnlyIssue(
      withSpec({
        volumes: [
          { name: "data", emptyDir: {} },
          { name: "data", emptyDir: {} },
        ],
      }),
      [...SPEC, "volumes", 1, "name"],
      /duplicates volume name 'data'; names must be unique within the pod/,
    );
  });
  it("container names are unique across init_containers and sidecars", () => {
    const a = { name: "helper", image: "busybox" };
    expectOnlyIssue(
      withSpec({ init_containers: [a], sidecars: [a] }),
      [...SPEC, "sidecars", 0, "name"],
      /duplicates container name 'helper'; names must be unique/,
    );
    expectOnlyIssue(
      withSpec({ sidecars: [a, { ...a, image: "other" }] }),
      [...SPEC, "sidecars", 1, "name"],
      /duplicates container name 'helper'/,
    );
    expectOnlyIssue(
      withSpec({ init_containers: [a, a] }),
      [...SPEC, "init_containers", 1, "name"],
      /duplicates container name 'helper'/,
    );
    expectOk(withSpec({ init_containers: [a], sidecars: [{ ...a, name: "helper-2" }] }));
  });
  it("EnvVar valueFrom cannot be used with a non-empty value", () => {
    const env = (value: string | null | undefined) => ({
      sidecars: [
        {
          name: "s",
          image: "i",
          env: [
            { name: "OK", value: "1" },
            { name: "X", value, valueFrom: { secretKeyRef: { name: "s", key: "k" } } },
          ],
        },
      ],
    });
    expectOnlyIssue(
      withSpec(env("v")),
      [...SPEC, "sidecars", 0, "env", 1, "valueFrom"],
      /cannot be used when value is non-empty; give one of value or valueFrom/,
    );
    expectOk(withSpec(env("")));
    expectOk(withSpec(env(null)));
    expectOk(withSpec(env(undefined)));
  });
});

describe("listener_config", () => {
  it("k8s_namespace needs a listener_id", () => {
    expectOnlyIssue(
      create("external_container", { source_config: { listener_config: { k8s_namespace: "team-a" } } }),
      ["source_config", "listener_config", "k8s_namespace"],
      /needs a listener: give source_config\.listener_id/,
    );
    expectOk(
      create("external_container", {
        source_config: { listener_id: LISTENER_ID, listener_config: { k8s_namespace: "team-a" } },
      }),
    );
  });
});

// --- secrets --------------------------------------------------------------------------------

describe("secrets and secret_references", () => {
  const s = (name: string) => ({ name, value: "v" });
  const r = (name: string) => ({ name, secret_name: "k8s-secret", secret_key: "key" });
  it("duplicate secret names are refused", () => {
    expectOnlyIssue(
      create("gitrepo", { secrets: [s("A"), s("B"), s("A")] }),
      ["secrets", 2, "name"],
      /duplicates secret 'A'; each name may appear once/,
    );
    expectOnlyIssue(
      validatePatchRequest({ secrets: [s("A"), s("A")] }, deployment("gitrepo")),
      ["secrets", 1, "name"],
      /duplicates secret 'A'/,
    );
  });
  it("duplicate secret references are refused", () => {
    expectOnlyIssue(
      create("external_container", { secret_references: [r("A"), r("A")] }),
      ["secret_references", 1, "name"],
      /duplicates secret reference 'A'/,
    );
  });
  it("a secret_reference cannot shadow a secret (create)", () => {
    expectOnlyIssue(
      create("external_container", { secrets: [s("TOKEN")], secret_references: [r("OTHER"), r("TOKEN")] }),
      ["secret_references", 1, "name"],
      /'TOKEN' is already set by secrets; one environment variable cannot come from both/,
    );
    expectOk(create("external_container", { secrets: [s("TOKEN")], secret_references: [r("OTHER")] }));
  });
  it("a secret_reference cannot shadow a secret, one side from the deployment (patch)", () => {
    const withRef = deployment("external_container", { secret_references: [r("TOKEN")] });
    expectOnlyIssue(
      validatePatchRequest({ secrets: [s("TOKEN")] }, withRef),
      ["secret_references", 0, "name"],
      /already set by secrets/,
    );
    const withSecret = deployment("external_container", { secrets: [s("TOKEN")] });
    expectOnlyIssue(
      validatePatchRequest({ secret_references: [r("TOKEN")] }, withSecret),
      ["secret_references", 0, "name"],
      /already set by secrets/,
    );
    // A null secret_references, like an absent one, leaves the deployment's in place.
    expectOnlyIssue(
      validatePatchRequest({ secrets: [s("TOKEN")], secret_references: null }, withRef),
      ["secret_references", 0, "name"],
      /already set by secrets/,
    );
    // An empty list removes them, and the clash with them.
    expectOk(validatePatchRequest({ secrets: [s("TOKEN")], secret_references: [] }, withRef));
    // Replacing the secrets removes the clash.
    expectOk(validatePatchRequest({ secrets: [s("OTHER")], secret_references: [r("TOKEN")] }, withSecret));
  });
});

// --- PATCH: non-changeable and read-only fields ---------------------------------------------

describe("non-changeable PATCH fields (spec 2.2)", () => {
  it("lists exactly the fields of spec 2.2", () => {
    expect(NON_CHANGEABLE_FIELDS.map((p) => p.join("."))).toEqual([
      "source_config.integration_id",
      "source_config.repo_url",
      "source_config.deployment_type",
      "source_config.listener_id",
      "source_config.listener_config.k8s_namespace",
    ]);
  });
  const IMMUTABLE =
    /cannot be changed after creation \(it is .*\); create a new deployment to use another value/;
  const git = deployment("gitrepo", { source_config: { deployment_type: "dev" } });
  const ext = deployment("external_container", {
    source_config: { listener_id: LISTENER_ID, listener_config: { k8s_namespace: "team-a" } },
  });
  const cases: [string, DeploymentT, Json, Json][] = [
    ["integration_id", git, { integration_id: OTHER_UUID }, { integration_id: INTEGRATION_ID }],
    [
      "repo_url",
      git,
      { repo_url: "https://github.com/acme/other" },
      { repo_url: "https://github.com/acme/agent" },
    ],
    ["deployment_type", git, { deployment_type: "prod" }, { deployment_type: "dev" }],
    ["listener_id", ext, { listener_id: OTHER_UUID }, { listener_id: LISTENER_ID }],
  ];
  for (const [field, current, changed, same] of cases) {
    it(`${field}: refused when different, accepted when equal or null`, () => {
      const hit = expectIssue(
        validatePatchRequest({ source_config: changed }, current),
        ["source_config", field],
        IMMUTABLE,
        "immutable",
      );
      expect(hit.msg).toContain(JSON.stringify((current.source_config as Json)[field]));
      expect(issuesOf(validatePatchRequest({ source_config: changed }, current))).toHaveLength(1);
      expectOk(validatePatchRequest({ source_config: same }, current));
      expectOk(validatePatchRequest({ source_config: { [field]: null } }, current));
    });
  }
  it("listener_config.k8s_namespace: refused when different, accepted when equal", () => {
    expectOnlyIssue(
      validatePatchRequest({ source_config: { listener_config: { k8s_namespace: "team-b" } } }, ext),
      ["source_config", "listener_config", "k8s_namespace"],
      /cannot be changed after creation \(it is "team-a"\)/,
      "immutable",
    );
    expectOk(validatePatchRequest({ source_config: { listener_config: { k8s_namespace: "team-a" } } }, ext));
  });
  it("compares IDs without regard to case", () => {
    expectOk(validatePatchRequest({ source_config: { integration_id: INTEGRATION_ID.toUpperCase() } }, git));
    expectOk(validatePatchRequest({ source_config: { listener_id: LISTENER_ID.toUpperCase() } }, ext));
    // Other fixed values compare exactly.
    expectIssue(
      validatePatchRequest({ source_config: { repo_url: "https://github.com/ACME/agent" } }, git),
      ["source_config", "repo_url"],
      IMMUTABLE,
    );
  });
  it("setting a field the deployment does not have counts as a change", () => {
    expectIssue(
      validatePatchRequest(
        { source_config: { integration_id: INTEGRATION_ID } },
        deployment("external_container"),
      ),
      ["source_config", "integration_id"],
      /cannot be changed after creation \(it is unset\)/,
    );
  });
});

describe("custom_url on gitrepo is read-only", () => {
  it("is refused on create", () => {
    expectOnlyIssue(
      create("gitrepo", { source_config: { custom_url: "https://x.example.com" } }),
      ["source_config", "custom_url"],
      /is set by the service for gitrepo deployments and is read-only; remove it/,
    );
  });
  it("is refused on patch when different, accepted when equal to the service's value", () => {
    const current = deployment("gitrepo", { source_config: { custom_url: "https://svc.example.com" } });
    expectOnlyIssue(
      validatePatchRequest({ source_config: { custom_url: "https://x.example.com" } }, current),
      ["source_config", "custom_url"],
      /is set by the service for gitrepo deployments and is read-only/,
      "read_only",
    );
    expectOk(validatePatchRequest({ source_config: { custom_url: "https://svc.example.com" } }, current));
  });
  it("is settable for external_container", () => {
    expectOk(create("external_container", { source_config: { custom_url: "https://x.example.com" } }));
    expectOk(
      validatePatchRequest(
        { source_config: { custom_url: "https://y.example.com" } },
        deployment("external_container"),
      ),
    );
  });
});

// --- revision triggers ----------------------------------------------------------------------

describe("revisionTriggers / patchTriggersRevision (spec section 3)", () => {
  const triggers: [string, PatchRequest][] = [
    ["source_revision_config.repo_ref", { source_revision_config: { repo_ref: "main" } }],
    [
      "source_revision_config.agent_config_path",
      { source_revision_config: { agent_config_path: "agent.json" } },
    ],
    ["source_revision_config.image_uri", { source_revision_config: { image_uri: "img:1" } }],
    [
      "source_revision_config.source_tarball_path",
      { source_revision_config: { source_tarball_path: "uploads/x" } },
    ],
    ["source_config.resource_spec", { source_config: { resource_spec: {} } }],
    ["secrets", { secrets: [] }],
  ];
  it("covers the six triggers of the spec", () => {
    expect(REVISION_TRIGGERS.map((p) => p.join("."))).toEqual(triggers.map(([path]) => path));
  });
  for (const [path, patch] of triggers) {
    it(`${path} non-null triggers a revision`, () => {
      expect(revisionTriggers(patch)).toEqual([path]);
      expect(patchTriggersRevision(patch)).toBe(true);
    });
    it(`${path} null or absent does not`, () => {
      const parts = path.split(".");
      const nulled: Json =
        parts.length === 1 ? { [parts[0]!]: null } : { [parts[0]!]: { [parts[1]!]: null } };
      expect(revisionTriggers(nulled as PatchRequest)).toEqual([]);
      expect(patchTriggersRevision(nulled as PatchRequest)).toBe(false);
    });
  }
  it("nothing, null parents and other fields do not trigger", () => {
    const quiet: PatchRequest[] = [
      {},
      { source_config: null, source_revision_config: null, secrets: null },
      { source_config: { build_on_push: true } },
      { source_config: { install_command: "pnpm i", build_command: "pnpm build", custom_url: "https://x" } },
      { secret_references: [{ name: "A", secret_name: "s", secret_key: "k" }] },
      { revision_source: "gitrepo" },
    ];
    for (const patch of quiet) {
      expect(revisionTriggers(patch), JSON.stringify(patch)).toEqual([]);
      expect(patchTriggersRevision(patch)).toBe(false);
    }
  });
  it("lists every trigger of a patch, in order", () => {
    const patch: PatchRequest = {
      secrets: [{ name: "A", value: "1" }],
      source_config: { resource_spec: { cpu: 1 }, build_on_push: false },
      source_revision_config: { image_uri: "img:2", repo_ref: "dev" },
    };
    expect(revisionTriggers(patch)).toEqual([
      "source_revision_config.repo_ref",
      "source_revision_config.image_uri",
      "source_config.resource_spec",
      "secrets",
    ]);
  });
});

// --- schema and rule problems together ------------------------------------------------------

describe("schema and rule problems are reported together", () => {
  it("a malformed field does not hide a rule broken elsewhere (create)", () => {
    const result = create("external_container", {
      source_config: { resource_spec: { cpu: "x" } },
      source_revision_config: { agent_config_path: "agent.json" },
    });
    expectIssue(result, [...SPEC, "cpu"], /must be a number, not a string \("x"\)/);
    expectIssue(
      result,
      ["source_revision_config", "agent_config_path"],
      /must be null for external_container/,
    );
    expect(issuesOf(result)).toHaveLength(2);
  });
  it("a malformed field does not hide a rule broken elsewhere (patch)", () => {
    const result = validatePatchRequest(
      {
        source_config: { resource_spec: { cpu: 99 } },
        source_revision_config: { agent_config_path: "agent.json" },
      },
      deployment("external_container"),
    );
    expectIssue(result, [...SPEC, "cpu"], /between 0\.1 and 8 cores/);
    expectIssue(result, ["source_revision_config", "agent_config_path"], /must be null/);
    expect(issuesOf(result)).toHaveLength(2);
  });
  it("a field is reported once, by the schema, when both find fault with it", () => {
    // Empty and not allowed for the source: the schema's message stands alone.
    expectOnlyIssue(
      create("external_container", { source_revision_config: { agent_config_path: "" } }),
      ["source_revision_config", "agent_config_path"],
      /^must not be empty$/,
    );
    // Malformed but present: not also reported as missing.
    expectOnlyIssue(
      create("gitrepo", { source_config: { repo_url: "" } }),
      ["source_config", "repo_url"],
      /^must not be empty$/,
    );
    expectOnlyIssue(
      create("gitrepo", { source_config: { integration_id: "nope" } }),
      ["source_config", "integration_id"],
      /must be a UUID/,
    );
  });
  it("rules are not run on a body whose outline is wrong", () => {
    const body = createBody("external_container", {
      source_revision_config: { agent_config_path: "agent.json" },
    });
    for (const broken of [{ source: "docker" }, { source_config: "x" }, { secrets: null }]) {
      const issues = issuesOf(validateCreateRequest({ ...body, ...broken }));
      expect(issues.map((i) => i.loc[1])).not.toContain("source_revision_config");
    }
  });
});
