// The deployment and revision endpoints (spec 4.1 to 4.4, service-facts). Each handler:
// authenticate, validate with the model (the one statement of the spec's rules), check what
// needs state, then make one change in the store and answer with the resulting view.

import { isTerminalRevisionStatus } from "../../model/enums.js";
import type { FieldIssue } from "../../model/issue-path.js";
import type { RevisionT } from "../../model/responses.js";
import { revisionTriggers } from "../../model/rules.js";
import { trackedPackagesIssues } from "../../model/tracked-packages.js";
import { validateCreateRequest, validatePatchRequest } from "../../model/validate.js";
import { deploymentNotFound, HttpError, invalid, noContent, ok } from "../responses.js";
import { revisionStateAt } from "../store/lifecycle.js";
import type { StoredDeployment } from "../store/state.js";
import { listingPage } from "./deployment-listing.js";
import { type Core, deploymentRevision, tenantDeployment } from "./handler-parts.js";
import {
  parseBulkDeleteIds,
  parseDeleteOptions,
  parseDeploymentFilters,
  parseRevisionFilters,
} from "./query.js";
import type { Router } from "./router.js";
import { checkCreateAgainstState, checkPatchAgainstState } from "./state-rules.js";
import { deploymentJson, deploymentView, revisionView } from "./views.js";

/**
 * `tracked_packages` (service-facts "Tracked packages"): revision metadata beside the request
 * body's own fields, which the model's strict schemas do not hold. Taken out and checked on
 * its own; recorded on the revision the request starts.
 */
function takeTrackedPackages(input: unknown): {
  body: unknown;
  tracked: string[] | null;
  trackedIssues: FieldIssue[];
} {
  if (input === null || typeof input !== "object" || Array.isArray(input) || !("tracked_packages" in input))
    return { body: input, tracked: null, trackedIssues: [] };
  const { tracked_packages: value, ...body } = input as Record<string, unknown>;
  const trackedIssues = trackedPackagesIssues(value);
  return { body, tracked: trackedIssues.length || value == null ? null : (value as string[]), trackedIssues };
}

export function addDeploymentRoutes(router: Router, core: Core): void {
  const { store } = core;
  const findListener = (tenantId: string, id: string) => store.listener(tenantId, id);

  router.add("POST", "/v2/deployments", async (context) => {
    const tenantId = context.tenant();
    const { body, tracked, trackedIssues } = takeTrackedPackages(await context.jsonBody());
    const checked = validateCreateRequest(body);
    if (!checked.ok || trackedIssues.length)
      throw invalid([...(checked.ok ? [] : checked.issues), ...trackedIssues]);
    const request = checked.value;
    const stateIssues = checkCreateAgainstState(tenantId, request, findListener);
    if (stateIssues.length) throw invalid(stateIssues);
    if (store.nameTaken(tenantId, request.name)) {
      throw new HttpError(409, `A deployment named '${request.name}' already exists.`);
    }
    const deployment = store.createDeployment(tenantId, request, context.now, tracked);
    return ok(deploymentView(deployment, context.now, core.agentUrl), 201);
  });

  router.add("GET", "/v2/deployments", (context) => {
    const tenantId = context.tenant();
    const filters = parseDeploymentFilters(context.query);
    const page = listingPage(store, tenantId, filters, context.now);
    const resources = page.map((d) => deploymentJson(d, context.now, core.agentUrl));
    // The offset to send for the next page; a page shorter than `limit` is the last one.
    return {
      status: 200,
      jsonText: `{"resources":[${resources.join(",")}],"offset":${filters.offset + page.length}}`,
    };
  });

  // Bulk delete (service-facts "Bulk delete and listeners"): all of them or, when one is
  // unknown to the tenant, none (404 naming it). The document gives the 200 no schema: the
  // answer is `null`, what the service's framework sends for a handler that returns nothing.
  router.add("DELETE", "/v2/deployments", (context) => {
    const tenantId = context.tenant();
    const deployments = parseBulkDeleteIds(context.query).map((id) => {
      const deployment = store.find(tenantId, id);
      if (!deployment) throw deploymentNotFound(id);
      return deployment;
    });
    store.deleteDeployments(deployments);
    return ok(null);
  });

  // The tenant's free deployments (service-facts "Newer endpoints"): deployment_type dev_free.
  // Before the {deployment_id} route, which would take "free-count" for an ID.
  router.add("GET", "/v2/deployments/free-count", (context) => {
    const tenantId = context.tenant();
    let count = 0;
    for (const deployment of store.tenantDeployments(tenantId))
      if (deployment.source_config.deployment_type === "dev_free") count++;
    return ok({ count });
  });

  router.add("GET", "/v2/deployments/{deployment_id}", (context) => ({
    status: 200,
    jsonText: deploymentJson(tenantDeployment(core, context), context.now, core.agentUrl),
  }));

  router.add("PATCH", "/v2/deployments/{deployment_id}", async (context) => {
    const deployment = tenantDeployment(core, context);
    const { body, tracked, trackedIssues } = takeTrackedPackages(await context.jsonBody());
    // The body took time: a DELETE may have come in meanwhile. Patching the detached record
    // would answer 200 for a deployment that no longer exists.
    if (!store.isCurrent(deployment)) throw deploymentNotFound(deployment.id);
    const checked = validatePatchRequest(body, deploymentView(deployment, context.now, core.agentUrl));
    if (!checked.ok || trackedIssues.length)
      throw invalid([...(checked.ok ? [] : checked.issues), ...trackedIssues]);
    const patch = checked.value;
    const stateIssues = checkPatchAgainstState(deployment, patch, (path) => store.upload(path), findListener);
    if (stateIssues.length) throw invalid(stateIssues);
    store.patchDeployment(deployment, patch, revisionTriggers(patch).length > 0, context.now, tracked);
    return ok(deploymentView(deployment, context.now, core.agentUrl));
  });

  // `force=true`: the reference says force-deleting a deployment that is still active is
  // refused with 400 (service-facts "Newer endpoints"). Active, here: a revision in progress
  // (the service is building or deploying it); a deployment at rest is force-deleted as it is
  // deleted without it (docs/emulator.md, "Deleting deployments").
  router.add("DELETE", "/v2/deployments/{deployment_id}", (context) => {
    const deployment = tenantDeployment(core, context);
    const options = parseDeleteOptions(context.query);
    const working = options.force ? revisionInProgress(deployment, context.now) : null;
    if (working) {
      throw new HttpError(
        400,
        `Deployment ${deployment.id} is still active (revision ${working.id} is ${working.status}): ` +
          "it cannot be force-deleted. Wait until the revision ends, or delete it without force.",
      );
    }
    store.deleteDeployment(deployment, options);
    return noContent();
  });

  router.add("GET", "/v2/deployments/{deployment_id}/revisions", (context) => {
    const deployment = tenantDeployment(core, context);
    const filters = parseRevisionFilters(context.query);
    const page: RevisionT[] = [];
    // As in the deployments listing: remote-reconciled deployments are the self-hosted ones.
    const remote = deployment.source === "external_container";
    if (filters.remoteReconciled !== null && filters.remoteReconciled !== remote) {
      return ok({ resources: page, offset: filters.offset });
    }
    let skipped = 0;
    // Revisions are stored oldest first; answers are newest first.
    for (let i = deployment.revisions.length - 1; i >= 0 && page.length < filters.limit; i--) {
      const view = revisionView(deployment.id, deployment.revisions[i]!, context.now);
      if (filters.statuses !== null && !filters.statuses.has(view.status)) continue;
      if (skipped < filters.offset) skipped++;
      else page.push(view);
    }
    return ok({ resources: page, offset: filters.offset + page.length });
  });

  router.add("GET", "/v2/deployments/{deployment_id}/revisions/{revision_id}", (context) => {
    const deployment = tenantDeployment(core, context);
    return ok(revisionView(deployment.id, deploymentRevision(deployment, context), context.now));
  });

  // Takes no body (service-facts). A revision of another deployment is a 404 like a missing one.
  router.add("POST", "/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy", (context) => {
    const deployment = tenantDeployment(core, context);
    const from = deploymentRevision(deployment, context);
    store.redeploy(deployment, from, context.now);
    return ok(deploymentView(deployment, context.now, core.agentUrl));
  });
}

/** The deployment's revision in progress (only the latest can be), with its status now; null when none is. */
function revisionInProgress(
  deployment: StoredDeployment,
  now: number,
): { id: string; status: string } | null {
  const latest = deployment.revisions.at(-1);
  if (!latest) return null;
  const { status } = revisionStateAt(latest, now);
  return isTerminalRevisionStatus(status) ? null : { id: latest.id, status };
}
