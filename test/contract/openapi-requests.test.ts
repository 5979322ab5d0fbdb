// Contract test: every create and patch body the CLI's model accepts (validateCreateRequest,
// validatePatchRequest: what cpctl checks before it sends) validates against the request
// schemas of the hosted service's published interface (test/fixtures/control-plane.openapi.json).
// The bodies are generated (fast-check, with the run's seed: test/helpers/fc-seed.ts) from
// every field of the spec, each source with the fields its source allows, so that the model
// accepts most of them; the ones it refuses are not what cpctl sends and are skipped, with a
// floor on how many were accepted so the test cannot pass on nothing.
//
// The document's request schemas are looser than the spec's rules (which source allows which
// field, required fields per source, limits not below requests): the spec wins, the model is
// stricter, and what it accepts must still fit the document. That is the direction checked.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/client.js";
import { deleteDeployments, listDeploymentsDated } from "../../src/api/endpoints.js";
import type { Transport } from "../../src/api/transport.js";
import { BULK_DELETE_MAX, SOURCES, type Source } from "../../src/model/enums.js";
import type { DeploymentT } from "../../src/model/responses.js";
import { REVISION_FIELD_SOURCES, SOURCE_CONFIG_FIELD_SOURCES } from "../../src/model/rules.js";
import { validateCreateRequest, validatePatchRequest } from "../../src/model/validate.js";
import { checkQuery, checkRequest } from "../helpers/openapi.js";

const CREATE = { method: "POST", path: "/v2/deployments" };
const PATCH = { method: "PATCH", path: "/v2/deployments/{deployment_id}" };
const RUNS = 300;

type Json = Record<string, unknown>;

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 3 });
/** Absent, null or a value: a request field is nullable, and absent means null. */
const nullish = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 1, arbitrary: fc.constantFrom(undefined, null) }, { weight: 3, arbitrary });
const withoutUndefined = (value: Json): Json =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));

const dnsLabel = fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/);
const envName = fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,12}$/);
const text = fc.string({ minLength: 1, maxLength: 20 });
const stringMap = fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9./-]{0,15}$/), fc.string({ maxLength: 10 }), {
  maxKeys: 3,
});
const freeForm = fc.dictionary(fc.stringMatching(/^[a-zA-Z]{1,8}$/), fc.jsonValue({ maxDepth: 2 }), {
  maxKeys: 2,
});
const cores = (min: number, max: number) => fc.integer({ min: min * 10, max: max * 10 }).map((n) => n / 10);

const volumeMount = fc
  .record({
    name: dnsLabel,
    mountPath: fc.constantFrom("/data", "/tmp/x", "/etc/agent"),
    subPath: maybe(text),
    mountPropagation: maybe(fc.constantFrom("None", "HostToContainer")),
    readOnly: maybe(fc.boolean()),
    subPathExpr: maybe(text),
  })
  .map(withoutUndefined);

const container = fc
  .record({
    name: dnsLabel,
    image: fc.constantFrom("envoyproxy/envoy:v1.30", "registry.example.com/tool:1"),
    imagePullPolicy: maybe(fc.constantFrom("Always", "Never", "IfNotPresent")),
    command: maybe(fc.array(text, { maxLength: 3 })),
    args: maybe(fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 })),
    workingDir: maybe(fc.constantFrom("/app", "/")),
    env: maybe(
      fc.array(
        fc
          .record({ name: envName, value: maybe(fc.option(fc.string({ maxLength: 8 }), { nil: null })) })
          .map(withoutUndefined),
        { maxLength: 3 },
      ),
    ),
    envFrom: maybe(fc.array(freeForm, { maxLength: 2 })),
    resources: maybe(
      fc.record({ limits: nullish(stringMap), requests: nullish(stringMap) }).map(withoutUndefined),
    ),
    volumeMounts: maybe(fc.array(volumeMount, { maxLength: 2 })),
    securityContext: maybe(freeForm),
    restartPolicy: maybe(fc.constantFrom("Always", "OnFailure")),
  })
  .map(withoutUndefined);

/** A request with its limit at or above it (the model refuses a limit below its request). */
const cpuPair = (request: string, limit: string) =>
  fc.tuple(cores(0.1, 8), fc.option(cores(0, 8), { nil: undefined })).map(([cpu, extra]) => ({
    [request]: cpu,
    ...(extra === undefined ? {} : { [limit]: Math.min(16, Math.round((cpu + extra) * 10) / 10) }),
  }));
const memoryPair = (request: string, limit: string) =>
  fc
    .tuple(
      fc.integer({ min: 1, max: 65536 }),
      fc.option(fc.integer({ min: 0, max: 4096 }), { nil: undefined }),
    )
    .map(([mb, extra]) => ({ [request]: mb, ...(extra === undefined ? {} : { [limit]: mb * 2 + extra }) }));
const scalePair = (min: string, max: string) =>
  fc
    .tuple(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 10 }))
    .map(([a, b]) => ({ [min]: a, [max]: a + b }));

const resourceSpec = fc
  .record({
    main: maybe(
      fc.tuple(
        cpuPair("cpu", "cpu_limit"),
        memoryPair("memory_mb", "memory_limit_mb"),
        scalePair("min_scale", "max_scale"),
      ),
    ),
    queue: maybe(
      fc.tuple(
        cpuPair("queue_cpu", "queue_cpu_limit"),
        memoryPair("queue_memory_mb", "queue_memory_limit_mb"),
      ),
    ),
    redis: maybe(
      fc.tuple(
        cpuPair("redis_cpu", "redis_cpu_limit"),
        memoryPair("redis_memory_mb", "redis_memory_limit_mb"),
      ),
    ),
    db: maybe(
      fc.record({
        db_cpu: cores(0.1, 4),
        db_memory_mb: fc.integer({ min: 1, max: 8192 }),
        db_storage_gi: fc.integer({ min: 1, max: 100 }),
        db_max_connections: fc.integer({ min: 1, max: 500 }),
      }),
    ),
    rest: fc
      .record({
        labels: maybe(stringMap),
        annotations: maybe(stringMap),
        service_account_name: maybe(dnsLabel),
        image_pull_secrets: maybe(fc.array(fc.record({ name: dnsLabel }), { maxLength: 2 })),
        volumes: maybe(
          fc.array(fc.record({ name: dnsLabel, emptyDir: maybe(freeForm) }).map(withoutUndefined), {
            maxLength: 2,
          }),
        ),
        volume_mounts: maybe(fc.array(volumeMount, { maxLength: 2 })),
        init_containers: maybe(fc.array(container, { maxLength: 2 })),
        sidecars: maybe(fc.array(container, { maxLength: 2 })),
      })
      .map(withoutUndefined),
  })
  .map(({ main, queue, redis, db, rest }) => ({
    ...Object.assign({}, ...(main ?? []), ...(queue ?? []), ...(redis ?? [])),
    ...db,
    ...rest,
  }));

const secrets = fc.uniqueArray(
  fc.record({ name: envName, value: fc.string({ minLength: 1, maxLength: 12 }) }),
  {
    selector: (s) => s.name,
    maxLength: 3,
  },
);
const secretReferences = fc.uniqueArray(
  fc.record({ name: fc.stringMatching(/^REF_[A-Z]{1,6}$/), secret_name: dnsLabel, secret_key: text }),
  { selector: (s) => s.name, maxLength: 2 },
);

/** Every source_config / source_revision_config field with a value the spec allows. */
const SOURCE_CONFIG_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  integration_id: fc.uuid(),
  repo_url: fc.constantFrom("https://github.com/acme/agent", "git@github.com:acme/agent.git"),
  deployment_type: fc.constantFrom("dev_free", "dev", "prod"),
  build_on_push: fc.boolean(),
  custom_url: fc.constantFrom("https://agent.example.com"),
  resource_spec: resourceSpec,
  listener_id: fc.uuid(),
  listener_config: fc.record({ k8s_namespace: nullish(dnsLabel) }).map(withoutUndefined),
  install_command: fc.constantFrom(
    "npm ci",
    "yarn install --frozen-lockfile",
    "pip install -r requirements.txt",
  ),
  build_command: fc.constantFrom("npm run build", "make"),
};
const REVISION_CONFIG_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  repo_ref: fc.constantFrom("main", "release/2.0", "refs/tags/v1.2.3"),
  agent_config_path: fc.constantFrom("agent.json", "agents/support/agent.json"),
  image_uri: fc.constantFrom(
    "registry.example.com/agent:1.0.0",
    "docker.io/acme/agent@sha256:" + "a".repeat(64),
  ),
  source_tarball_path: fc.constantFrom("uploads/t/d/u.tar.gz"),
};

/** The fields `source` allows, each absent, null or a value; `required` always set. */
function configFor(
  source: Source,
  table: Record<string, readonly Source[]>,
  values: Record<string, fc.Arbitrary<unknown>>,
  required: readonly string[],
): fc.Arbitrary<Json> {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [field, sources] of Object.entries(table)) {
    if (!sources.includes(source)) continue;
    fields[field] = required.includes(field) ? values[field]! : nullish(values[field]!);
  }
  return fc.record(fields).map(withoutUndefined);
}

const REQUIRED: Record<Source, string[]> = {
  gitrepo: ["integration_id", "repo_url", "agent_config_path"],
  external_container: ["image_uri"],
  internal_container: [],
  internal_source: ["agent_config_path"],
};

const createBody = fc.constantFrom(...SOURCES).chain((source) =>
  fc
    .record({
      name: fc.stringMatching(/^[a-z][a-z0-9 _.-]{0,30}[a-z0-9]$/),
      source: fc.constant(source),
      source_config: configFor(source, SOURCE_CONFIG_FIELD_SOURCES, SOURCE_CONFIG_VALUES, REQUIRED[source]),
      source_revision_config: configFor(
        source,
        REVISION_FIELD_SOURCES,
        REVISION_CONFIG_VALUES,
        REQUIRED[source],
      ),
      secrets,
      secret_references: source === "external_container" ? nullish(secretReferences) : fc.constant(undefined),
    })
    .map(withoutUndefined),
);

/** The deployment a patch applies to, for each source: what the model checks a patch against. */
function currentDeployment(source: Source): DeploymentT {
  return {
    name: `current-${source}`,
    source,
    source_config: {
      integration_id: source === "gitrepo" ? "7c0e7c52-1b1f-4c36-a0cf-5d2b6c0a0c13" : null,
      repo_url: source === "gitrepo" ? "https://github.com/acme/agent" : null,
      deployment_type: source === "gitrepo" ? "dev" : null,
      listener_id: source === "external_container" ? "7c0e7c52-1b1f-4c36-a0cf-5d2b6c0a0c14" : null,
    },
    source_revision_config: {
      repo_ref: source === "gitrepo" ? "main" : null,
      agent_config_path: source === "gitrepo" || source === "internal_source" ? "agent.json" : null,
      image_uri: source.endsWith("container") ? "registry.example.com/agent:1" : null,
    },
    secrets: [{ name: "EXISTING", value: "x" }],
    secret_references: null,
    id: "7c0e7c52-1b1f-4c36-a0cf-5d2b6c0a0c11",
    tenant_id: "7c0e7c52-1b1f-4c36-a0cf-5d2b6c0a0c12",
    created_at: "2025-01-01T00:00:00.000Z",
    updated_at: "2025-01-01T00:00:00.000Z",
    status: "READY",
    latest_revision_id: null,
    active_revision_id: null,
  } as DeploymentT;
}

const patchBody = fc.constantFrom(...SOURCES).chain((source) => {
  // A patch may not change what is fixed at creation: those fields are left out (or the same).
  const fixed = ["integration_id", "repo_url", "deployment_type", "listener_id", "listener_config"];
  const changeable = Object.fromEntries(
    Object.entries(SOURCE_CONFIG_FIELD_SOURCES).filter(([f]) => !fixed.includes(f)),
  );
  return fc.tuple(
    fc.constant(source),
    fc
      .record({
        revision_source:
          source === "external_container" ? fc.constant(undefined) : nullish(fc.constant(source)),
        source_config: nullish(configFor(source, changeable, SOURCE_CONFIG_VALUES, [])),
        source_revision_config: nullish(
          configFor(source, REVISION_FIELD_SOURCES, REVISION_CONFIG_VALUES, []),
        ),
        secrets: nullish(secrets),
        secret_references:
          source === "external_container" ? nullish(secretReferences) : fc.constant(undefined),
      })
      .map(withoutUndefined),
  );
});

describe("request bodies the model accepts validate against the document's request schemas", () => {
  it("create: POST /v2/deployments (DeploymentCreateRequest)", () => {
    let accepted = 0;
    const perSource = new Map<string, number>();
    fc.assert(
      fc.property(createBody, (body) => {
        const checked = validateCreateRequest(body);
        if (!checked.ok) return;
        accepted++;
        perSource.set(body.source as string, (perSource.get(body.source as string) ?? 0) + 1);
        expect(checkRequest(CREATE, body), JSON.stringify(body)).toBeNull();
        expect(checkRequest(CREATE, checked.value)).toBeNull();
      }),
      { numRuns: RUNS },
    );
    // Most generated bodies are valid by construction; a floor keeps the test from passing on nothing.
    expect(accepted).toBeGreaterThan(RUNS / 3);
    expect([...perSource.keys()].sort()).toEqual([...SOURCES].sort());
  });

  it("patch: PATCH /v2/deployments/{deployment_id} (DeploymentPatchRequest)", () => {
    let accepted = 0;
    fc.assert(
      fc.property(patchBody, ([source, body]) => {
        const checked = validatePatchRequest(body, currentDeployment(source));
        if (!checked.ok) return;
        accepted++;
        expect(checkRequest(PATCH, body), JSON.stringify(body)).toBeNull();
        expect(checkRequest(PATCH, checked.value)).toBeNull();
      }),
      { numRuns: RUNS },
    );
    expect(accepted).toBeGreaterThan(RUNS / 3);
  });

  it("the document's schemas are not vacuous: they refuse what the service would", () => {
    expect(checkRequest(CREATE, {})).toMatch(/must have required property 'name'/);
    expect(
      checkRequest(CREATE, {
        name: "a",
        source: "ftp",
        source_config: {},
        source_revision_config: {},
        secrets: [],
      }),
    ).toMatch(/source/);
    expect(
      checkRequest(CREATE, {
        name: "a",
        source: "external_container",
        source_config: { listener_id: "nope", resource_spec: { cpu: 9 } },
        source_revision_config: {},
        secrets: [],
      }),
    ).toMatch(/listener_id[\s\S]*uuid|uuid[\s\S]*cpu|cpu[\s\S]*uuid/);
    expect(checkRequest(PATCH, { revision_source: "external_container" })).not.toBeNull();
  });
});

describe("query strings the CLI sends validate against the document's parameters", () => {
  /** A client whose requests are recorded and answered at once, as `answer` says. */
  function recording(answer: { status: number; body: string }) {
    const urls: URL[] = [];
    const transport: Transport = async (request) => {
      urls.push(new URL(request.url));
      return {
        status: answer.status,
        headers: { "content-type": "application/json" },
        body: Buffer.from(answer.body),
      };
    };
    const api = new ApiClient({
      baseUrl: "http://127.0.0.1:9",
      credentials: { apiKey: "k" },
      requestTimeoutMs: 1000,
      userAgent: "cpctl-test",
      transport,
    });
    return { api, urls };
  }
  const ids = (n: number) =>
    Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`);
  const BULK = { method: "DELETE", path: "/v2/deployments" };

  it("bulk delete (deploy prune): deployment_ids repeated, at most 100", async () => {
    const { api, urls } = recording({ status: 200, body: "null" });
    await deleteDeployments(api, ids(BULK_DELETE_MAX));
    await deleteDeployments(api, ids(1));
    expect(urls.map((url) => url.pathname)).toEqual(["/v2/deployments", "/v2/deployments"]);
    expect(urls[0]!.searchParams.getAll("deployment_ids")).toEqual(ids(BULK_DELETE_MAX));
    for (const url of urls) expect(checkQuery(BULK, url.searchParams), url.search).toBeNull();
    // Not vacuous: what the document refuses.
    const over = new URLSearchParams(
      ids(BULK_DELETE_MAX + 1).map((id): [string, string] => ["deployment_ids", id]),
    );
    expect(checkQuery(BULK, over)).toMatch(/deployment_ids/);
    expect(checkQuery(BULK, new URLSearchParams())).toMatch(/required/);
    expect(checkQuery(BULK, new URLSearchParams([["deployment_ids", "x"]]))).toMatch(/uuid/);
  });

  it("the listing prune reads (name_contains, limit, offset)", async () => {
    const { api, urls } = recording({ status: 200, body: '{"resources":[],"offset":0}' });
    await listDeploymentsDated(api, { name_contains: "my-agent-pr-" }, { limit: 100, offset: 200 });
    const list = { method: "GET", path: "/v2/deployments" };
    expect(checkQuery(list, urls[0]!.searchParams)).toBeNull();
    expect(checkQuery(list, new URLSearchParams([["limit", "101"]]))).toMatch(/limit/);
  });
});
