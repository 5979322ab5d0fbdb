// The apply planner: create when absent, the minimal patch when present, nothing when equal.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sameValue as same } from "./merge.js";
import { type ApplyPlan, type Opinions, planApply as planned } from "./plan.js";
import { withResourceDefaults } from "./resource-spec.js";
import type { DeploymentT } from "./responses.js";
import type { CreateRequest } from "./schemas.js";

/** The plan, which these files' changes always validate to. */
function planApply(desired: CreateRequest, current: DeploymentT | null, opinions: Opinions): ApplyPlan {
  const result = planned(desired, current, opinions);
  if (!result.ok) throw new Error(`unexpected issues: ${JSON.stringify(result.issues)}`);
  return result.plan;
}

const desired: CreateRequest = {
  name: "web",
  source: "external_container",
  source_config: { resource_spec: { cpu: 0.5, memory_mb: 512 } },
  source_revision_config: { image_uri: "x:1" },
  secrets: [{ name: "A", value: "1" }],
};

function stored(body: CreateRequest): DeploymentT {
  return {
    ...body,
    source_config: {
      ...body.source_config,
      resource_spec: withResourceDefaults(body.source_config.resource_spec ?? {}),
    },
    id: "00000000-0000-4000-8000-000000000001",
    tenant_id: "00000000-0000-4000-8000-000000000002",
    created_at: "",
    updated_at: "",
    status: "READY",
    latest_revision_id: "r1",
    active_revision_id: "r1",
  } as DeploymentT;
}

const opinions = { secrets: true, secretReferences: false };

describe("planApply", () => {
  it("creates when there is no deployment", () => {
    const plan = planApply(desired, null, opinions);
    expect(plan.action).toBe("create");
    expect(plan.body).toBe(desired);
  });

  it("does nothing when the deployment holds what the file says (defaults included)", () => {
    expect(planApply(desired, stored(desired), opinions)).toMatchObject({
      action: "none",
      body: null,
      changes: [],
    });
  });

  it("sends only what differs", () => {
    const changed = { ...desired, source_revision_config: { image_uri: "x:2" } };
    const plan = planApply(changed, stored(desired), opinions);
    expect(plan.body).toEqual({ source_revision_config: { image_uri: "x:2" } });
    expect(plan.triggers).toEqual(["source_revision_config.image_uri"]);
  });

  it("leaves secrets alone when the file has no opinion on them", () => {
    const plan = planApply({ ...desired, secrets: [] }, stored(desired), {
      secrets: false,
      secretReferences: false,
    });
    expect(plan.action).toBe("none");
  });

  it("flags fixed fields as immutable and keeps them out of the patch", () => {
    const gitrepo: CreateRequest = {
      name: "g",
      source: "gitrepo",
      source_config: { repo_url: "https://a", integration_id: "00000000-0000-4000-8000-00000000000a" },
      source_revision_config: { agent_config_path: "agent.json" },
      secrets: [],
    };
    const plan = planApply(
      { ...gitrepo, source_config: { ...gitrepo.source_config, repo_url: "https://b" } },
      stored(gitrepo),
      opinions,
    );
    expect(plan.changes).toEqual([
      expect.objectContaining({ path: "source_config.repo_url", immutable: true }),
    ]);
    expect(plan.body).toEqual({});
  });

  it("a plan applied to the deployment leaves nothing to do (property)", () => {
    fc.assert(
      fc.property(
        fc.record({
          cpu: fc.constantFrom(0.5, 1, 2),
          memory_mb: fc.constantFrom(256, 512),
          image: fc.constantFrom("x:1", "x:2"),
          secret: fc.constantFrom("1", "2"),
        }),
        (wanted) => {
          const body: CreateRequest = {
            ...desired,
            source_config: { resource_spec: { cpu: wanted.cpu, memory_mb: wanted.memory_mb } },
            source_revision_config: { image_uri: wanted.image },
            secrets: [{ name: "A", value: wanted.secret }],
          };
          const current = stored(desired);
          const plan = planApply(body, current, opinions);
          const patched = stored({
            ...desired,
            source_config: {
              ...desired.source_config,
              ...(plan.body as CreateRequest | null)?.source_config,
            },
            source_revision_config: {
              ...desired.source_revision_config,
              ...(plan.body as CreateRequest | null)?.source_revision_config,
            },
            secrets: (plan.body as CreateRequest | null)?.secrets ?? desired.secrets,
          });
          expect(planApply(body, patched, opinions).action).toBe("none");
        },
      ),
    );
  });

  it("same() treats null, undefined and absent alike", () => {
    expect(same({ a: null }, {})).toBe(true);
    expect(same([1, { b: undefined }], [1, {}])).toBe(true);
    expect(same({ a: 1 }, { a: 2 })).toBe(false);
  });
});
