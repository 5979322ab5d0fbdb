// Spec section 7 and the emulator-only rules: every refused body answers 422 with exactly the
// issues the model returns (the emulator states no rule of its own twice), and no client
// input, however malformed, gets a 500.
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../../../test/helpers/emulator.js";
import type { DeploymentT } from "../../model/responses.js";
import { validateCreateRequest, validatePatchRequest } from "../../model/validate.js";

afterEach(closeTestEmulators);

type Body = Record<string, unknown>;

function withConfig(body: Body, part: "source_config" | "source_revision_config", values: Body): Body {
  return { ...body, [part]: { ...(body[part] as Body), ...values } };
}

/** The model's verdict on a create body (it must refuse it). */
function modelCreateIssues(body: unknown) {
  const result = validateCreateRequest(body);
  if (result.ok) throw new Error("the model accepts this body; the test expects a refusal");
  return result.issues;
}

function modelPatchIssues(body: unknown, current: DeploymentT) {
  const result = validatePatchRequest(body, current);
  if (result.ok) throw new Error("the model accepts this patch; the test expects a refusal");
  return result.issues;
}

async function expectCreateRefused(em: TestEmulator, body: Body, loc: (string | number)[]) {
  const response = await em.post("/v2/deployments", body);
  expect(response.status).toBe(422);
  expect(response.json).toEqual({ detail: modelCreateIssues(body) });
  expect(response.json.detail.map((i: { loc: unknown }) => i.loc)).toContainEqual(loc);
  expect((await em.get("/v2/deployments")).json.resources).toEqual([]);
}

describe("spec section 7 on create", () => {
  it("refuses a tag ref with build_on_push true", async () => {
    const em = await startTestEmulator();
    const body = withConfig(em.createBody("gitrepo"), "source_revision_config", {
      repo_ref: "refs/tags/v1.0.0",
    });
    await expectCreateRefused(em, body, ["body", "source_config", "build_on_push"]);
  });

  it("refuses a non-null agent_config_path for sources that are not built", async () => {
    const em = await startTestEmulator();
    for (const source of ["external_container", "internal_container"] as const) {
      const body = withConfig(em.createBody(source), "source_revision_config", {
        agent_config_path: "agent.json",
      });
      await expectCreateRefused(em, body, ["body", "source_revision_config", "agent_config_path"]);
    }
  });

  it("refuses a missing agent_config_path for built sources", async () => {
    const em = await startTestEmulator();
    for (const source of ["gitrepo", "internal_source"] as const) {
      const body = withConfig(em.createBody(source), "source_revision_config", { agent_config_path: null });
      await expectCreateRefused(em, body, ["body", "source_revision_config", "agent_config_path"]);
    }
  });

  it("refuses out-of-range cpu values", async () => {
    const em = await startTestEmulator();
    for (const [field, value] of [
      ["cpu", 0.05],
      ["cpu", 8.5],
      ["cpu_limit", 16.5],
      ["queue_cpu", 9],
      ["queue_cpu_limit", 0],
      ["redis_cpu", 0],
      ["redis_cpu_limit", 20],
    ] as const) {
      const body = withConfig(em.createBody("external_container"), "source_config", {
        resource_spec: { [field]: value },
      });
      await expectCreateRefused(em, body, ["body", "source_config", "resource_spec", field]);
    }
  });

  it("refuses any source_tarball_path on create: no path can have been issued yet", async () => {
    const em = await startTestEmulator();
    const body = withConfig(em.createBody("internal_source"), "source_revision_config", {
      source_tarball_path: "uploads/anything.tar.gz",
    });
    expect(validateCreateRequest(body).ok).toBe(true);
    const response = await em.post("/v2/deployments", body);
    expect(response.status).toBe(422);
    expect(response.json.detail).toHaveLength(1);
    expect(response.json.detail[0].loc).toEqual(["body", "source_revision_config", "source_tarball_path"]);
  });
});

describe("rules that need the emulator's state", () => {
  it("refuses an integration_id that is not one of the tenant's", async () => {
    const em = await startTestEmulator();
    const foreign = em.emulator.seed(em.emulator.tenantFor("someone-else")).integrations[0]!.id;
    const body = withConfig(em.createBody("gitrepo"), "source_config", { integration_id: foreign });
    const response = await em.post("/v2/deployments", body);
    expect(response.status).toBe(422);
    expect(response.json.detail).toEqual([
      expect.objectContaining({ loc: ["body", "source_config", "integration_id"], type: "value_error" }),
    ]);
  });

  it("refuses a listener that is not the tenant's, and a namespace the listener does not have", async () => {
    const em = await startTestEmulator();
    const foreign = em.emulator.seed(em.emulator.tenantFor("someone-else")).listeners[0]!.id;
    const notOurs = await em.post(
      "/v2/deployments",
      withConfig(em.createBody("external_container"), "source_config", { listener_id: foreign }),
    );
    expect(notOurs.status).toBe(422);
    expect(notOurs.json.detail[0].loc).toEqual(["body", "source_config", "listener_id"]);

    const badNamespace = await em.post(
      "/v2/deployments",
      withConfig(em.createBody("external_container"), "source_config", {
        listener_config: { k8s_namespace: "production" },
      }),
    );
    expect(badNamespace.status).toBe(422);
    expect(badNamespace.json.detail[0].loc).toEqual([
      "body",
      "source_config",
      "listener_config",
      "k8s_namespace",
    ]);

    const secondListener = em.emulator.seed(em.tenantId).listeners[1]!;
    const ok = await em.post(
      "/v2/deployments",
      withConfig(em.createBody("external_container"), "source_config", {
        listener_id: secondListener.id,
        listener_config: { k8s_namespace: "production" },
      }),
    );
    expect(ok.status).toBe(201);
  });

  it("refuses a second deployment of the same name in a tenant (409), not in another tenant", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_container", "twin");
    const again = await em.post("/v2/deployments", em.createBody("internal_source", "twin"));
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ detail: "A deployment named 'twin' already exists." });
    const elsewhere = await em.post("/v2/deployments", em.createBody("internal_container", "twin"), {
      auth: "other-key",
    });
    expect(elsewhere.status).toBe(201);
  });
});

describe("spec section 7 on patch", () => {
  it("refuses changes to every field fixed at creation", async () => {
    const em = await startTestEmulator();
    const git = await em.createDeployment("gitrepo");
    const external = await em.createDeployment("external_container");
    const otherListener = em.emulator.seed(em.tenantId).listeners[1]!.id;
    const cases: [DeploymentT, Body, (string | number)[]][] = [
      [
        git,
        { source_config: { integration_id: em.emulator.seed(em.tenantId).integrations[1]!.id } },
        ["body", "source_config", "integration_id"],
      ],
      [
        git,
        { source_config: { repo_url: "https://github.com/example/other" } },
        ["body", "source_config", "repo_url"],
      ],
      [git, { source_config: { deployment_type: "prod" } }, ["body", "source_config", "deployment_type"]],
      [
        git,
        { source_config: { custom_url: "https://mine.example.com" } },
        ["body", "source_config", "custom_url"],
      ],
      [external, { source_config: { listener_id: otherListener } }, ["body", "source_config", "listener_id"]],
      [
        external,
        { source_config: { listener_config: { k8s_namespace: "agents" } } },
        ["body", "source_config", "listener_config", "k8s_namespace"],
      ],
    ];
    for (const [deployment, patch, loc] of cases) {
      const response = await em.patch(`/v2/deployments/${deployment.id}`, patch);
      expect(response.status, JSON.stringify(patch)).toBe(422);
      expect(response.json).toEqual({ detail: modelPatchIssues(patch, deployment) });
      expect(response.json.detail.map((i: { loc: unknown }) => i.loc)).toContainEqual(loc);
    }
    // Restating the current value is not a change.
    const same = await em.patch(`/v2/deployments/${git.id}`, {
      source_config: { repo_url: git.source_config.repo_url },
    });
    expect(same.status).toBe(200);
  });

  it("refuses a tag ref while build_on_push is true, whichever side the patch sets", async () => {
    const em = await startTestEmulator();
    const git = await em.createDeployment("gitrepo");
    const patch = { source_revision_config: { repo_ref: "refs/tags/v2" } };
    const response = await em.patch(`/v2/deployments/${git.id}`, patch);
    expect(response.status).toBe(422);
    expect(response.json).toEqual({ detail: modelPatchIssues(patch, git) });

    const off = await em.patch(`/v2/deployments/${git.id}`, {
      source_config: { build_on_push: false },
      source_revision_config: { repo_ref: "refs/tags/v2" },
    });
    expect(off.status).toBe(200);
    const on = { source_config: { build_on_push: true } };
    const back = await em.patch(`/v2/deployments/${git.id}`, on);
    expect(back.status).toBe(422);
    expect(back.json).toEqual({ detail: modelPatchIssues(on, off.json) });
  });

  it("refuses agent_config_path for a container deployment and out-of-range cpu", async () => {
    const em = await startTestEmulator();
    const external = await em.createDeployment("external_container");
    for (const patch of [
      { source_revision_config: { agent_config_path: "agent.json" } },
      { source_config: { resource_spec: { cpu: 12 } } },
    ]) {
      const response = await em.patch(`/v2/deployments/${external.id}`, patch);
      expect(response.status).toBe(422);
      expect(response.json).toEqual({ detail: modelPatchIssues(patch, external) });
    }
  });
});

describe("malformed input never gets a 500", () => {
  it("answers 400 for bodies that are not JSON, with a detail string", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_container");
    for (const raw of ["{", "nope", '{"name": }', "\u0000\u0001", "[1,2"]) {
      for (const [method, path] of [
        ["POST", "/v2/deployments"],
        ["PATCH", `/v2/deployments/${deployment.id}`],
      ] as const) {
        const response = await em.request(method, path, {
          rawBody: raw,
          headers: { "Content-Type": "application/json" },
        });
        expect(response.status).toBe(400);
        expect(typeof response.json.detail).toBe("string");
      }
    }
  });

  it("answers 422 for JSON that is not an object, for wrong types, and for a missing body", async () => {
    const em = await startTestEmulator();
    for (const body of [[], 42, "text", null, true]) {
      const response = await em.post("/v2/deployments", body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.json.detail[0].loc).toEqual(["body"]);
    }
    const empty = await em.post("/v2/deployments");
    expect(empty.status).toBe(422);
    expect(empty.json.detail).toEqual([{ loc: ["body"], msg: "is required", type: "missing" }]);

    const wrongTypes = {
      name: 7,
      source: "gitrepo",
      source_config: [],
      source_revision_config: "x",
      secrets: {},
    };
    const response = await em.post("/v2/deployments", wrongTypes);
    expect(response.status).toBe(422);
    expect(response.json).toEqual({ detail: modelCreateIssues(wrongTypes) });
  });

  it("answers 400, not 500, for JSON nested too deeply to serialise", async () => {
    const em = await startTestEmulator();
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const body = JSON.stringify(em.createBody("external_container")).replace(
      '"source_config":{',
      `"source_config":{"resource_spec":{"volumes":[{"name":"v","configMap":{"x":${deep}}}]},`,
    );
    const response = await em.request("POST", "/v2/deployments", { rawBody: body });
    expect(response.status).toBe(400);
    expect(response.json.detail).toMatch(/nested too deeply/);
  });

  it("answers 4xx for random JSON bodies on create and patch (property)", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("external_container");
    const valid = em.createBody("external_container");
    const bodies = fc.oneof(
      fc.jsonValue(),
      // A valid body with one part replaced by anything: reaches deeper into the rules.
      fc
        .tuple(
          fc.constantFrom(
            "name",
            "source",
            "source_config",
            "source_revision_config",
            "secrets",
            "secret_references",
          ),
          fc.jsonValue(),
        )
        .map(([key, value]) => ({ ...valid, name: `prop-${Math.random()}`, [key]: value })),
      fc.record({
        source_config: fc.dictionary(
          fc.constantFrom("resource_spec", "listener_config", "custom_url", "build_on_push"),
          fc.jsonValue(),
        ),
        source_revision_config: fc.dictionary(
          fc.constantFrom("image_uri", "repo_ref", "source_tarball_path"),
          fc.jsonValue(),
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        for (const [method, path] of [
          ["POST", "/v2/deployments"],
          ["PATCH", `/v2/deployments/${deployment.id}`],
        ] as const) {
          const response = await em.request(method, path, { body });
          expect([200, 201, 400, 409, 422]).toContain(response.status);
          expect(response.json).toBeDefined();
        }
      }),
      { numRuns: 150 },
    );
    // Random bytes as a body.
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), async (bytes) => {
        const response = await em.request("POST", "/v2/deployments", { rawBody: Buffer.from(bytes) });
        expect([400, 422]).toContain(response.status);
      }),
      { numRuns: 100 },
    );
  });

  it("answers 413 for a body over the limit, declared or chunked, without reading it all", async () => {
    const em = await startTestEmulator({ maxBodyBytes: 1024 });
    const big = JSON.stringify({ ...em.createBody("internal_container"), pad: "x".repeat(4096) });
    const declared = await em.request("POST", "/v2/deployments", { rawBody: big });
    expect(declared.status).toBe(413);
    expect(declared.json.detail).toMatch(/too large/);

    // Chunked: no Content-Length, the cap is enforced while reading.
    const { default: http } = await import("node:http");
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(
        `${em.url}/v2/deployments`,
        { method: "POST", headers: { "X-Api-Key": em.apiKey, "Transfer-Encoding": "chunked" }, agent: false },
        (response) => {
          let body = "";
          response.on("data", (chunk) => {
            body += chunk;
          });
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      request.on("error", reject);
      request.write(big.slice(0, 2048));
      request.end(big.slice(2048));
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).detail).toMatch(/too large/);
    // The emulator still serves.
    expect((await em.get("/v2/deployments")).status).toBe(200);
  });
});
