// HTTP endpoints of the controls (controls.ts), under /_emulator/. No authentication, no
// faults, not counted in the statistics. Documented in the README ("Emulator controls").
import type { Controls } from "./controls.js";
import { noContent, ok } from "./responses.js";
import type { RouteContext, Router } from "./router.js";

export function addControlRoutes(router: Router, controls: Controls): void {
  const body = async (context: RouteContext): Promise<Record<string, unknown>> =>
    ((await context.jsonBody()) ?? {}) as Record<string, unknown>;

  router.add("GET", "/_emulator/health", () => ok({ status: "ok", now: controls.clock().now }));

  router.add("GET", "/_emulator/clock", () => ok(controls.clock()));
  router.add("POST", "/_emulator/clock", async (context) => {
    const input = await context.jsonBody();
    const advance =
      input !== null && typeof input === "object" ? (input as Record<string, unknown>).advance_ms : undefined;
    return ok(controls.advanceClock(advance));
  });

  router.add("GET", "/_emulator/faults", () => ok({ faults: controls.faults() }));
  router.add("POST", "/_emulator/faults", async (context) =>
    ok(controls.addFault(await context.jsonBody()), 201),
  );
  router.add("DELETE", "/_emulator/faults", () => {
    controls.clearFaults();
    return noContent();
  });

  router.add("GET", "/_emulator/revisions/fail-next", () => ok({ rules: controls.failRules() }));
  router.add("POST", "/_emulator/revisions/fail-next", async (context) =>
    ok(controls.failNextRevision(await context.jsonBody()), 201),
  );
  router.add("POST", "/_emulator/deployments/{deployment_id}/revisions/{revision_id}/fail", async (context) =>
    ok(
      controls.failRevision(
        context.params.deployment_id!,
        context.params.revision_id!,
        await context.jsonBody(),
      ),
    ),
  );
  router.add("POST", "/_emulator/deployments/{deployment_id}/push", async (context) =>
    ok(controls.push(context.params.deployment_id!, await body(context)), 201),
  );

  router.add("GET", "/_emulator/tracing-projects", (context) =>
    ok({ resources: controls.tracingProjects(context.query.get("tenant_id") || undefined) }),
  );
  router.add("GET", "/_emulator/stats", () => ok(controls.stats()));
  router.add("POST", "/_emulator/reset", () => {
    controls.reset();
    return noContent();
  });
}
