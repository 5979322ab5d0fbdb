// Stored records -> the response shapes of the spec (Deployment 2.1, Revision in
// service-facts). Everything that depends on time (revision status, deployment status,
// active revision) is computed here, at the `now` of the request.
import type { DeploymentStatus } from "../../model/enums.js";
import type { DeploymentT, RevisionT } from "../../model/responses.js";
import { iso } from "../store/clock.js";
import { revisionStateAt } from "../store/lifecycle.js";
import type { StoredDeployment, StoredRevision } from "../store/state.js";
import { versionOf } from "../store/versions.js";

/** The agent-server image version emulated deployments report once one revision is deployed. */
export const EMULATED_IMAGE_VERSION = "0.0.0-emulated";

export interface DeploymentStatusNow {
  status: DeploymentStatus;
  /** Newest DEPLOYED revision. */
  active: StoredRevision | null;
  /** When that revision became DEPLOYED. */
  activeSince: number | null;
}

/** AWAITING_DATABASE until some revision is DEPLOYED, then READY. */
export function deploymentStatusAt(deployment: StoredDeployment, now: number): DeploymentStatusNow {
  const revisions = deployment.revisions;
  for (let i = revisions.length - 1; i >= 0; i--) {
    const state = revisionStateAt(revisions[i]!, now);
    if (state.status === "DEPLOYED")
      return { status: "READY", active: revisions[i]!, activeSince: state.since };
  }
  return { status: "AWAITING_DATABASE", active: null, activeSince: null };
}

/** The address of a deployment's stand-in agent server (agents/server.ts). */
export type AgentAddress = (deploymentId: string) => string;

export function deploymentView(
  deployment: StoredDeployment,
  now: number,
  address: AgentAddress,
): DeploymentT {
  return buildView(deployment, deploymentStatusAt(deployment, now), address);
}

/**
 * Serialised views, reused while nothing they show has changed: serialising is most of what
 * a list request costs. What a view shows changes only with a change to the deployment (its
 * version, see store/versions.ts) or when another revision becomes the active one.
 */
const jsonCache = new WeakMap<StoredDeployment, { key: string; json: string }>();

export function deploymentJson(deployment: StoredDeployment, now: number, address: AgentAddress): string {
  const state = deploymentStatusAt(deployment, now);
  const key = `${versionOf(deployment)}|${state.active?.id ?? ""}|${state.activeSince ?? ""}`;
  const cached = jsonCache.get(deployment);
  if (cached?.key === key) return cached.json;
  const json = JSON.stringify(buildView(deployment, state, address));
  jsonCache.set(deployment, { key, json });
  return json;
}

function buildView(
  deployment: StoredDeployment,
  { status, active, activeSince }: DeploymentStatusNow,
  address: AgentAddress,
): DeploymentT {
  const latest = deployment.revisions.at(-1) ?? null;
  // The deployment changed when its active revision went live, not only when it was patched.
  const updatedAt = Math.max(deployment.updated_at, activeSince ?? 0);
  return {
    name: deployment.name,
    source: deployment.source,
    source_config: { ...deployment.source_config, custom_url: customUrlOf(deployment, address) },
    source_revision_config: deployment.source_revision_config,
    secrets: deployment.secrets,
    secret_references: deployment.secret_references,
    id: deployment.id,
    tenant_id: deployment.tenant_id,
    created_at: iso(deployment.created_at),
    updated_at: iso(updatedAt),
    status,
    latest_revision_id: latest?.id ?? null,
    active_revision_id: active?.id ?? null,
    image_version: active ? EMULATED_IMAGE_VERSION : null,
  };
}

/**
 * The service sets the address of the deployments it hosts; an external_container's is the
 * user's to set, and the emulator's stand-in answers where the user set none. (A gitrepo's
 * stored by an emulator before the stand-ins, `https://...emulator.invalid`, gives way.)
 */
function customUrlOf(deployment: StoredDeployment, address: AgentAddress): string {
  const own = deployment.source_config.custom_url;
  return deployment.source === "external_container" && typeof own === "string" ? own : address(deployment.id);
}

export function revisionView(deploymentId: string, revision: StoredRevision, now: number): RevisionT {
  const state = revisionStateAt(revision, now);
  return {
    id: revision.id,
    deployment_id: deploymentId,
    created_at: iso(revision.created_at),
    updated_at: iso(state.since),
    status: state.status,
    source: revision.source,
    source_revision_config: revision.source_revision_config,
    // An extra field (responses are loose objects): what the revision's tarball was.
    ...(revision.source_tarball_sha256 ? { source_tarball_sha256: revision.source_tarball_sha256 } : {}),
    ...(revision.tracked_packages ? { tracked_packages: revision.tracked_packages } : {}),
  };
}
