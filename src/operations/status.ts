// `deploy status`: one screen a person reads in a second. The deployment (one request, by ID
// or name), then at once its newest revisions and its agent server's `/ok` (agent-health.ts);
// the active revision is read on its own only when it is older than the ten newest. Ages are
// the server's (its Date header), so that they agree with the times it shows.
import { type AgentHealth, agentHealth } from "../api/agent-health.js";
import { getRevision, recentRevisions } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { UnverifiedError } from "../errors.js";
import type { DeploymentT, RevisionT } from "../model/responses.js";
import type { View } from "../output/printer.js";
import { relativeTime } from "../output/relative-time.js";
import { resolveDeployment } from "./resolve.js";

/** How many of the newest revisions are read: the latest, the one before it, and most often the active one. */
const RECENT = 10;

/** `deploy status -o json`: the shape CLI.md ("Releases") gives it. */
export interface DeploymentStatusReport {
  deployment_id: string;
  deployment_name: string;
  url: string | null;
  health: AgentHealth["health"];
  active_revision: { id: string; status: string } | null;
  latest_revision: { id: string; status: string } | null;
}

/** `deploy status`'s options: what its flags parse to (the command checks that they match). */
export type StatusInput = { check?: boolean };

export async function runStatus(ctx: Ctx, ref: string, options: StatusInput): Promise<void> {
  const deployment = await resolveDeployment(ctx, ref);
  const api = await ctx.api();
  const [recent, health] = await Promise.all([
    recentRevisions(api, deployment.id, RECENT),
    agentHealth(api, deployment.source_config.custom_url ?? null, {
      timeoutMs: ctx.requestTimeoutMs,
      signal: ctx.signal,
    }),
  ]);
  const { revisions, serverTime } = recent;
  const byId = (id: string | null) => (id ? revisions.find((r) => r.id === id) : undefined);
  const activeId = deployment.active_revision_id;
  const active = byId(activeId) ?? (activeId ? await getRevision(api, deployment.id, activeId) : null);
  const latest = byId(deployment.latest_revision_id) ?? revisions[0] ?? null;
  const report: DeploymentStatusReport = {
    deployment_id: deployment.id,
    deployment_name: deployment.name,
    url: deployment.source_config.custom_url ?? null,
    health: health.health,
    active_revision: active ? { id: active.id, status: active.status } : null,
    latest_revision: latest ? { id: latest.id, status: latest.status } : null,
  };
  const now = serverTime ?? ctx.clock.now();
  await (await ctx.printer()).item(
    report,
    statusView({ deployment, health, active, latest, revisions, now }),
  );
  if (options.check && health.health !== "ok") {
    throw new UnverifiedError(`deployment ${deployment.name} is not healthy: ${describeHealth(health)}`);
  }
}

interface Seen {
  deployment: DeploymentT;
  health: AgentHealth;
  active: RevisionT | null;
  latest: RevisionT | null;
  revisions: RevisionT[];
  now: number;
}

/** The screen: a line a fact, the latest revision only when it is not the active one. */
function statusView(seen: Seen): View<DeploymentStatusReport> {
  const { deployment, health, active, latest, now } = seen;
  const ago = (iso: string) => relativeTime(iso, now) ?? iso;
  const differs = latest !== null && latest.id !== active?.id;
  return {
    id: (r) => r.deployment_id,
    columns: [],
    details: (r) => [
      ["deployment", `${r.deployment_name} (${r.deployment_id})`],
      ["url", r.url ?? "(none)"],
      ["health", describeHealth(health)],
      [
        "active",
        active
          ? `${active.id} ${active.status}, since ${ago(active.updated_at)}`
          : "no revision is DEPLOYED yet",
      ],
      ...(differs
        ? ([["latest", `${latest.id} ${latest.status}, started ${ago(latest.created_at)}`]] as [
            string,
            string,
          ][])
        : []),
      ["last change", lastChange(seen.revisions, latest, deployment)],
    ],
  };
}

export function describeHealth(health: AgentHealth): string {
  switch (health.health) {
    case "ok":
      return 'ok (/ok answered {"ok": true})';
    case "failing":
      return `failing (${health.reason})`;
    case "unknown":
      return `unknown (${health.reason})`;
  }
}

const SHOWN_FIELDS = ["image_uri", "repo_ref", "agent_config_path"] as const;

/**
 * What the latest revision changed, against the revision before it: its source (an image, a
 * ref, a commit, a tarball by its digest), or, when its source is the same, a redeploy or a
 * change of secrets or resources (which revisions do not show).
 */
function lastChange(revisions: RevisionT[], latest: RevisionT | null, deployment: DeploymentT): string {
  if (!latest) return "no revision yet";
  const index = revisions.findIndex((r) => r.id === latest.id);
  const previous = index >= 0 ? revisions[index + 1] : undefined;
  if (!previous)
    return `the first revision${revisions.length >= RECENT ? " read" : ""} of ${deployment.name}`;
  const now = latest.source_revision_config;
  const before = previous.source_revision_config;
  const changes: string[] = [];
  for (const field of SHOWN_FIELDS) {
    if ((now[field] ?? null) !== (before[field] ?? null))
      changes.push(`${field} ${before[field] ?? "-"} -> ${now[field] ?? "-"}`);
  }
  if ((now.repo_commit_sha ?? null) !== (before.repo_commit_sha ?? null) && now.repo_commit_sha) {
    changes.push(`commit ${now.repo_commit_sha.slice(0, 12)}`);
  }
  const digest = (r: RevisionT) => (r as { source_tarball_sha256?: unknown }).source_tarball_sha256;
  const sha = digest(latest);
  // The same tarball uploaded again (a push of new secrets) is the same source.
  if (
    now.source_tarball_path !== before.source_tarball_path &&
    (typeof sha !== "string" || sha !== digest(previous))
  ) {
    changes.push(typeof sha === "string" ? `tarball sha256 ${sha.slice(0, 12)}` : "a new upload");
  }
  return changes.length > 0
    ? changes.join("; ")
    : "same source as the revision before: a redeploy, or a change of secrets or resources";
}
