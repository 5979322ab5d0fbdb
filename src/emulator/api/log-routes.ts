// The log endpoints: the documented GET /v2/deployments/{id}/revisions/{rid}/logs (service-facts
// "Newer endpoints") and the /v1/projects calls (service-facts "Logs": the `{deployment_id}`
// in /v1/projects/{id} is a deployment ID). Both read the same streams: a v2 call for a
// revision and `type` gives exactly the entries the v1 call for that revision's build log
// (`build`) or runtime log (`deploy`) gives. Authenticated and scoped to the tenant like every
// deployment route (another tenant's deployment, or a revision that is not the deployment's,
// is a 404 naming it), counted in the statistics and open to faults like the others. The
// query, the body and the answer: logs/log-query.ts.
//
// GET /v2/deployment-logs (service-facts "Newer endpoints") reads the same entries across a
// deployment's revisions (or one of them, `revision_id`): every revision's build log
// (log_type=BUILD) or runtime log (DEPLOY, the default), merged in time order and paged with
// `cursor`/`next_cursor`. Its deployment is named in the query: unknown to the tenant, a 404
// naming it, as every deployment route answers (the document lists 200 and 422 only).
import {
  type LogType,
  parseDeploymentLogQuery,
  parseLogBody,
  parseLogQuery,
  readLog,
} from "../logs/log-query.js";
import {
  buildLog,
  deployLog,
  deploymentDeployLog,
  replacements,
  revisionContext,
} from "../logs/log-streams.js";
import { summarizeTarball, type TarballSummary } from "../logs/tarball-summary.js";
import { deploymentNotFound, ok, revisionNotFound } from "../responses.js";
import type { StoredDeployment, StoredRevision } from "../store/state.js";
import { type Core, deploymentRevision, tenantDeployment } from "./handler-parts.js";
import type { RouteContext, Router } from "./router.js";

export function addLogRoutes(router: Router, core: Core): void {
  const { store } = core;

  /** What the revision's tarball holds, for the files its build log names. */
  const tarballOf = async (revision: StoredRevision): Promise<TarballSummary | null> => {
    const path = revision.source_revision_config.source_tarball_path;
    if (revision.source !== "internal_source" || !path) return null;
    const upload = store.upload(path);
    const data = store.tarball(path);
    return upload?.sha256 && data ? summarizeTarball(upload.sha256, data) : null;
  };

  /** The body's filter, once read; a deployment deleted while it arrived is a 404, as for a PATCH. */
  const filterFor = async (context: RouteContext, deployment: StoredDeployment) => {
    const body = await context.jsonBody();
    if (!store.isCurrent(deployment)) throw deploymentNotFound(deployment.id);
    return parseLogBody(body, context.now);
  };

  /** One revision's build or runtime log, as streams. */
  const revisionLog = async (deployment: StoredDeployment, revision: StoredRevision, type: LogType) => {
    if (type === "build") {
      const { context: lines, newer } = revisionContext(deployment, revision, await tarballOf(revision));
      return buildLog(lines, newer);
    }
    const { context: lines, newer } = revisionContext(deployment, revision, null);
    return deployLog(lines, newer, replacements(deployment.revisions).get(revision.id) ?? null);
  };

  router.add("GET", "/v2/deployments/{deployment_id}/revisions/{revision_id}/logs", async (context) => {
    const deployment = tenantDeployment(core, context);
    const revision = deploymentRevision(deployment, context);
    const { type, filter } = parseLogQuery(context.query, context.now);
    return ok(readLog(await revisionLog(deployment, revision, type), filter));
  });

  router.add("GET", "/v2/deployment-logs", async (context) => {
    const tenantId = context.tenant();
    const { deploymentId, revisionId, type, filter } = parseDeploymentLogQuery(context.query, context.now);
    const deployment = store.find(tenantId, deploymentId);
    if (!deployment) throw deploymentNotFound(deploymentId);
    let revisions = deployment.revisions;
    if (revisionId !== null) {
      revisions = revisions.filter((r) => r.id === revisionId);
      if (revisions.length === 0) throw revisionNotFound(revisionId);
    }
    const streams = (await Promise.all(revisions.map((r) => revisionLog(deployment, r, type)))).flat();
    const page = readLog(streams, filter, { cursorAtEnd: false });
    return ok({ items: page.logs, next_cursor: page.next_offset });
  });

  router.add("POST", "/v1/projects/{deployment_id}/revisions/{revision_id}/build_logs", async (context) => {
    const deployment = tenantDeployment(core, context);
    const revision = deploymentRevision(deployment, context);
    const filter = await filterFor(context, deployment);
    return ok(readLog(await revisionLog(deployment, revision, "build"), filter));
  });

  router.add("POST", "/v1/projects/{deployment_id}/deploy_logs", async (context) => {
    const deployment = tenantDeployment(core, context);
    const filter = await filterFor(context, deployment);
    return ok(readLog(deploymentDeployLog(deployment), filter));
  });

  router.add("POST", "/v1/projects/{deployment_id}/revisions/{revision_id}/deploy_logs", async (context) => {
    const deployment = tenantDeployment(core, context);
    const revision = deploymentRevision(deployment, context);
    const filter = await filterFor(context, deployment);
    return ok(readLog(await revisionLog(deployment, revision, "deploy"), filter));
  });
}
