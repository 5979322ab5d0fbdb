// Contract test: every answer the emulator gives on every endpoint the hosted service's
// published interface (test/fixtures/control-plane.openapi.json) describes validates against
// the document's schema for that path, method and status. One scenario drives the emulator
// through every endpoint and every state a deployment and its revisions go through (all four
// sources, every revision status, filters, errors 400/404/422), recording each answer.
//
// Where the document and the spec (shared/spec/control-plane-api.md, service-facts.md) differ,
// the spec wins: each difference is a test of its own in the last describe, saying which way
// the emulator goes and why. Answers the document does not describe at all (upload-url, the
// upload, push-token, the /v1/projects log calls) are checked against the model's schemas
// (src/model/responses.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ErrorDetailBody,
  LogPage,
  PushTokenResponse,
  UploadUrlResponse,
  ValidationErrorBody,
} from "../../src/model/responses.js";
import { startTestEmulator, type TestEmulator, type TestResponse } from "../helpers/emulator.js";
import { makeTestImage } from "../helpers/images.js";
import { buildLogsPath, deployLogsPath, tarball, upload } from "../helpers/logs.js";
import {
  checkResponse,
  documentedOperations,
  documentedStatuses,
  type OperationRef,
  openapi,
} from "../helpers/openapi.js";
import { pushToken, rawPush, repositoryOf } from "../helpers/registry.js";

const STAGE = 1000;
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

/**
 * Statuses the emulator answers that the document does not list for the operation. Each is
 * the spec's or the emulator's documented behaviour; the body is the spec's error shape.
 */
const UNDESCRIBED: { status: number; op?: OperationRef; why: string }[] = [
  {
    status: 401,
    why: "no credentials (spec 5, service-facts Authentication): the document names the security schemes but lists no 401",
  },
  {
    status: 409,
    op: { method: "POST", path: "/v2/deployments" },
    why: "names are unique per tenant (the emulator's rule, docs/emulator.md): the document lists 201, 400 and 422 only",
  },
  {
    status: 400,
    op: { method: "DELETE", path: "/v2/deployments/{deployment_id}" },
    why: "force-deleting a deployment still active is refused with 400 (service-facts, Newer endpoints): the document lists 204, 404 and 422 only",
  },
  {
    status: 409,
    op: { method: "DELETE", path: "/v2/listeners/{listener_id}" },
    why: "a listener that deployments use is not deleted, the deployments named (the emulator's rule, docs/emulator.md: service-facts is silent, and a deployment's listener is fixed at creation, so deleting it would strand them)",
  },
  {
    status: 404,
    op: { method: "GET", path: "/v2/deployment-logs" },
    why: "a deployment (or revision) unknown to the tenant is a 404 naming it, as on every deployment route: the document lists 200 and 422 only",
  },
];

/** Described statuses the scenario cannot bring about, and why. */
const NOT_PRODUCED: { status: number; op: OperationRef; why: string }[] = [
  {
    status: 400,
    op: { method: "POST", path: "/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy" },
    why: "redeploy takes no body (service-facts), so the emulator has nothing to find malformed",
  },
];

interface Recorded {
  op: OperationRef;
  status: number;
  response: TestResponse;
}

const key = (op: OperationRef) => `${op.method} ${op.path}`;

describe("every emulator answer validates against the published OpenAPI document", () => {
  let em: TestEmulator;
  const recorded: Recorded[] = [];
  const offDocument: { route: string; response: TestResponse }[] = [];

  /** Calls `template` with `params` substituted, records the answer. */
  async function call(
    method: string,
    template: string,
    params: Record<string, string> = {},
    options: { query?: string; body?: unknown; rawBody?: string; auth?: boolean | string } = {},
  ): Promise<TestResponse> {
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? `{${name}}`);
    const response = await em.request(method, `${path}${options.query ? `?${options.query}` : ""}`, {
      body: options.body,
      auth: options.auth,
      ...(options.rawBody !== undefined
        ? { rawBody: options.rawBody, headers: { "Content-Type": "application/json" } }
        : {}),
    });
    recorded.push({ op: { method, path: template }, status: response.status, response });
    return response;
  }

  /** A call to a route the document does not describe: checked against the model instead. */
  async function offCall(route: string, path: string, body?: unknown): Promise<TestResponse> {
    const response = await em.post(path, body);
    offDocument.push({ route, response });
    return response;
  }

  beforeAll(async () => {
    em = await startTestEmulator({ stageMs: STAGE });
    const seed = em.emulator.seed(em.tenantId);

    // --- discovery ---
    await call("GET", "/v1/integrations/gitrepo/install");
    await call("GET", "/v1/integrations/alt/gitrepo/install");
    for (const [alt, integration] of [
      ["", seed.integrations[0]!],
      ["/alt", seed.altIntegrations[0]!],
    ] as const) {
      const repos = `/v1/integrations${alt}/gitrepo/{integration_id}/repos`;
      await call("GET", repos, { integration_id: integration.id });
      await call("GET", repos, { integration_id: "not-a-uuid" });
    }
    await call("GET", "/v2/listeners");
    await call("GET", "/v2/listeners", {}, { query: "limit=1&offset=1" });
    await call("GET", "/v2/listeners", {}, { query: "limit=0" });

    // --- create: every source, with every family of fields its source allows ---
    const bodies = {
      gitrepo: {
        ...em.createBody("gitrepo", "contract-git"),
        source_config: {
          integration_id: seed.integrations[0]!.id,
          repo_url: "https://github.com/acme/agent",
          deployment_type: "prod",
          build_on_push: true,
          install_command: "npm ci",
          build_command: "npm run build",
        },
        secrets: [{ name: "OPENAI_API_KEY", value: "sk-test" }],
      },
      external_container: {
        ...em.createBody("external_container", "contract-external"),
        source_config: {
          listener_id: seed.listeners[0]!.id,
          listener_config: { k8s_namespace: seed.listeners[0]!.compute_config.k8s_namespaces[0] },
          custom_url: "https://agent.example.com",
          resource_spec: {
            min_scale: 1,
            max_scale: 3,
            cpu: 0.5,
            memory_mb: 1024,
            queue_cpu: 0.3,
            redis_cpu: 0.2,
            redis_memory_mb: 256,
            labels: { team: "ml" },
            annotations: { "example.com/owner": "ml" },
            service_account_name: "agent",
            image_pull_secrets: [{ name: "regcred" }],
            volumes: [{ name: "data", emptyDir: {} }],
            volume_mounts: [{ name: "data", mountPath: "/data", readOnly: true }],
            init_containers: [
              { name: "migrate", image: "registry.example.com/migrate:1", command: ["./migrate"] },
            ],
            sidecars: [
              {
                name: "envoy",
                image: "envoyproxy/envoy:v1.30",
                imagePullPolicy: "IfNotPresent",
                env: [{ name: "LOG_LEVEL", value: "info" }],
                resources: { limits: { cpu: "500m" }, requests: { cpu: "100m" } },
                volumeMounts: [{ name: "data", mountPath: "/data" }],
                restartPolicy: "Always",
              },
            ],
            db_cpu: 1,
            db_memory_mb: 2048,
            db_storage_gi: 10,
            db_max_connections: 100,
          },
        },
        secrets: [{ name: "API_TOKEN", value: "t" }],
        secret_references: [{ name: "DB_PASSWORD", secret_name: "db", secret_key: "password" }],
      },
      internal_container: em.createBody("internal_container", "contract-internal-container"),
      internal_source: em.createBody("internal_source", "contract-source"),
    };
    const created: Record<string, { id: string; latest_revision_id: string }> = {};
    for (const [source, body] of Object.entries(bodies)) {
      const response = await call("POST", "/v2/deployments", {}, { body });
      expect(response.status, response.text).toBe(201);
      created[source] = response.json;
    }
    const git = created.gitrepo!;
    const container = created.internal_container!;
    const source = created.internal_source!;
    await call("POST", "/v2/deployments", {}, { body: { name: "x", source: "gitrepo" } }); // 422
    await call("POST", "/v2/deployments", {}, { rawBody: '{"name": ' }); // 400
    await call("POST", "/v2/deployments", {}, { body: bodies.internal_container }); // 409
    await call("GET", "/v2/deployments", {}, { auth: false }); // 401

    // --- every revision status, read as it happens: walk the clock stage by stage ---
    const readAll = async () => {
      for (const deployment of Object.values(created)) {
        const params = { deployment_id: deployment.id };
        await call("GET", "/v2/deployments/{deployment_id}", params);
        const revisions = await call("GET", "/v2/deployments/{deployment_id}/revisions", params);
        for (const revision of revisions.json.resources) {
          await call("GET", "/v2/deployments/{deployment_id}/revisions/{revision_id}", {
            ...params,
            revision_id: revision.id,
          });
        }
      }
      await call("GET", "/v2/deployments");
    };
    for (let step = 0; step <= 6; step++) {
      await readAll();
      em.advance(STAGE);
    }
    // Patches: a secret, a resource_spec change, a new revision; a tarball for the source deployment.
    await call(
      "PATCH",
      "/v2/deployments/{deployment_id}",
      { deployment_id: created.external_container!.id },
      {
        body: {
          source_config: { resource_spec: { cpu: 1, max_scale: 5 } },
          secrets: [{ name: "API_TOKEN", value: "u" }],
        },
      },
    );
    em.emulator.failNextRevision({ deploymentId: source.id, stage: "QUEUED" });
    const objectPath = await upload(em, source.id, tarball({ "agent.json": "{}", "package.json": "{}" }));
    await call(
      "PATCH",
      "/v2/deployments/{deployment_id}",
      { deployment_id: source.id },
      {
        body: { source_revision_config: { source_tarball_path: objectPath } },
      },
    );
    // Failures at each kind of stage, and revisions stopped by newer ones (SKIPPED, INTERRUPTED).
    em.emulator.failNextRevision({ deploymentId: git.id, stage: "BUILDING", message: "boom" });
    await call(
      "PATCH",
      "/v2/deployments/{deployment_id}",
      { deployment_id: git.id },
      {
        body: { source_revision_config: { repo_ref: "release" } },
      },
    );
    em.emulator.failNextRevision({ deploymentId: container.id, stage: "AWAITING_DEPLOY" });
    await call(
      "PATCH",
      "/v2/deployments/{deployment_id}",
      { deployment_id: container.id },
      {
        body: { source_revision_config: { image_uri: "registry.example.com/agent:2" } },
      },
    );
    for (let step = 0; step <= 6; step++) {
      await readAll();
      em.advance(STAGE);
    }
    const before = (await em.get(`/v2/deployments/${container.id}`)).json.latest_revision_id;
    await call(
      "PATCH",
      "/v2/deployments/{deployment_id}",
      { deployment_id: container.id },
      {
        body: { secrets: [{ name: "A", value: "1" }] },
      },
    );
    em.advance(2.5 * STAGE);
    await call(
      "PATCH",
      "/v2/deployments/{deployment_id}",
      { deployment_id: container.id },
      {
        body: { secrets: [{ name: "A", value: "2" }] },
      },
    );
    em.advance(STAGE / 2);
    await call(
      "PATCH",
      "/v2/deployments/{deployment_id}",
      { deployment_id: container.id },
      {
        body: { secrets: [{ name: "A", value: "3" }] },
      },
    );
    em.emulator.push(git.id, {});
    await readAll();
    em.advance(10 * STAGE);
    await readAll();
    const statuses = new Set(
      recorded
        .filter(
          (r) => r.op.path === "/v2/deployments/{deployment_id}/revisions/{revision_id}" && r.status === 200,
        )
        .map((r) => r.response.json.status),
    );
    expect([...statuses].sort()).toEqual(
      [
        "AWAITING_BUILD",
        "AWAITING_DEPLOY",
        "BUILDING",
        "BUILD_FAILED",
        "CREATE_FAILED",
        "CREATING",
        "DEPLOYED",
        "DEPLOYING",
        "DEPLOY_FAILED",
        "INTERRUPTED",
        "QUEUED",
        "SKIPPED",
      ].sort(),
    );
    expect(before).toEqual(expect.any(String));

    // --- patch errors ---
    await call(
      "PATCH",
      "/v2/deployments/{deployment_id}",
      { deployment_id: git.id },
      { body: { revision_source: "nope" } },
    );
    await call("PATCH", "/v2/deployments/{deployment_id}", { deployment_id: git.id }, { rawBody: "[" });
    await call("PATCH", "/v2/deployments/{deployment_id}", { deployment_id: UNKNOWN }, { body: {} });
    await call("PATCH", "/v2/deployments/{deployment_id}", { deployment_id: "not-a-uuid" }, { body: {} });

    // --- lists with filters, and their errors ---
    const names = Object.values(bodies).map((b) => (b as { name: string }).name);
    for (const query of [
      "limit=2",
      "limit=2&offset=2",
      `name=${names[0]}`,
      "name_contains=CONTRACT",
      "status=READY",
      "deployment_type=prod",
      `deployment_ids=${git.id},${container.id}`,
      "remote_reconciled=true",
      "image_version=0.0.0-emulated",
      "tag_value_ids=a",
    ]) {
      await call("GET", "/v2/deployments", {}, { query });
    }
    await call("GET", "/v2/deployments", {}, { query: "limit=101" });
    await call("GET", "/v2/deployments", {}, { query: "deployment_type=staging&status=NOPE" });
    for (const query of [
      "status=DEPLOYED,BUILD_FAILED",
      "limit=1&offset=1",
      "remote_reconciled=false",
      "status=NOPE",
    ]) {
      await call("GET", "/v2/deployments/{deployment_id}/revisions", { deployment_id: git.id }, { query });
    }
    await call("GET", "/v2/deployments/{deployment_id}/revisions", { deployment_id: UNKNOWN });
    await call("GET", "/v2/deployments/{deployment_id}/revisions", { deployment_id: "x" });
    await call("GET", "/v2/deployments/{deployment_id}", { deployment_id: UNKNOWN });
    await call("GET", "/v2/deployments/{deployment_id}", { deployment_id: "x" });
    await call("GET", "/v2/deployments/{deployment_id}/revisions/{revision_id}", {
      deployment_id: git.id,
      revision_id: UNKNOWN,
    });
    await call("GET", "/v2/deployments/{deployment_id}/revisions/{revision_id}", {
      deployment_id: git.id,
      revision_id: "x",
    });

    // --- redeploy ---
    const redeploy = "/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy";
    await call("POST", redeploy, { deployment_id: git.id, revision_id: git.latest_revision_id });
    await call("POST", redeploy, { deployment_id: git.id, revision_id: container.latest_revision_id });
    await call("POST", redeploy, { deployment_id: UNKNOWN, revision_id: git.latest_revision_id });
    await call("POST", redeploy, { deployment_id: git.id, revision_id: "x" });
    em.advance(10 * STAGE);
    await readAll();

    // --- an image pushed to the emulator's registry, deployed by its digest ---
    const target = await pushToken(em, container.id);
    const pushed = await rawPush(em, target.token, repositoryOf(target), makeTestImage("contract"));
    await call(
      "PATCH",
      "/v2/deployments/{deployment_id}",
      { deployment_id: container.id },
      {
        body: {
          revision_source: "internal_container",
          source_revision_config: { image_uri: `${target.registry_url}/agent@${pushed.digest}` },
        },
      },
    );
    em.advance(10 * STAGE);
    await readAll();

    // --- the documented log endpoint: every revision in every state, both types, filters, errors ---
    const revisionLogs = "/v2/deployments/{deployment_id}/revisions/{revision_id}/logs";
    for (const deployment of Object.values(created)) {
      const revisions = (await em.get(`/v2/deployments/${deployment.id}/revisions`)).json.resources;
      for (const revision of revisions as { id: string }[]) {
        const params = { deployment_id: deployment.id, revision_id: revision.id };
        for (const type of ["build", "deploy"]) {
          const first = await call("GET", revisionLogs, params, { query: `type=${type}&limit=5` });
          const offset = first.json.next_offset as string | null;
          if (offset)
            await call("GET", revisionLogs, params, { query: `type=${type}&limit=5&offset=${offset}` });
        }
        await call("GET", revisionLogs, params, {
          query: "type=deploy&order=desc&limit=1000&level=INFO&query=GET&start_time=2025-01-01T00:00:00Z",
        });
      }
    }
    await call(
      "GET",
      revisionLogs,
      { deployment_id: UNKNOWN, revision_id: git.latest_revision_id },
      { query: "type=build" },
    );
    await call("GET", revisionLogs, { deployment_id: git.id, revision_id: UNKNOWN }, { query: "type=build" });
    await call("GET", revisionLogs, { deployment_id: git.id, revision_id: git.latest_revision_id });
    await call(
      "GET",
      revisionLogs,
      { deployment_id: git.id, revision_id: git.latest_revision_id },
      {
        query: "type=build&limit=1001&order=newest",
      },
    );

    // --- the routes the document does not describe ---
    await offCall(
      "POST /v2/deployments/{deployment_id}/upload-url",
      `/v2/deployments/${source.id}/upload-url`,
    );
    for (const id of [container.id, git.id, UNKNOWN]) {
      await offCall("POST /v2/deployments/{deployment_id}/push-token", `/v2/deployments/${id}/push-token`);
    }
    for (const deployment of Object.values(created)) {
      const revision = deployment.latest_revision_id;
      for (const path of [
        buildLogsPath(deployment.id, revision),
        deployLogsPath(deployment.id, revision),
        deployLogsPath(deployment.id),
      ]) {
        await offCall("POST (log)", path, { limit: 5 });
      }
      await offCall("POST (log)", deployLogsPath(deployment.id), { limit: 0 });
      await offCall("POST (log)", deployLogsPath(UNKNOWN), {});
    }

    // --- listeners: every operation, per tenant, each error the document lists ---
    const listeners = "/v2/listeners";
    const oneListener = "/v2/listeners/{listener_id}";
    const made = await call(
      "POST",
      listeners,
      {},
      {
        body: {
          compute_type: "k8s",
          compute_id: "contract-cluster",
          compute_config: { k8s_namespaces: ["agents", "tools"] },
          version: "1.2.3",
        },
      },
    );
    expect(made.status, made.text).toBe(201);
    const listenerId = made.json.id as string;
    await call(
      "POST",
      listeners,
      {},
      { body: { compute_type: "k8s", compute_id: "bare", compute_config: {} } },
    );
    await call(
      "POST",
      listeners,
      {},
      { body: { compute_type: "k8s", compute_id: "contract-cluster", compute_config: {} } },
    ); // 409
    await call(
      "POST",
      listeners,
      {},
      { body: { compute_type: "vm", compute_config: { k8s_namespaces: ["A"] } } },
    ); // 422
    await call("POST", listeners, {}, { body: {}, auth: "org_contract" }); // 403: an organisation key names no workspace
    await call("GET", listeners, {}, { query: "limit=100" });
    for (const id of [listenerId, seed.listeners[1]!.id]) await call("GET", oneListener, { listener_id: id });
    await call("GET", oneListener, { listener_id: UNKNOWN });
    await call("GET", oneListener, { listener_id: "x" });
    await call("GET", oneListener, { listener_id: listenerId }, { auth: "org_contract" });
    const patchBody = { compute_config: { k8s_namespaces: ["agents", "staging"] } };
    await call("PATCH", oneListener, { listener_id: listenerId }, { body: patchBody });
    await call("PATCH", oneListener, { listener_id: listenerId }, { body: { version: "1.2.4" } });
    await call("PATCH", oneListener, { listener_id: seed.listeners[1]!.id }, { body: patchBody });
    await call("PATCH", oneListener, { listener_id: listenerId }, { body: { compute_id: "renamed" } }); // 422
    await call("PATCH", oneListener, { listener_id: UNKNOWN }, { body: {} });
    await call("PATCH", oneListener, { listener_id: "x" }, { body: {} });
    await call("PATCH", oneListener, { listener_id: listenerId }, { body: {}, auth: "org_contract" });
    const onListener = await call(
      "POST",
      "/v2/deployments",
      {},
      {
        body: {
          ...em.createBody("external_container", "contract-on-listener"),
          source_config: { listener_id: listenerId, listener_config: { k8s_namespace: "staging" } },
        },
      },
    );
    expect(onListener.status, onListener.text).toBe(201);
    await call("DELETE", oneListener, { listener_id: listenerId }); // 409: in use
    await call("DELETE", oneListener, { listener_id: listenerId }, { auth: "org_contract" });
    await call("DELETE", oneListener, { listener_id: "x" });
    await call("DELETE", "/v2/deployments/{deployment_id}", { deployment_id: onListener.json.id });
    await call("DELETE", oneListener, { listener_id: listenerId });
    await call("DELETE", oneListener, { listener_id: listenerId }); // 404: gone
    await call("DELETE", oneListener, { listener_id: seed.listeners[1]!.id });
    await call("GET", listeners);

    // --- a deployment's log across its revisions, paged by cursor; the free deployments ---
    const deploymentLogs = "/v2/deployment-logs";
    for (const deployment of Object.values(created)) {
      for (const logType of ["BUILD", "DEPLOY"]) {
        let cursor: string | null = null;
        for (let page = 0; page < 3; page++) {
          const query = `deployment_id=${deployment.id}&log_type=${logType}&page_size=7${cursor ? `&cursor=${cursor}` : ""}`;
          const answer = await call("GET", deploymentLogs, {}, { query });
          cursor = answer.json.next_cursor;
          if (!cursor) break;
        }
      }
      await call(
        "GET",
        deploymentLogs,
        {},
        {
          query: `deployment_id=${deployment.id}&revision_id=${deployment.latest_revision_id}&sort_order=desc&page_size=100&level=INFO&query=a&start_time=2025-01-01T00:00:00Z&run_id=r`,
        },
      );
    }
    await call("GET", deploymentLogs); // 422: deployment_id is required
    await call(
      "GET",
      deploymentLogs,
      {},
      { query: `deployment_id=${git.id}&page_size=101&log_type=build&sort_order=up` },
    ); // 422
    await call("GET", deploymentLogs, {}, { query: `deployment_id=${git.id}&cursor=nope` }); // 422
    await call("GET", deploymentLogs, {}, { query: `deployment_id=${UNKNOWN}` }); // 404
    await call("GET", deploymentLogs, {}, { query: `deployment_id=${git.id}&revision_id=${UNKNOWN}` }); // 404
    await call("GET", "/v2/deployments/free-count");
    const free = await call(
      "POST",
      "/v2/deployments",
      {},
      {
        body: {
          ...bodies.gitrepo,
          name: "contract-free",
          source_config: { ...bodies.gitrepo.source_config, deployment_type: "dev_free" },
        },
      },
    );
    expect(free.status, free.text).toBe(201);
    expect((await call("GET", "/v2/deployments/free-count")).json).toEqual({ count: 1 });
    await call("GET", "/v2/deployments/free-count", {}, { auth: "other-tenant" });

    // --- force: refused while a revision is in progress (400), carried out once at rest ---
    const forced = "/v2/deployments/{deployment_id}";
    await call("DELETE", forced, { deployment_id: free.json.id }, { query: "force=true" }); // 400
    await call("DELETE", forced, { deployment_id: free.json.id }, { query: "force=maybe" }); // 422
    em.advance(10 * STAGE);
    await call("DELETE", forced, { deployment_id: free.json.id }, { query: "force=true" }); // 204

    // --- bulk delete: all or none (404), validated (422) ---
    const bulkIds: string[] = [];
    for (const name of ["contract-bulk-1", "contract-bulk-2"]) {
      bulkIds.push(
        (await call("POST", "/v2/deployments", {}, { body: em.createBody("internal_container", name) })).json
          .id,
      );
    }
    const ids = (list: string[]) => list.map((id) => `deployment_ids=${id}`).join("&");
    await call("DELETE", "/v2/deployments", {}, { query: ids([bulkIds[0]!, UNKNOWN]) }); // 404
    await call("DELETE", "/v2/deployments"); // 422: required
    await call("DELETE", "/v2/deployments", {}, { query: ids(["x"]) }); // 422
    await call("DELETE", "/v2/deployments", {}, { query: ids(Array(101).fill(bulkIds[0]!)) }); // 422
    await call("DELETE", "/v2/deployments", {}, { query: `deployment_ids=${bulkIds.join(",")}` }); // 422
    expect((await call("DELETE", "/v2/deployments", {}, { query: ids(bulkIds) })).status).toBe(200);

    // --- delete ---
    const remove = "/v2/deployments/{deployment_id}";
    await call("DELETE", remove, { deployment_id: source.id }, { query: "delete_tracing_project=maybe" });
    await call("DELETE", remove, { deployment_id: source.id }, { query: "delete_tracing_project=true" });
    await call("DELETE", remove, { deployment_id: container.id }, { query: "delete_tracing_project=false" });
    await call("DELETE", remove, { deployment_id: git.id });
    await call("DELETE", remove, { deployment_id: git.id });
    await call("DELETE", remove, { deployment_id: "x" });
    await call("GET", "/v2/deployments");
  });

  afterAll(async () => {
    await em?.close();
  });

  it("each answer fits the document's schema for its path, method and status", () => {
    const problems: string[] = [];
    for (const { op, status, response } of recorded) {
      const verdict = checkResponse(op, status, response.json, response.text);
      if (verdict.described && !verdict.valid) problems.push(`${key(op)} ${status}: ${verdict.errors}`);
      if (!verdict.described) {
        const known = UNDESCRIBED.find((u) => u.status === status && (!u.op || key(u.op) === key(op)));
        if (!known) problems.push(`${key(op)} ${status}: ${verdict.reason}, and not a known difference`);
        // Still the spec's error shape (section 7).
        else if (!ErrorDetailBody.safeParse(response.json).success)
          problems.push(`${key(op)} ${status}: not {detail}`);
      }
    }
    expect(problems).toEqual([]);
    expect(recorded.length).toBeGreaterThan(300);
  });

  it("every operation of the document was called, with every status the document lists", () => {
    const seen = new Map<string, Set<number>>();
    for (const { op, status } of recorded) {
      const statuses = seen.get(key(op)) ?? new Set<number>();
      statuses.add(status);
      seen.set(key(op), statuses);
    }
    const missing: string[] = [];
    for (const op of documentedOperations()) {
      for (const status of documentedStatuses(op)) {
        if (NOT_PRODUCED.some((n) => n.status === status && key(n.op) === key(op))) continue;
        if (!seen.get(key(op))?.has(status)) missing.push(`${key(op)} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("the routes the document does not describe (upload-url, push-token, /v1 logs) answer the model's shapes", () => {
    expect(offDocument.length).toBeGreaterThan(10);
    for (const { route, response } of offDocument) {
      const schema =
        response.status === 422
          ? ValidationErrorBody
          : response.status >= 400
            ? ErrorDetailBody
            : route.includes("upload-url")
              ? UploadUrlResponse
              : route.includes("push-token")
                ? PushTokenResponse
                : LogPage;
      expect(schema.safeParse(response.json).success, `${route} ${response.status} ${response.text}`).toBe(
        true,
      );
    }
    const statuses = new Set(offDocument.map((o) => o.response.status));
    expect([...statuses].sort()).toEqual([200, 400, 404, 422]);
  });
});

describe("the response validator", () => {
  it("is not vacuous: it refuses a Deployment the document refuses", () => {
    const op = { method: "GET", path: "/v2/deployments/{deployment_id}" };
    const verdict = (body: unknown) => checkResponse(op, 200, body, JSON.stringify(body));
    expect(verdict({})).toMatchObject({ described: true, valid: false });
    expect(checkResponse(op, 404, { detail: "x" }, '{"detail":"x"}')).toEqual({
      described: true,
      valid: true,
    });
    expect(checkResponse(op, 418, {}, "{}")).toMatchObject({ described: false });
    const deployment = {
      name: "n",
      source: "internal_container",
      source_config: {},
      source_revision_config: {},
      secrets: [],
      id: UNKNOWN,
      tenant_id: UNKNOWN,
      created_at: "2025-01-01T00:00:00.000Z",
      updated_at: "2025-01-01T00:00:00.000Z",
      status: "READY",
      latest_revision_id: null,
      active_revision_id: null,
    };
    expect(verdict(deployment)).toEqual({ described: true, valid: true });
    for (const wrong of [
      { status: "RUNNING" },
      { id: "not-a-uuid" },
      { created_at: "yesterday" },
      { secrets: [{}] },
    ]) {
      expect(verdict({ ...deployment, ...wrong }), JSON.stringify(wrong)).toMatchObject({ valid: false });
    }
    const logs = { method: "GET", path: "/v2/deployments/{deployment_id}/revisions/{revision_id}/logs" };
    const page = (body: unknown) => checkResponse(logs, 200, body, JSON.stringify(body));
    expect(page({ logs: [{ id: "a" }], next_offset: null })).toEqual({ described: true, valid: true });
    for (const wrong of [{ logs: "x" }, { logs: [1] }, { logs: [], next_offset: 5 }]) {
      expect(page(wrong), JSON.stringify(wrong)).toMatchObject({ valid: false });
    }
    const remove = { method: "DELETE", path: "/v2/deployments/{deployment_id}" };
    expect(checkResponse(remove, 204, undefined, "")).toEqual({ described: true, valid: true });
    expect(checkResponse(remove, 204, {}, "{}")).toMatchObject({ valid: false });
  });
});

describe("where the document and the spec differ (the spec wins)", () => {
  let em: TestEmulator;
  beforeAll(async () => {
    em = await startTestEmulator();
  });
  afterAll(async () => {
    await em?.close();
  });

  it("list deployments: the spec's exact-name filter `name` is not a parameter in the document; the emulator keeps it", async () => {
    const parameters = openapi.paths["/v2/deployments"]!.get!.parameters!.map((p) => p.name);
    expect(parameters).toContain("name_contains");
    expect(parameters).not.toContain("name");
    const created = await em.createDeployment("internal_container", "exact-name");
    await em.createDeployment("internal_container", "exact-name-2");
    const listed = await em.get("/v2/deployments?name=exact-name");
    expect(listed.json.resources.map((d: { id: string }) => d.id)).toEqual([created.id]);
  });

  it("create: the emulator's 409 for a name already taken, and 401/403 for credentials, are not listed by the document", async () => {
    const responses = openapi.paths["/v2/deployments"]!.post!.responses;
    expect(Object.keys(responses).sort()).toEqual(["201", "400", "422"]);
    expect(documentedOperations().some((op) => documentedStatuses(op).includes(401))).toBe(false);
    await em.createDeployment("internal_container", "taken");
    const again = await em.post("/v2/deployments", em.createBody("internal_container", "taken"));
    expect(again.status).toBe(409);
    expect(ErrorDetailBody.safeParse(again.json).success).toBe(true);
    const anonymous = await em.get("/v2/deployments", { auth: false });
    expect(anonymous.status).toBe(401);
    expect(ErrorDetailBody.safeParse(anonymous.json).success).toBe(true);
  });

  it("the document has no upload-url, upload or /v1 log endpoints (service-facts says so): the model's schemas stand in", () => {
    const paths = Object.keys(openapi.paths);
    expect(paths.some((p) => p.includes("upload"))).toBe(false);
    expect(paths.some((p) => p.startsWith("/v1/projects"))).toBe(false);
    expect(paths).toContain("/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy");
    // The documented log endpoint is checked with the rest, its answers against LogsResponse.
    expect(paths).toContain("/v2/deployments/{deployment_id}/revisions/{revision_id}/logs");
  });

  it("the Revision the emulator answers carries deployment_id and source_tarball_sha256, extra fields the document allows", () => {
    const revision = openapi.components.schemas.Revision as {
      properties: object;
      additionalProperties?: unknown;
    };
    expect(Object.keys(revision.properties)).not.toContain("deployment_id");
    expect(revision.additionalProperties).toBeUndefined();
  });

  it("the document's Listener has an optional `version` service-facts does not name: the emulator gives it once one was set", async () => {
    const listener = openapi.components.schemas.Listener as { properties: object; required: string[] };
    expect(Object.keys(listener.properties)).toContain("version");
    expect(listener.required).not.toContain("version");
    const listed = await em.get("/v2/listeners");
    expect(listed.json.resources[0]).not.toHaveProperty("version");
    const made = await em.post("/v2/listeners", {
      compute_type: "k8s",
      compute_id: "versioned",
      compute_config: { k8s_namespaces: [] },
      version: "0.4.1",
    });
    expect(made.json).toMatchObject({ version: "0.4.1", compute_config: { k8s_namespaces: [] } });
  });

  it("deleting a listener that deployments use: the document lists no 409; the emulator refuses, naming them", async () => {
    const responses = openapi.paths["/v2/listeners/{listener_id}"]!.delete!.responses;
    expect(Object.keys(responses)).not.toContain("409");
    const listener = em.emulator.seed(em.tenantId).listeners[0]!;
    const used = await em.createDeployment("external_container", "uses-listener", {
      source_config: { listener_id: listener.id },
    });
    const refused = await em.delete(`/v2/listeners/${listener.id}`);
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toContain(`uses-listener (${used.id})`);
    expect((await em.get(`/v2/listeners/${listener.id}`)).status).toBe(200);
  });

  it("deployment-logs: the document lists no 404; an unknown deployment is one, as on every deployment route", async () => {
    const responses = openapi.paths["/v2/deployment-logs"]!.get!.responses;
    expect(Object.keys(responses).sort()).toEqual(["200", "422"]);
    const answer = await em.get(`/v2/deployment-logs?deployment_id=${UNKNOWN}`);
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ detail: `Deployment ID ${UNKNOWN} not found.` });
  });

  it("force=true on an active deployment: service-facts says 400, which the document does not list", async () => {
    const responses = openapi.paths["/v2/deployments/{deployment_id}"]!.delete!.responses;
    expect(Object.keys(responses)).not.toContain("400");
    const slow = await startTestEmulator({ stageMs: 1000 });
    try {
      const d = await slow.createDeployment("internal_container", "busy");
      const refused = await slow.delete(`/v2/deployments/${d.id}?force=true`);
      expect(refused.status).toBe(400);
      expect(refused.json.detail).toMatch(/still active .*QUEUED|still active .*CREATING/);
      expect((await slow.get(`/v2/deployments/${d.id}`)).status).toBe(200);
    } finally {
      await slow.close();
    }
  });
});
