// The emulator's controls: move the clock, inject faults, make revisions fail, simulate a
// push, inspect tracing projects and request counts, reset. One implementation serves both
// the HTTP endpoints under /_emulator/ and the programmatic API of RunningEmulator. Bad
// input throws HttpError (422, 404, 409) in both cases. docs/emulator.md ("Emulator controls")
// documents them.
//
// The controls that touch tenants' data take a `tenantId` scope: over HTTP it is the
// caller's tenant (authenticated as the API does), so another tenant's deployment is a 404
// there as everywhere else; the in-process API passes none and sees every tenant.

import type {
  EmulatorClock,
  EmulatorFault,
  EmulatorStats,
  FailRule,
  HealthControlAnswer,
  TracingProjectView,
} from "../../model/emulator-controls.js";
import { FAILABLE_STAGES, isTerminalRevisionStatus, isUuid, type RevisionStatus } from "../../model/enums.js";
import type { RevisionT } from "../../model/responses.js";
import { isTagRef } from "../../model/rules.js";
import type { Core } from "../api/handler-parts.js";
import { revisionView } from "../api/views.js";
import { deploymentNotFound, HttpError, invalidField, revisionNotFound } from "../responses.js";
import { iso, OffsetClock } from "../store/clock.js";
import { newCommitSha } from "../store/ids.js";
import { revisionStateAt } from "../store/lifecycle.js";
import type { StoredDeployment, StoredRevision } from "../store/state.js";

/** Longest `message` a fail control takes: one error, not a whole log. */
export const MAX_FAIL_MESSAGE_LENGTH = 2000;

/** A push to a repository whose deployment sets no repo_ref goes to the default branch. */
export const DEFAULT_BRANCH = "main";

export class Controls {
  constructor(private readonly core: Core) {}

  clock(): EmulatorClock {
    const { clock } = this.core;
    // Read once: the default clock moves between two reads, and both fields name one instant.
    const now = clock.now();
    return {
      now: iso(now),
      now_ms: now,
      offset_ms: clock instanceof OffsetClock ? clock.offsetMs : null,
    };
  }

  advanceClock(ms: unknown): EmulatorClock {
    if (typeof ms !== "number" || !Number.isInteger(ms) || ms < 0) {
      throw invalidField(
        ["body", "advance_ms"],
        "must be an integer number of milliseconds, 0 or more (time never runs backwards)",
      );
    }
    const { clock, store } = this.core;
    clock.advance(ms);
    // The default clock's offset is part of the saved state: skipped time stays skipped.
    if (clock instanceof OffsetClock) store.setClockOffset(clock.offsetMs);
    return this.clock();
  }

  addFault(input: unknown): EmulatorFault {
    return this.core.faults.add(input);
  }

  faults(): EmulatorFault[] {
    return this.core.faults.list();
  }

  clearFaults(): void {
    this.core.faults.clear();
  }

  /**
   * The next revision (of `deployment_id`, or of any deployment of the scope's tenant, or of
   * any deployment at all without a scope) fails at the end of `stage`, with `message` (if
   * given) as the error line that ends its log.
   */
  failNextRevision(input: unknown, tenantId?: string): FailRule {
    const body = objectBody(input);
    const stage = stageField(body.stage);
    const message = messageField(body.message);
    let deploymentId: string | null = null;
    if (body.deployment_id != null) {
      if (typeof body.deployment_id !== "string" || !isUuid(body.deployment_id)) {
        throw invalidField(["body", "deployment_id"], "must be a deployment ID (a UUID)");
      }
      deploymentId = this.deployment(body.deployment_id, tenantId).id;
    }
    const rule: FailRule = { deployment_id: deploymentId, tenant_id: tenantId ?? null, stage, message };
    this.core.store.addFailRule(rule);
    return rule;
  }

  failRules(tenantId?: string): FailRule[] {
    return this.core.store
      .failRules()
      .filter((rule) => tenantId === undefined || rule.tenant_id === tenantId);
  }

  /**
   * Makes an existing revision fail at the end of `stage`, if it has not got past it yet, with
   * `message` (if given) as the error line that ends its log.
   */
  failRevision(deploymentId: string, revisionId: string, input: unknown, tenantId?: string): RevisionT {
    const body = objectBody(input);
    const stage = stageField(body.stage);
    const message = messageField(body.message);
    const deployment = this.deployment(deploymentId, tenantId);
    const revision = deployment.revisions.find((r) => r.id === revisionId.toLowerCase());
    if (!revision) throw revisionNotFound(revisionId);
    const now = this.core.clock.now();
    const { status } = revisionStateAt(revision, now);
    if (isTerminalRevisionStatus(status))
      throw new HttpError(409, `Revision ${revision.id} has already ended (${status}).`);
    if (!revision.stages.includes(stage)) {
      throw new HttpError(
        409,
        `Revision ${revision.id} (${revision.source}) does not pass through ${stage}; its stages: ${revision.stages.join(", ")}.`,
      );
    }
    if (revision.stages.indexOf(status) > revision.stages.indexOf(stage)) {
      throw new HttpError(409, `Revision ${revision.id} is already past ${stage} (it is ${status}).`);
    }
    this.core.store.failRevision(revision, stage, message);
    return revisionView(deployment.id, revision, now);
  }

  /**
   * The health of a deployment's stand-in agent server (agents/server.ts): `state` "failing"
   * makes `/ok` answer 500 for `revision_id`, or without it for the next revision to start
   * (so that a release, then its rollback, can be rehearsed); "ok" clears that mark (without
   * a revision: every mark of the deployment).
   */
  setHealth(deploymentId: string, input: unknown, tenantId?: string): HealthControlAnswer {
    const body = objectBody(input);
    if (body.state !== "failing" && body.state !== "ok") {
      throw invalidField(["body", "state"], 'must be "failing" or "ok"', "enum");
    }
    const deployment = this.deployment(deploymentId, tenantId);
    let revision: StoredRevision | null = null;
    if (body.revision_id != null) {
      if (typeof body.revision_id !== "string" || !isUuid(body.revision_id)) {
        throw invalidField(["body", "revision_id"], "must be a revision ID (a UUID)", "uuid_parsing");
      }
      const id = body.revision_id.toLowerCase();
      revision = deployment.revisions.find((r) => r.id === id) ?? null;
      if (!revision) throw revisionNotFound(id);
    }
    this.core.store.setHealth(deployment, revision, body.state === "ok");
    return {
      deployment_id: deployment.id,
      revision_id: revision?.id ?? null,
      state: body.state,
      url: this.core.agentUrl(deployment.id),
    };
  }

  /**
   * A push to the repository of a gitrepo deployment. It builds a new revision only when
   * build_on_push is true and repo_ref is a branch (spec section 3), and the push is to that
   * branch; otherwise 409 with the reason.
   */
  push(deploymentId: string, input: unknown, tenantId?: string): RevisionT {
    const body = objectBody(input ?? {});
    const deployment = this.deployment(deploymentId, tenantId);
    let sha: string | null = null;
    if (body.sha != null) {
      if (typeof body.sha !== "string" || !/^[0-9a-f]{40}$/i.test(body.sha)) {
        throw invalidField(["body", "sha"], "must be a commit SHA: 40 hexadecimal digits");
      }
      sha = body.sha.toLowerCase();
    }
    if (body.branch != null && (typeof body.branch !== "string" || body.branch === "")) {
      throw invalidField(["body", "branch"], "must be a branch name");
    }
    const refusal = pushRefusal(deployment, typeof body.branch === "string" ? body.branch : null);
    if (refusal) throw new HttpError(409, refusal);
    const now = this.core.clock.now();
    const revision = this.core.store.push(deployment, sha ?? newCommitSha(), now);
    return revisionView(deployment.id, revision, now);
  }

  tracingProjects(tenantId?: string): TracingProjectView[] {
    return this.core.store.tracingProjects(tenantId?.toLowerCase()).map((p) => ({
      id: p.id,
      name: p.name,
      tenant_id: p.tenant_id,
      deployment_id: p.deployment_id,
      created_at: iso(p.created_at),
    }));
  }

  stats(): EmulatorStats {
    return this.core.stats.snapshot();
  }

  /** Empties everything (deployments, uploads, tracing projects, fail rules, faults, counts); the clock stays. */
  reset(): void {
    this.core.store.reset();
    this.core.faults.clear();
    this.core.stats.clear();
  }

  /** A deployment of the scope's tenant (any tenant's without a scope); else 404. */
  private deployment(id: string, tenantId?: string): StoredDeployment {
    if (!isUuid(id)) throw invalidField(["path", "deployment_id"], "must be a UUID", "uuid_parsing");
    const deployment =
      tenantId === undefined ? this.core.store.findAnyTenant(id) : this.core.store.find(tenantId, id);
    if (!deployment) throw deploymentNotFound(id);
    return deployment;
  }
}

function pushRefusal(deployment: StoredDeployment, branch: string | null): string | null {
  if (deployment.source !== "gitrepo") {
    return `Deployment ${deployment.id} is a ${deployment.source} deployment: only gitrepo deployments build on push.`;
  }
  if (deployment.source_config.build_on_push !== true) {
    return `Deployment ${deployment.id} does not build on push (source_config.build_on_push is not true): no revision was created.`;
  }
  const ref = deployment.source_revision_config.repo_ref;
  if (isTagRef(ref))
    return `Deployment ${deployment.id} tracks the tag ${ref}: a push never moves a tag, no revision was created.`;
  const tracked = branchName(ref ?? DEFAULT_BRANCH);
  if (branch !== null && branchName(branch) !== tracked) {
    return `The push is to branch '${branchName(branch)}', but deployment ${deployment.id} tracks '${tracked}': no revision was created.`;
  }
  return null;
}

function branchName(ref: string): string {
  return ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : ref;
}

function objectBody(input: unknown): Record<string, unknown> {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw invalidField(["body"], "must be a JSON object", "model_attributes_type");
  }
  return input as Record<string, unknown>;
}

/** The error line a failure ends its log with: absent or null for the stage's default. */
function messageField(value: unknown): string | null {
  if (value == null) return null;
  if (typeof value !== "string" || value.trim() === "" || value.length > MAX_FAIL_MESSAGE_LENGTH) {
    throw invalidField(
      ["body", "message"],
      `must be a non-empty string of at most ${MAX_FAIL_MESSAGE_LENGTH} characters (the error line that ends the revision's log), or null for the default`,
      "string_type",
    );
  }
  return value;
}

function stageField(value: unknown): RevisionStatus {
  if (typeof value !== "string" || !(FAILABLE_STAGES as readonly string[]).includes(value)) {
    throw invalidField(["body", "stage"], `must be one of ${FAILABLE_STAGES.join(", ")}`, "enum");
  }
  return value as RevisionStatus;
}
