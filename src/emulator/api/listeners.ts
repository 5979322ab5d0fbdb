// The listener endpoints (service-facts "Bulk delete and listeners", the OpenAPI document's
// list, get, create, patch and delete of /v2/listeners), per tenant: another tenant's listener
// is a 404 like a missing one. Bodies are checked by the model's listener requests (422 in the
// API's shape, the same checks cpctl makes before it sends). Where service-facts is silent the
// emulator keeps the state whole (docs/emulator.md, "Listeners"):
// - a compute ID is one listener's per tenant: a second is a 409 naming the first;
// - a PATCH's compute_config.k8s_namespaces is the whole list; null (or absent) leaves a field;
// - a listener that deployments use (their source_config.listener_id) is not deleted: 409
//   naming them. A PATCH that drops a namespace they use is accepted (the document says
//   nothing of it; cpctl refuses it before sending).
import { validateListenerCreate, validateListenerPatch } from "../../model/listeners.js";
import type { ListenerT } from "../../model/responses.js";
import { HttpError, invalid, noContent, ok } from "../responses.js";
import { iso } from "../store/clock.js";
import type { StoredDeployment, StoredListener } from "../store/state.js";
import { type Core, uuidParam } from "./handler-parts.js";
import { parseListenerPage } from "./query.js";
import type { RouteContext, Router } from "./router.js";

/** How many users a 409 names before it says "and N more". */
const NAMED_USERS = 10;

export function addListenerRoutes(router: Router, core: Core): void {
  const { store } = core;

  /** The caller's listener named by the path; another tenant's is a 404 like a missing one. */
  const tenantListener = (context: RouteContext): StoredListener => {
    const tenantId = context.tenant();
    const id = uuidParam(context, "listener_id");
    const listener = store.listener(tenantId, id);
    if (!listener) throw new HttpError(404, `Listener ID ${id} not found.`);
    return listener;
  };

  router.add("GET", "/v2/listeners", (context) => {
    const tenantId = context.tenant();
    const { limit, offset } = parseListenerPage(context.query);
    const resources = store
      .listeners(tenantId)
      .slice(offset, offset + limit)
      .map(listenerView);
    return ok({ resources, offset: offset + resources.length });
  });

  router.add("POST", "/v2/listeners", async (context) => {
    const tenantId = context.tenant();
    const checked = validateListenerCreate(await context.jsonBody());
    if (!checked.ok) throw invalid(checked.issues);
    const request = checked.value;
    const taken = store.listeners(tenantId).find((l) => l.compute_id === request.compute_id);
    if (taken) {
      throw new HttpError(
        409,
        `A listener for compute ID '${request.compute_id}' already exists: ${taken.id}.`,
      );
    }
    return ok(listenerView(store.createListener(tenantId, request, context.now)), 201);
  });

  router.add("GET", "/v2/listeners/{listener_id}", (context) => ok(listenerView(tenantListener(context))));

  router.add("PATCH", "/v2/listeners/{listener_id}", async (context) => {
    const found = tenantListener(context);
    const body = await context.jsonBody();
    // The body took time: a DELETE (or another PATCH) may have come in meanwhile.
    const listener = store.listener(found.tenant_id, found.id);
    if (!listener) throw new HttpError(404, `Listener ID ${found.id} not found.`);
    const checked = validateListenerPatch(body);
    if (!checked.ok) throw invalid(checked.issues);
    return ok(listenerView(store.patchListener(listener, checked.value, context.now)));
  });

  router.add("DELETE", "/v2/listeners/{listener_id}", (context) => {
    const listener = tenantListener(context);
    const users = store
      .tenantDeployments(listener.tenant_id)
      .filter((d) => String(d.source_config.listener_id ?? "").toLowerCase() === listener.id);
    if (users.length > 0) throw new HttpError(409, inUse(listener, users));
    store.deleteListener(listener, context.now);
    return noContent();
  });
}

/** The document's Listener; `version` only when one was set (the seeded listeners have none). */
export function listenerView(listener: StoredListener): ListenerT {
  return {
    id: listener.id,
    compute_type: listener.compute_type,
    compute_id: listener.compute_id,
    compute_config: { k8s_namespaces: [...listener.k8s_namespaces] },
    ...(listener.version === null ? {} : { version: listener.version }),
    created_at: iso(listener.created_at),
    updated_at: iso(listener.updated_at),
  };
}

function inUse(listener: StoredListener, users: StoredDeployment[]): string {
  const named = users.slice(0, NAMED_USERS).map((d) => `${d.name} (${d.id})`);
  const more = users.length > NAMED_USERS ? ` and ${users.length - NAMED_USERS} more` : "";
  return (
    `Listener ${listener.id} is used by ${users.length} deployment${users.length === 1 ? "" : "s"}: ` +
    `${named.join(", ")}${more}. A deployment's listener is fixed at creation: delete those deployments first.`
  );
}
