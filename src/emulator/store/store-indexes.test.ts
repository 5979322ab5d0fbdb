// The store's indexes (store-indexes.ts) against a scan: after any sequence of changes, every
// look-up by ID, by name, a tenant's list in listing order, a page of the deployments listing
// with any filter, tracing projects and uploads answer exactly what scanning everything would.
// The clock may stand still (creation order breaks ties) or run backwards (an OffsetClock
// follows the wall clock, which can).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  allDeployments,
  applyOp,
  NAMES,
  newStore,
  storeOps,
  TENANTS,
} from "../../../test/helpers/store-ops.js";
import { listingPage, pageOf } from "../api/deployment-listing.js";
import type { DeploymentFilters } from "../api/query.js";
import type { StoredDeployment } from "./state.js";
import type { Store } from "./store.js";

const UNKNOWN_ID = "ffffffff-0000-4000-8000-000000000000";

/** The tenant's deployments, newest first, by scanning every deployment. */
function scanNewestFirst(store: Store, tenantId: string): StoredDeployment[] {
  return allDeployments(store)
    .filter((d) => d.tenant_id === tenantId)
    .sort((a, b) => b.created_at - a.created_at || b.seq - a.seq);
}

/** Listing filters, the IDs named by index into the deployments there are (or unknown). */
const rawFilters = fc.record({
  limit: fc.integer({ min: 1, max: 6 }),
  // Mostly the first page: an offset past the matches proves little.
  offset: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat(6) }),
  name: fc.option(fc.constantFrom(...NAMES, "nobody"), { nil: null, freq: 2 }),
  nameContains: fc.option(fc.constantFrom("a", "delta", "ALPHA"), { nil: null, freq: 2 }),
  ids: fc.option(fc.array(fc.nat(100), { maxLength: 8 }), { nil: null, freq: 2 }),
});

type RawFilters = typeof rawFilters extends fc.Arbitrary<infer T> ? T : never;

function toFilters(raw: RawFilters, ids: string[]): DeploymentFilters {
  const { ids: picks, ...rest } = raw;
  return {
    ...rest,
    status: null,
    remoteReconciled: null,
    tagValueIds: null,
    imageVersion: null,
    deploymentType: null,
    deploymentIds: picks ? new Set(picks.map((i) => ids[i % ids.length]!)) : null,
  };
}

describe("index-backed look-ups answer what a scan would", () => {
  it("by ID, by name, a tenant's listing and any page of it, tracing projects, uploads", () => {
    fc.assert(
      fc.property(
        storeOps({ reset: true }),
        fc.array(fc.integer({ min: -3000, max: 3000 }), { minLength: 60, maxLength: 60 }),
        fc.array(rawFilters, { minLength: 1, maxLength: 6 }),
        (ops, clockSteps, listings) => {
          const store = newStore();
          let now = Date.parse("2026-01-01T00:00:00Z");
          for (const [i, op] of ops.entries()) {
            now += clockSteps[i]!; // may stay, may go back
            applyOp(store, op, now);
          }
          const deployments = allDeployments(store);
          const ids = [...deployments.map((d) => d.id), UNKNOWN_ID];

          for (const tenant of TENANTS) {
            const scanned = scanNewestFirst(store, tenant);
            expect([...store.tenantDeployments(tenant)].reverse()).toEqual(scanned);
            for (const id of ids) {
              expect(store.find(tenant, id)).toBe(
                deployments.find((d) => d.id === id && d.tenant_id === tenant),
              );
              expect(store.find(tenant, id.toUpperCase())).toBe(store.find(tenant, id));
            }
            for (const name of [...NAMES, "nobody"]) {
              const match = deployments.find((d) => d.tenant_id === tenant && d.name === name);
              expect(store.findByName(tenant, name)).toBe(match);
              expect(store.nameTaken(tenant, name)).toBe(match !== undefined);
            }
            // Pages of the listing, as the route answers them, against a scan with the same filters.
            for (const raw of listings) {
              const chosen = toFilters(raw, ids);
              expect(listingPage(store, tenant, chosen, now)).toEqual(pageOf(scanned, chosen, now));
            }
            const projects = store.tracingProjects();
            expect(store.tracingProjects(tenant)).toEqual(projects.filter((p) => p.tenant_id === tenant));
          }
          for (const id of ids) expect(store.findAnyTenant(id)).toBe(deployments.find((d) => d.id === id));

          const uploads = [...store.contents().uploads];
          for (const upload of uploads) {
            expect(store.uploadById(upload.id)).toBe(upload);
            expect(store.upload(upload.object_path)).toBe(upload);
            expect(deployments.some((d) => d.id === upload.deployment_id)).toBe(true);
          }
          expect(store.uploadById(UNKNOWN_ID)).toBeUndefined();
          expect(store.storedUploadBytes()).toBe(uploads.reduce((sum, u) => sum + (u.size ?? 0), 0));
        },
      ),
    );
  });

  it("an upload URL issued drops every earlier one that expired unused, as a scan of all of them did", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ pick: fc.nat(5), gap: fc.integer({ min: 0, max: 10 * 60_000 }), upload: fc.boolean() }),
        ),
        (steps) => {
          const store = newStore();
          let now = Date.parse("2026-01-01T00:00:00Z");
          for (let i = 0; i < 3; i++)
            applyOp(store, { kind: "create", tenant: i, name: i, source: "internal_source" }, now);
          for (const { pick, gap, upload } of steps) {
            now += gap; // the emulator's clock never runs backwards
            applyOp(store, { kind: upload ? "completeUpload" : "issueUpload", pick }, now);
            if (!upload) {
              const waiting = [...store.contents().uploads].filter((u) => u.uploaded_at === null);
              expect(waiting.filter((u) => u.expires_at! <= now)).toEqual([]);
            }
          }
        },
      ),
    );
  });
});
