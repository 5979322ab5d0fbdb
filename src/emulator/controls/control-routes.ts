// HTTP endpoints of the controls (controls.ts), under /_emulator/. No faults, not counted in
// the statistics. Documented in docs/emulator.md ("Emulator controls").
//
// Two kinds: the emulator-wide ones (clock, faults, stats, reset) are the operator's and ask
// `context.operator()` (api/control-auth.ts); the ones that read or change a tenant's data
// (tracing projects, fail rules, failing a revision, a revision's health, a push)
// authenticate as the API does and act within the caller's tenant. Health needs nothing: it
// tells nothing but that this is an emulator, its time and its registry's and agents' addresses.
import { EMULATOR_SERVICE, type EmulatorHealth } from "../../model/emulator-controls.js";
import type { Handler, RouteContext, Router } from "../api/router.js";
import { noContent, ok } from "../responses.js";
import type { Controls } from "./controls.js";

/**
 * `registryHost`: HOST:PORT of the image registry, `agentsUrl` the agent servers' address, for
 * the health answer (null before they listen).
 */
export function addControlRoutes(
  router: Router,
  controls: Controls,
  registryHost: () => string | null,
  agentsUrl: () => string | null,
): void {
  const body = async (context: RouteContext): Promise<Record<string, unknown>> =>
    ((await context.jsonBody()) ?? {}) as Record<string, unknown>;
  const operator =
    (handler: Handler): Handler =>
    (context) => {
      context.operator();
      return handler(context);
    };

  // `service` tells a client that asks before sending a control (with credentials) that this
  // is an emulator: a health check of some other server says "ok" too.
  router.add("GET", "/_emulator/health", () =>
    ok({
      status: "ok",
      service: EMULATOR_SERVICE,
      now: controls.clock().now,
      registry: registryHost(),
      agents: agentsUrl(),
    } satisfies EmulatorHealth),
  );

  router.add(
    "GET",
    "/_emulator/clock",
    operator(() => ok(controls.clock())),
  );
  router.add(
    "POST",
    "/_emulator/clock",
    operator(async (context) => {
      const input = await context.jsonBody();
      const advance =
        input !== null && typeof input === "object"
          ? (input as Record<string, unknown>).advance_ms
          : undefined;
      return ok(controls.advanceClock(advance));
    }),
  );

  router.add(
    "GET",
    "/_emulator/faults",
    operator(() => ok({ faults: controls.faults() })),
  );
  router.add(
    "POST",
    "/_emulator/faults",
    operator(async (context) => ok(controls.addFault(await context.jsonBody()), 201)),
  );
  router.add(
    "DELETE",
    "/_emulator/faults",
    operator(() => {
      controls.clearFaults();
      return noContent();
    }),
  );

  router.add("GET", "/_emulator/revisions/fail-next", (context) =>
    ok({ rules: controls.failRules(context.tenant()) }),
  );
  router.add("POST", "/_emulator/revisions/fail-next", async (context) => {
    const tenantId = context.tenant();
    return ok(controls.failNextRevision(await context.jsonBody(), tenantId), 201);
  });
  router.add(
    "POST",
    "/_emulator/deployments/{deployment_id}/revisions/{revision_id}/fail",
    async (context) => {
      const tenantId = context.tenant();
      return ok(
        controls.failRevision(
          context.params.deployment_id!,
          context.params.revision_id!,
          await context.jsonBody(),
          tenantId,
        ),
      );
    },
  );
  router.add("POST", "/_emulator/deployments/{deployment_id}/health", async (context) => {
    const tenantId = context.tenant();
    return ok(controls.setHealth(context.params.deployment_id!, await context.jsonBody(), tenantId));
  });
  router.add("POST", "/_emulator/deployments/{deployment_id}/push", async (context) => {
    const tenantId = context.tenant();
    return ok(controls.push(context.params.deployment_id!, await body(context), tenantId), 201);
  });

  router.add("GET", "/_emulator/tracing-projects", (context) =>
    ok({ resources: controls.tracingProjects(context.tenant()) }),
  );
  router.add(
    "GET",
    "/_emulator/stats",
    operator(() => ok(controls.stats())),
  );
  router.add(
    "POST",
    "/_emulator/reset",
    operator(() => {
      controls.reset();
      return noContent();
    }),
  );
}
