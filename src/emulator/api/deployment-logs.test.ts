// GET /v2/deployment-logs (service-facts "Newer endpoints"): a deployment's log entries across
// its revisions, paged with cursor/next_cursor. The property: paged at any size, in either
// order, every entry the revisions' own logs hold comes exactly once, in order, and the last
// page says so (next_cursor null). Also the query's 422s, 404s and tenants.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../../../test/helpers/emulator.js";
import { ValidationErrorBody } from "../../model/responses.js";

const STAGE = 1000;
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

interface Entry {
  id: string;
  timestamp: string;
  level: string;
  message: string;
}

describe("GET /v2/deployment-logs", () => {
  let em: TestEmulator;
  let git: { id: string };
  let revisions: string[];

  beforeAll(async () => {
    em = await startTestEmulator({ stageMs: STAGE });
    git = await em.createDeployment("gitrepo", "paged");
    em.advance(10 * STAGE + 300_000);
    // A second revision that fails its build, a third that replaces the first, one more in progress.
    em.emulator.failNextRevision({ deploymentId: git.id, stage: "BUILDING" });
    await em.patch(`/v2/deployments/${git.id}`, { source_revision_config: { repo_ref: "broken" } });
    em.advance(10 * STAGE);
    await em.patch(`/v2/deployments/${git.id}`, { source_revision_config: { repo_ref: "fixed" } });
    em.advance(10 * STAGE + 200_000);
    await em.patch(`/v2/deployments/${git.id}`, { source_revision_config: { repo_ref: "next" } });
    em.advance(3.5 * STAGE);
    const listed = (await em.get(`/v2/deployments/${git.id}/revisions?limit=100`)).json.resources;
    revisions = listed.map((r: { id: string }) => r.id).reverse();
    expect(revisions).toHaveLength(4);
  });

  afterAll(async () => {
    await em?.close();
  });

  /** The entries of each revision's own log (the documented revision endpoint), merged oldest first. */
  async function expected(
    type: "BUILD" | "DEPLOY",
    only: string | null,
    level: string | null,
  ): Promise<Entry[]> {
    const tagged: { entry: Entry; revision: number; position: number }[] = [];
    for (const [revision, id] of revisions.entries()) {
      if (only && id !== only) continue;
      const query = `type=${type.toLowerCase()}&limit=1000${level ? `&level=${level}` : ""}`;
      const answer = await em.get(`/v2/deployments/${git.id}/revisions/${id}/logs?${query}`);
      expect(answer.json.logs.length).toBeLessThan(1000);
      answer.json.logs.forEach((entry: Entry, position: number) => {
        tagged.push({ entry, revision, position });
      });
    }
    tagged.sort(
      (a, b) =>
        Date.parse(a.entry.timestamp) - Date.parse(b.entry.timestamp) ||
        a.revision - b.revision ||
        a.position - b.position,
    );
    return tagged.map((t) => t.entry);
  }

  it("the deployment has entries of both types on several revisions (the property below is not vacuous)", async () => {
    const deploy = await expected("DEPLOY", null, null);
    const build = await expected("BUILD", null, null);
    expect(deploy.length).toBeGreaterThan(100);
    expect(build.length).toBeGreaterThan(20);
    const first = await em.get(`/v2/deployment-logs?deployment_id=${git.id}`);
    expect(first.status, first.text).toBe(200);
    expect(first.json.items).toEqual(deploy.slice(0, 20)); // DEPLOY, oldest first, 20 a page by default
    expect(first.json.next_cursor).toEqual(expect.any(String));
  });

  it("paged at any size, in either order: every entry exactly once, in order, then next_cursor null", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          pageSize: fc.oneof(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 8, max: 100 })),
          order: fc.constantFrom("asc", "desc"),
          type: fc.constantFrom("BUILD", "DEPLOY"),
          revision: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
          level: fc.constantFrom(null, "WARNING", "INFO"),
        }),
        async ({ pageSize, order, type, revision, level }) => {
          const only = revision === null ? null : revisions[revision]!;
          const all = await expected(type, only, level);
          const want = order === "asc" ? all : [...all].reverse();
          const got: Entry[] = [];
          let cursor: string | null = null;
          for (let page = 0; page <= want.length + 1; page++) {
            const query = new URLSearchParams({
              deployment_id: git.id,
              log_type: type,
              sort_order: order,
              page_size: String(pageSize),
            });
            if (only) query.set("revision_id", only);
            if (level) query.set("level", level);
            if (cursor) query.set("cursor", cursor);
            const answer = await em.get(`/v2/deployment-logs?${query}`);
            expect(answer.status, answer.text).toBe(200);
            const items = answer.json.items as Entry[];
            got.push(...items);
            cursor = answer.json.next_cursor;
            if (cursor === null) break;
            // A page that says more follows is a full one.
            expect(items).toHaveLength(pageSize);
          }
          expect(cursor).toBeNull();
          expect(got.map((e) => e.id)).toEqual(want.map((e) => e.id));
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("validates the query as the document describes it: 422 at each parameter", async () => {
    const cases: [string, (string | number)[][]][] = [
      ["", [["query", "deployment_id"]]],
      ["deployment_id=nope", [["query", "deployment_id"]]],
      [
        `deployment_id=${git.id}&revision_id=x&log_type=build&sort_order=newest&page_size=101`,
        [
          ["query", "revision_id"],
          ["query", "log_type"],
          ["query", "page_size"],
          ["query", "sort_order"],
        ],
      ],
      [
        `deployment_id=${git.id}&page_size=0&cursor=abc`,
        [
          ["query", "page_size"],
          ["query", "cursor"],
        ],
      ],
      [
        `deployment_id=${git.id}&level=info&start_time=yesterday`,
        [
          ["query", "level"],
          ["query", "start_time"],
        ],
      ],
    ];
    for (const [query, locs] of cases) {
      const answer = await em.get(`/v2/deployment-logs?${query}`);
      expect(answer.status, query).toBe(422);
      expect(ValidationErrorBody.safeParse(answer.json).success).toBe(true);
      expect(answer.json.detail.map((i: { loc: unknown }) => i.loc).sort(), query).toEqual(locs.sort());
    }
    // A cursor of the revision endpoint is a position too: it is taken (the same keys).
    const other = await em.get(`/v2/deployment-logs?deployment_id=${git.id}&run_id=any&unknown=1`);
    expect(other.status).toBe(200);
  });

  it("a deployment or revision unknown to the tenant: 404 naming it", async () => {
    expect((await em.get(`/v2/deployment-logs?deployment_id=${UNKNOWN}`)).json).toEqual({
      detail: `Deployment ID ${UNKNOWN} not found.`,
    });
    const revision = await em.get(`/v2/deployment-logs?deployment_id=${git.id}&revision_id=${UNKNOWN}`);
    expect(revision.status).toBe(404);
    expect(revision.json).toEqual({ detail: `Revision ID ${UNKNOWN} not found.` });
    const theirs = await em.get(`/v2/deployment-logs?deployment_id=${git.id}`, { auth: "other-key" });
    expect(theirs.status).toBe(404);
  });
});
