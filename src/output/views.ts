// How each resource is shown in table, tab-separated and id output. `columns` is the order of
// the tab-separated rows, which scripts cut by position and which never changes; a terminal
// table shows the name first (`tableOrder`), IDs whole where the terminal has room (users copy
// them; their first 8 characters, which a narrow one shows, are accepted as an ID too), times
// relative, and on a narrow terminal leaves out the columns of `dropOrder` before it shortens
// a name or a status (printer.ts, table.ts).
import type {
  DeploymentT,
  GitIntegrationT,
  GitRepositoryT,
  ListenerT,
  RevisionT,
} from "../model/responses.js";
import type { View } from "./printer.js";

export const deploymentView: View<DeploymentT> = {
  id: (d) => d.id,
  columns: [
    { header: "ID", value: (d) => d.id, kind: "id" },
    { header: "NAME", value: (d) => d.name },
    { header: "SOURCE", value: (d) => d.source },
    { header: "STATUS", value: (d) => d.status },
    { header: "LATEST REV", value: (d) => d.latest_revision_id, kind: "id" },
    { header: "ACTIVE REV", value: (d) => d.active_revision_id, kind: "id" },
    { header: "UPDATED", value: (d) => d.updated_at, kind: "time" },
  ],
  // Name, status, then the ID (whole when the terminal has room: the revision IDs on the
  // right give up their width first), then the rest.
  tableOrder: ["NAME", "STATUS", "ID", "SOURCE", "UPDATED", "LATEST REV", "ACTIVE REV"],
  // The revision IDs (`deploy revisions` shows them), then the source, then the time.
  dropOrder: ["ACTIVE REV", "LATEST REV", "SOURCE", "UPDATED"],
  empty: "No deployments.",
  details: (d) => [
    ["id", d.id],
    ["name", d.name],
    ["source", d.source],
    ["status", d.status],
    // Where its agent server answers (source_config.custom_url, below too): what a person looks for first.
    ["url", d.source_config?.custom_url ?? null],
    ["tenant_id", d.tenant_id],
    ["latest_revision_id", d.latest_revision_id],
    ["active_revision_id", d.active_revision_id],
    ["image_version", d.image_version],
    ["created_at", d.created_at],
    ["updated_at", d.updated_at],
    // Objects: indented key: value lines on a terminal, `source_config.FIELD` rows off one.
    ["source_config", d.source_config],
    ["source_revision_config", d.source_revision_config],
    ["secrets", (d.secrets ?? []).map((s) => `${s.name}=${s.value}`).join(", ") || null],
    [
      "secret_references",
      (d.secret_references ?? []).map((r) => `${r.name}=${r.secret_name}:${r.secret_key}`).join(", ") || null,
    ],
  ],
};

/**
 * The list of deployments: as deploymentView, with STATUS saying when the latest revision is
 * not the active one and what became of it (READY, yet the latest revision BUILD_FAILED).
 */
export function deploymentListView(latestStatus: ReadonlyMap<string, string>): View<DeploymentT> {
  return {
    ...deploymentView,
    columns: deploymentView.columns.map((column) =>
      column.header === "STATUS"
        ? {
            ...column,
            value: (d: DeploymentT) =>
              latestStatus.has(d.id) ? `${d.status} (latest revision ${latestStatus.get(d.id)})` : d.status,
          }
        : column,
    ),
  };
}

/** The revisions of one deployment, the active one marked in a last column (so `cut -f1` still gives IDs). */
export function revisionListView(activeRevisionId: string | null): View<RevisionT> {
  return {
    ...revisionView,
    columns: [
      ...revisionView.columns,
      { header: "ACTIVE", value: (r) => (r.id === activeRevisionId ? "*" : null) },
    ],
  };
}

export const revisionView: View<RevisionT> = {
  id: (r) => r.id,
  columns: [
    { header: "ID", value: (r) => r.id, kind: "id" },
    { header: "STATUS", value: (r) => r.status },
    { header: "SOURCE", value: (r) => r.source },
    {
      header: "REF",
      // What it runs: a ref, an image, or a pushed tarball by its digest's first characters.
      value: (r) =>
        r.source_revision_config?.repo_ref ?? r.source_revision_config?.image_uri ?? tarballDigest(r),
    },
    { header: "COMMIT", value: (r) => r.source_revision_config?.repo_commit_sha?.slice(0, 12) },
    { header: "CREATED", value: (r) => r.created_at, kind: "time" },
    { header: "UPDATED", value: (r) => r.updated_at, kind: "time" },
  ],
  // The ID, the status, what it runs (REF) and the active mark stay.
  dropOrder: ["SOURCE", "COMMIT", "UPDATED", "CREATED"],
  empty: "No revisions.",
};

/** `tarball sha256:0123456789ab` for a revision built from an uploaded tarball whose digest the server reports. */
function tarballDigest(revision: RevisionT): string | null {
  const sha = (revision as { source_tarball_sha256?: unknown }).source_tarball_sha256;
  return typeof sha === "string" && sha !== "" ? `tarball sha256:${sha.slice(0, 12)}` : null;
}

export const integrationView: View<GitIntegrationT> = {
  id: (i) => i.id,
  columns: [
    { header: "ID", value: (i) => i.id, kind: "id" },
    { header: "NAME", value: (i) => i.name },
    { header: "INSTALLATION ID", value: (i) => i.installation_id },
  ],
  tableOrder: ["NAME", "ID"],
  dropOrder: ["INSTALLATION ID"],
  empty: "No integrations.",
};

export const repositoryView: View<GitRepositoryT> = {
  id: (r) => r.url,
  columns: [
    { header: "NAME", value: (r) => `${r.owner}/${r.name}` },
    { header: "URL", value: (r) => r.url },
    { header: "DEFAULT BRANCH", value: (r) => r.default_branch },
    { header: "ID", value: (r) => r.id },
  ],
  dropOrder: ["ID", "DEFAULT BRANCH"],
  empty: "No repositories.",
};

export const listenerView: View<ListenerT> = {
  id: (l) => l.id,
  columns: [
    { header: "ID", value: (l) => l.id, kind: "id" },
    { header: "COMPUTE TYPE", value: (l) => l.compute_type },
    { header: "COMPUTE ID", value: (l) => l.compute_id },
    { header: "NAMESPACES", value: (l) => (l.compute_config?.k8s_namespaces ?? []).join(",") },
    { header: "CREATED", value: (l) => l.created_at, kind: "time" },
  ],
  dropOrder: ["CREATED", "COMPUTE ID"],
  empty: "No listeners.",
};
