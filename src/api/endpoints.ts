// One typed function per endpoint of the spec and service-facts. Commands call these, not
// raw paths, so every path and query name is written once.

import type { ListenerCreate, ListenerPatch } from "../model/listeners.js";
import type {
  DeploymentT,
  GitIntegrationT,
  GitRepositoryT,
  ListenerT,
  LogEntry,
  PushTokenResponseT,
  RevisionT,
  UploadUrlResponseT,
} from "../model/responses.js";
import type { CreateRequest, PatchRequest } from "../model/schemas.js";
import type { ApiClient, Query, RequestOptions } from "./client.js";

export interface Page<T> {
  resources: T[];
  offset: number;
}

/** List filters: spec 4.2 with the query names of service-facts.md. */
export interface DeploymentFilters {
  name?: string;
  name_contains?: string;
  status?: string;
  remote_reconciled?: boolean;
  tag_value_ids?: string;
  image_version?: string;
  deployment_type?: string;
  deployment_ids?: string;
}

/**
 * An ID as one path segment. IDs usually come from the server (a latest_revision_id): one
 * holding a lone UTF-16 surrogate, which encodeURIComponent refuses (URIError), is sent with
 * U+FFFD in its place, and the server answers what it makes of it (a 404).
 */
export function pathSegment(id: string): string {
  return encodeURIComponent(id.replace(LONE_SURROGATE, "\ufffd"));
}
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const deploymentPath = (id: string) => `/v2/deployments/${pathSegment(id)}`;

export async function createDeployment(api: ApiClient, body: CreateRequest): Promise<DeploymentT> {
  return (await api.post<DeploymentT>("/v2/deployments", body)).body;
}

export async function listDeployments(
  api: ApiClient,
  filters: DeploymentFilters,
  page: { limit?: number; offset?: number },
  opts: Omit<RequestOptions, "query"> = {},
): Promise<Page<DeploymentT>> {
  return (
    await api.get<Page<DeploymentT>>("/v2/deployments", { ...opts, query: { ...filters, ...page } as Query })
  ).body;
}

/**
 * One page of the list, and the server's time of the answer (its Date header; null without a
 * readable one): ages are the server's, whatever the machine's clock says (prune --older-than).
 */
export async function listDeploymentsDated(
  api: ApiClient,
  filters: DeploymentFilters,
  page: { limit?: number; offset?: number },
): Promise<{ page: Page<DeploymentT>; serverTime: number | null }> {
  const answer = await api.get<Page<DeploymentT>>("/v2/deployments", {
    query: { ...filters, ...page } as Query,
  });
  return { page: answer.body, serverTime: serverTimeOf(answer.headers) };
}

/** Every deployment matching the filters, pages of 100 (from `offset`). */
export function allDeployments(
  api: ApiClient,
  filters: DeploymentFilters,
  { offset = 0 }: { offset?: number } = {},
): AsyncGenerator<DeploymentT[]> {
  return api.paginate<DeploymentT>("/v2/deployments", { ...filters, offset } as Query);
}

export async function getDeployment(api: ApiClient, id: string): Promise<DeploymentT> {
  return (await api.get<DeploymentT>(deploymentPath(id))).body;
}

export async function patchDeployment(api: ApiClient, id: string, body: PatchRequest): Promise<DeploymentT> {
  return (await api.patch<DeploymentT>(deploymentPath(id), body)).body;
}

/**
 * `force`: `force=true` (service-facts "Newer endpoints"), which the service refuses with 400
 * for a deployment that is still active.
 */
export async function deleteDeployment(
  api: ApiClient,
  id: string,
  { force = false }: { force?: boolean } = {},
): Promise<void> {
  // DELETE is retried; a retry that finds nothing means the attempt whose answer was lost
  // did the deleting.
  await api.delete(deploymentPath(id), { doneOnRetry: [404], ...(force ? { query: { force: true } } : {}) });
}

/**
 * Deletes deployments in one call, at most BULK_DELETE_MAX (model/enums.ts) IDs: all of them,
 * or none when one is unknown to the tenant (an ApiError 404 naming it). The API layer retries
 * a DELETE; a retry after an answer that was lost finds the IDs gone and answers 404 too, with
 * nothing deleted by it. So a 404 says only that one of them is gone (by this call or another
 * client's): the caller looks again at which are left (operations/delete-batches.ts).
 */
export async function deleteDeployments(api: ApiClient, ids: readonly string[]): Promise<void> {
  await api.delete("/v2/deployments", { query: { deployment_ids: ids } });
}

export async function listRevisions(
  api: ApiClient,
  id: string,
  query: { limit?: number; offset?: number; status?: string },
): Promise<Page<RevisionT>> {
  return (await api.get<Page<RevisionT>>(`${deploymentPath(id)}/revisions`, { query })).body;
}

/**
 * The newest revisions (one page), and the server's time of the answer (its Date header; null
 * without a readable one): ages are the server's, whatever the machine's clock says.
 */
export async function recentRevisions(
  api: ApiClient,
  id: string,
  limit: number,
): Promise<{ revisions: RevisionT[]; serverTime: number | null }> {
  const answer = await api.get<Page<RevisionT>>(`${deploymentPath(id)}/revisions`, { query: { limit } });
  return { revisions: answer.body.resources, serverTime: serverTimeOf(answer.headers) };
}

/** The time an answer's Date header gives, in ms; null without a readable one. */
function serverTimeOf(headers: Record<string, string>): number | null {
  const date = Date.parse(headers.date ?? "");
  return Number.isNaN(date) ? null : date;
}

/** Every revision, newest first, pages of 100. */
export function allRevisions(
  api: ApiClient,
  id: string,
  { status }: { status?: string } = {},
): AsyncGenerator<RevisionT[]> {
  return api.paginate<RevisionT>(`${deploymentPath(id)}/revisions`, { status });
}

export async function getRevision(
  api: ApiClient,
  id: string,
  revisionId: string,
  opts: RequestOptions = {},
): Promise<RevisionT> {
  return (await api.get<RevisionT>(`${deploymentPath(id)}/revisions/${pathSegment(revisionId)}`, opts)).body;
}

/** Starts a new revision from `revisionId`'s source_revision_config: a rollback, or a retry. */
export async function redeployRevision(api: ApiClient, id: string, revisionId: string): Promise<DeploymentT> {
  return (
    await api.post<DeploymentT>(
      `${deploymentPath(id)}/revisions/${pathSegment(revisionId)}/redeploy`,
      undefined,
    )
  ).body;
}

/**
 * What a log read asks for (service-facts "Logs"), every field optional: the query of the v2
 * endpoint, the body of the /v1/projects calls, with the same names.
 */
export interface LogQuery {
  limit?: number;
  order?: "asc" | "desc";
  offset?: string;
  level?: string;
  query?: string;
  start_time?: string;
  end_time?: string;
}

export interface LogPage {
  logs: LogEntry[];
  next_offset: string | null;
}

/**
 * Which log: a revision's build log, or its runtime log. `wholeDeployment`: a runtime log
 * chosen for the deployment (its serving revision), which the /v1 fallback reads as the whole
 * deployment's runtime log (every revision), as `/v1/projects/{id}/deploy_logs` always gave it.
 */
export type LogSource =
  | { kind: "build"; deploymentId: string; revisionId: string }
  | { kind: "runtime"; deploymentId: string; revisionId: string; wholeDeployment?: boolean };

/** The documented endpoint (CLI.md, service-facts "Newer endpoints"): one revision's log of one type. */
export function revisionLogsPath(source: LogSource): string {
  return `${deploymentPath(source.deploymentId)}/revisions/${pathSegment(source.revisionId)}/logs`;
}

/** `GET /v2/deployments/{id}/revisions/{rid}/logs?type=build|deploy&...`. */
export async function readRevisionLogPage(
  api: ApiClient,
  source: LogSource,
  query: LogQuery,
): Promise<LogPage> {
  const type = source.kind === "build" ? "build" : "deploy";
  return (await api.get<LogPage>(revisionLogsPath(source), { query: { type, ...query } })).body;
}

/** The /v1/projects call that reads the same log (the whole deployment's runtime log for `wholeDeployment`). */
export function projectLogsPath(source: LogSource): string {
  const project = `/v1/projects/${pathSegment(source.deploymentId)}`;
  if (source.kind === "runtime" && source.wholeDeployment) return `${project}/deploy_logs`;
  const revision = `${project}/revisions/${pathSegment(source.revisionId)}`;
  return `${revision}/${source.kind === "build" ? "build_logs" : "deploy_logs"}`;
}

/** `POST /v1/projects/{id}/...`: the public clients' calls, read only when v2 is missing (api/log-endpoints.ts). */
export async function readProjectLogPage(
  api: ApiClient,
  source: LogSource,
  query: LogQuery,
): Promise<LogPage> {
  // A POST that only reads: safe to repeat.
  return (await api.post<LogPage>(projectLogsPath(source), query, { retrySafe: true })).body;
}

export async function createUploadUrl(api: ApiClient, id: string): Promise<UploadUrlResponseT> {
  // Asking for an upload URL has no effect beyond issuing a path: safe to repeat.
  return (
    await api.post<UploadUrlResponseT>(`${deploymentPath(id)}/upload-url`, undefined, { retrySafe: true })
  ).body;
}

/** A short-lived token to push an internal_container deployment's image, and where to push it. */
export async function createPushToken(api: ApiClient, id: string): Promise<PushTokenResponseT> {
  // Issuing a token changes nothing: safe to repeat.
  return (
    await api.post<PushTokenResponseT>(`${deploymentPath(id)}/push-token`, undefined, { retrySafe: true })
  ).body;
}

/** A tarball to upload: its length, and its bytes read at a position (again for a retry). */
interface UploadBody {
  readonly bytes: number;
  readAt(target: Buffer, position: number): Promise<number>;
}

/** PUTs the tarball to a pre-signed upload URL, streamed from where it is kept (not memory). */
export async function uploadTarball(api: ApiClient, uploadUrl: string, tarball: UploadBody): Promise<void> {
  await api.put(uploadUrl, undefined, {
    absoluteUrl: true,
    rawBody: { length: tarball.bytes, readAt: (target, position) => tarball.readAt(target, position) },
    contentType: "application/gzip",
  });
}

export async function listListeners(api: ApiClient): Promise<ListenerT[]> {
  const listeners: ListenerT[] = [];
  for await (const page of api.paginate<ListenerT>("/v2/listeners")) listeners.push(...page);
  return listeners;
}

const listenerPath = (id: string) => `/v2/listeners/${pathSegment(id)}`;

export async function getListener(api: ApiClient, id: string): Promise<ListenerT> {
  return (await api.get<ListenerT>(listenerPath(id))).body;
}

/** `POST /v2/listeners` (201); a compute ID the tenant already has is a 409. Never sent twice. */
export async function createListener(api: ApiClient, body: ListenerCreate): Promise<ListenerT> {
  return (await api.post<ListenerT>("/v2/listeners", body)).body;
}

/** `PATCH /v2/listeners/{id}`: compute_config.k8s_namespaces, when sent, is the whole list. */
export async function patchListener(api: ApiClient, id: string, body: ListenerPatch): Promise<ListenerT> {
  return (await api.patch<ListenerT>(listenerPath(id), body)).body;
}

export async function deleteListener(api: ApiClient, id: string): Promise<void> {
  // As for a deployment: a retry's 404 means the attempt whose answer was lost deleted it.
  await api.delete(listenerPath(id), { doneOnRetry: [404] });
}

export async function listIntegrations(api: ApiClient, alt = false): Promise<GitIntegrationT[]> {
  const path = alt ? "/v1/integrations/alt/gitrepo/install" : "/v1/integrations/gitrepo/install";
  return (await api.get<GitIntegrationT[]>(path)).body;
}

/** The repositories a git integration can reach (`alt`: one of the alternate listing). */
export async function listIntegrationRepos(
  api: ApiClient,
  integrationId: string,
  alt = false,
): Promise<GitRepositoryT[]> {
  const path = `/v1/integrations${alt ? "/alt" : ""}/gitrepo/${pathSegment(integrationId)}/repos`;
  return (await api.get<GitRepositoryT[]>(path)).body;
}
