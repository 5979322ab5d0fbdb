// Model behaviours the emulator depends on, each once a bug found while building it (and
// since fixed in src/model): kept so that none comes back.
import { describe, expect, it } from "vitest";
import type { DeploymentT } from "./responses.js";
import { validateCreateRequest, validatePatchRequest, validatePatchShape } from "./validate.js";

const current = {
  name: "x",
  source: "external_container",
  source_config: {},
  source_revision_config: { image_uri: "r/a:1" },
  secrets: [],
  secret_references: [{ name: "TOKEN", secret_name: "s", secret_key: "k" }],
  id: "7c0e7c52-1b1f-4c36-a0cf-5d2b6c0a0c11",
  tenant_id: "7c0e7c52-1b1f-4c36-a0cf-5d2b6c0a0c12",
  created_at: "2025-01-01T00:00:00.000Z",
  updated_at: "2025-01-01T00:00:00.000Z",
  status: "READY",
  latest_revision_id: null,
  active_revision_id: null,
} as DeploymentT;

describe("src/model gaps", () => {
  it("null secret_references in a patch means 'unchanged' for the secrets/references clash too", () => {
    // With the field absent the clash is found; with null (which leaves the references as
    // they are) it is not, and the deployment ends up with TOKEN from both.
    expect(validatePatchRequest({ secrets: [{ name: "TOKEN", value: "v" }] }, current).ok).toBe(false);
    expect(
      validatePatchRequest({ secrets: [{ name: "TOKEN", value: "v" }], secret_references: null }, current).ok,
    ).toBe(false);
  });

  it("request/limit and min/max checks see the defaults the service will fill in", () => {
    // queue_cpu defaults to cpu (4) and queue_min_scale to min_scale (5): both beyond the limits given.
    const body = {
      name: "n",
      source: "external_container",
      source_config: { resource_spec: { cpu: 4, queue_cpu_limit: 2, min_scale: 5, queue_max_scale: 2 } },
      source_revision_config: { image_uri: "r/a:1" },
      secrets: [],
    };
    expect(validateCreateRequest(body).ok).toBe(false);
  });

  it("a typo in a patch body is matched against the patch fields", () => {
    const result = validatePatchShape({ revision_sorce: "gitrepo" });
    expect(result.ok ? [] : result.issues.map((i) => i.msg)).toEqual([
      "is not a known field; did you mean 'revision_source'?",
    ]);
  });
});
