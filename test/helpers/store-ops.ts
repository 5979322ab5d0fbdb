// The emulator's Store driven by random operations, as its routes drive it (each operation
// checks what the route checks first: a taken name is a 409 there, so no create here), for
// property tests of the state file and of the indexes. `now` is whatever the operation says:
// tests choose whether time may stand still or run backwards.
import fc from "fast-check";
import { deploymentView } from "../../src/emulator/api/views.js";
import { MemoryTarballs, Store, type StoreOptions } from "../../src/emulator/store/store.js";
import { revisionTriggers } from "../../src/model/rules.js";
import type { CreateRequest } from "../../src/model/schemas.js";
import { validateCreateRequest, validatePatchRequest } from "../../src/model/validate.js";

export const TENANTS = [
  "0a0a0a0a-0000-4000-8000-000000000001",
  "0a0a0a0a-0000-4000-8000-000000000002",
  "0a0a0a0a-0000-4000-8000-000000000003",
];
/** Few names, so that they collide across tenants and come back after a delete. */
export const NAMES = ["alpha", "beta", "gamma", "Alpha", "delta-1", "delta-2"];

export type StoreOp =
  | { kind: "create"; tenant: number; name: number; source: "internal_container" | "internal_source" }
  | { kind: "patch"; pick: number; image: number; secrets: boolean }
  | { kind: "delete"; pick: number; project: boolean }
  | { kind: "redeploy"; pick: number }
  | { kind: "failRevision"; pick: number }
  | { kind: "failNext"; pick: number | null }
  | { kind: "issueUpload"; pick: number }
  | { kind: "completeUpload"; pick: number }
  | { kind: "clock"; ms: number }
  | { kind: "reset" };

/**
 * Operations, creates weighted up so that tenants fill and names collide; `reset` only when
 * asked, and rarely (it empties everything the others built).
 */
export function storeOp(options: { reset?: boolean } = {}): fc.Arbitrary<StoreOp> {
  const pick = fc.nat(1000);
  const ops: fc.WeightedArbitrary<StoreOp>[] = [
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant("create" as const),
        tenant: fc.nat(TENANTS.length - 1),
        name: fc.nat(NAMES.length - 1),
        source: fc.constantFrom("internal_container" as const, "internal_source" as const),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("patch" as const),
        pick,
        image: fc.nat(3),
        secrets: fc.boolean(),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant("delete" as const), pick, project: fc.boolean() }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("redeploy" as const), pick }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("failRevision" as const), pick }) },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("failNext" as const), pick: fc.option(pick, { nil: null }) }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("issueUpload" as const), pick }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("completeUpload" as const), pick }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("clock" as const),
        ms: fc.integer({ min: 0, max: 20 * 60_000 }),
      }),
    },
  ];
  if (options.reset) ops.push({ weight: 1, arbitrary: fc.constant({ kind: "reset" as const }) });
  return fc.oneof(...ops);
}

/** Sequences of operations long enough to fill a few tenants. */
export function storeOps(options: { reset?: boolean; maxLength?: number } = {}): fc.Arbitrary<StoreOp[]> {
  return fc.array(storeOp(options), { minLength: 1, maxLength: options.maxLength ?? 60, size: "max" });
}

export function newStore(commit?: StoreOptions["commit"]): Store {
  return new Store(null, { stageMs: 1000, tarballs: new MemoryTarballs(), commit });
}

/** Applies `op` at `now` (what the route would do; nothing when the route would refuse). */
export function applyOp(store: Store, op: StoreOp, now: number): void {
  const deployments = allDeployments(store);
  const picked = (pick: number) => deployments[pick % deployments.length];
  switch (op.kind) {
    case "create": {
      const tenant = TENANTS[op.tenant]!;
      const name = NAMES[op.name]!;
      if (store.nameTaken(tenant, name)) return;
      store.createDeployment(tenant, createRequest(name, op.source), now);
      return;
    }
    case "patch": {
      const deployment = picked(op.pick);
      if (!deployment) return;
      const body: Record<string, unknown> =
        deployment.source === "internal_container"
          ? { source_revision_config: { image_uri: `registry.example.com/a:${op.image}` } }
          : { source_revision_config: { agent_config_path: `agent-${op.image}.json` } };
      if (op.secrets) body.secrets = [{ name: "TOKEN", value: `v${op.image}` }];
      const checked = validatePatchRequest(
        body,
        deploymentView(deployment, now, (id) => `http://agents.test/${id}`),
      );
      if (!checked.ok) throw new Error(`patch refused: ${JSON.stringify(checked.issues)}`);
      store.patchDeployment(deployment, checked.value, revisionTriggers(checked.value).length > 0, now);
      return;
    }
    case "delete": {
      const deployment = picked(op.pick);
      if (deployment) store.deleteDeployment(deployment, { deleteTracingProject: op.project });
      return;
    }
    case "redeploy": {
      const deployment = picked(op.pick);
      const from = deployment?.revisions[op.pick % deployment.revisions.length];
      if (deployment && from) store.redeploy(deployment, from, now);
      return;
    }
    case "failRevision": {
      const deployment = picked(op.pick);
      const revision = deployment?.revisions.at(-1);
      if (deployment && revision && revision.ended === null)
        store.failRevision(revision, revision.stages.at(-1)!, `failed at ${now}`);
      return;
    }
    case "failNext": {
      const deployment = op.pick === null ? undefined : picked(op.pick);
      store.addFailRule({
        deployment_id: deployment?.id ?? null,
        tenant_id: deployment?.tenant_id ?? null,
        stage: "DEPLOYING",
        message: null,
      });
      return;
    }
    case "issueUpload": {
      const deployment = picked(op.pick);
      if (deployment) store.issueUpload(deployment, now, now + 15 * 60_000);
      return;
    }
    case "completeUpload": {
      const waiting = [...store.contents().uploads].filter(
        (u) => u.uploaded_at === null && u.expires_at! > now,
      );
      const upload = waiting[op.pick % Math.max(1, waiting.length)];
      if (upload) store.completeUpload(upload, Buffer.from(`tarball ${upload.id}`), `sha-${upload.id}`, now);
      return;
    }
    case "clock":
      store.setClockOffset(store.clockOffsetMs + op.ms);
      return;
    case "reset":
      store.reset();
      return;
  }
}

export function allDeployments(store: Store) {
  return [...store.contents().deployments];
}

export function createRequest(name: string, source: "internal_container" | "internal_source"): CreateRequest {
  const checked = validateCreateRequest({
    name,
    source,
    source_config: {},
    source_revision_config:
      source === "internal_container"
        ? { image_uri: "registry.example.com/a:1" }
        : { agent_config_path: "agent.json" },
    secrets: [{ name: "TOKEN", value: `secret-of-${name}` }],
  });
  if (!checked.ok) throw new Error(`create refused: ${JSON.stringify(checked.issues)}`);
  return checked.value;
}
