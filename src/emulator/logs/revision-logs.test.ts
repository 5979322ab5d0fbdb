// The documented GET /v2/deployments/{id}/revisions/{rid}/logs: for a revision and `type`, the
// very entries the /v1/projects call for that revision's build log or runtime log gives (in both
// orders, page by page, with every filter), the same cursors; the query validated as the
// OpenAPI document says (`type` required, limit 1..1000 default 50, order default asc, 422
// naming each parameter); 404 naming the deployment; the tenant's only; stats and faults.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../../../test/helpers/emulator.js";
import {
  allLogs,
  buildLogsPath,
  deployLogsPath,
  type Entry,
  logPage,
  revisionLogPage,
  revisionLogsPath,
} from "../../../test/helpers/logs.js";
import { LogPage } from "../../model/responses.js";

afterEach(closeTestEmulators);

const STAGE = 1000;
const UNKNOWN = "00000000-0000-4000-8000-000000000000";
type Query = Record<string, string | number>;

/** Every page of the v2 endpoint as the cursor leads, until a page is shorter than asked. */
async function allV2(
  em: TestEmulator,
  deploymentId: string,
  revisionId: string,
  query: Query,
): Promise<{ entries: Entry[]; pages: number }> {
  const entries: Entry[] = [];
  let offset: string | null = null;
  for (let pages = 1; pages <= 200; pages++) {
    const page = await revisionLogPage(em, deploymentId, revisionId, offset ? { ...query, offset } : query);
    entries.push(...page.logs);
    const asked = typeof query.limit === "number" ? query.limit : 50;
    if (page.next_offset === null || page.logs.length < asked) return { entries, pages };
    offset = page.next_offset;
  }
  throw new Error("more than 200 pages");
}

/**
 * Revisions in every kind of state: a gitrepo deployment (deployed, failed build, interrupted,
 * the active one serving), an internal_container one replaced once and failed at deploy, and an
 * internal_source one; ten minutes of request lines on top.
 */
async function history(em: TestEmulator) {
  const git = await em.createDeployment("gitrepo");
  const container = await em.createDeployment("internal_container");
  const source = await em.createDeployment("internal_source");
  em.settle();
  em.emulator.failNextRevision({ deploymentId: git.id, stage: "BUILDING", message: "boom" });
  await em.patch(`/v2/deployments/${git.id}`, { source_revision_config: { repo_ref: "broken" } });
  em.settle();
  await em.patch(`/v2/deployments/${git.id}`, { source_revision_config: { repo_ref: "slow" } });
  em.advance(3 * STAGE);
  await em.patch(`/v2/deployments/${git.id}`, { source_revision_config: { repo_ref: "last" } });
  await em.patch(`/v2/deployments/${container.id}`, {
    source_revision_config: { image_uri: "registry.example.com/agent:2.0.0" },
  });
  em.settle();
  em.emulator.failNextRevision({ deploymentId: container.id, stage: "DEPLOYING" });
  await em.patch(`/v2/deployments/${container.id}`, {
    source_revision_config: { image_uri: "registry.example.com/agent:3.0.0" },
  });
  em.advance(10 * 60_000);
  const revisions: { deploymentId: string; revisionId: string; status: string }[] = [];
  for (const deployment of [git, container, source]) {
    const listed = (await em.get(`/v2/deployments/${deployment.id}/revisions`)).json.resources;
    for (const revision of listed)
      revisions.push({ deploymentId: deployment.id, revisionId: revision.id, status: revision.status });
  }
  return { git, container, source, revisions };
}

describe("the v2 endpoint gives the entries of /v1", () => {
  it("for every revision and type: the same entries in both orders, page by page, and with each filter", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const { revisions } = await history(em);
    expect(revisions.length).toBe(8);
    expect(new Set(revisions.map((r) => r.status))).toEqual(
      new Set(["DEPLOYED", "BUILD_FAILED", "INTERRUPTED", "DEPLOY_FAILED"]),
    );
    const now = em.clock.now();
    const filters: Query[] = [
      {},
      { level: "WARNING" },
      { query: "GET" },
      { start_time: new Date(now - 5 * 60_000).toISOString() },
      { end_time: new Date(now - 9 * 60_000).toISOString() },
    ];
    let compared = 0;
    for (const { deploymentId, revisionId } of revisions) {
      for (const [type, v1Path] of [
        ["build", buildLogsPath(deploymentId, revisionId)],
        ["deploy", deployLogsPath(deploymentId, revisionId)],
      ] as const) {
        for (const filter of filters) {
          for (const order of ["asc", "desc"] as const) {
            const v1 = await allLogs(em, v1Path, { ...filter, order, limit: 1000 });
            const v2 = await allV2(em, deploymentId, revisionId, { ...filter, type, order, limit: 1000 });
            expect(v2.entries, `${type} ${order} ${JSON.stringify(filter)}`).toEqual(v1.entries);
            compared += v1.entries.length;
          }
        }
        // Small pages: the same walk, cursor for cursor.
        const v1 = await allLogs(em, v1Path, { order: "desc", limit: 7 });
        const v2 = await allV2(em, deploymentId, revisionId, { type, order: "desc", limit: 7 });
        expect(v2).toEqual(v1);
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it("defaults to the oldest 50 entries; a cursor of either endpoint goes on in the other", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const deployment = await em.createDeployment("internal_container");
    em.advance(10 * 60_000);
    const revisionId = deployment.latest_revision_id as string;
    const v1 = await logPage(em, deployLogsPath(deployment.id, revisionId), { order: "asc", limit: 50 });
    const v2 = await revisionLogPage(em, deployment.id, revisionId, { type: "deploy" });
    expect(v2).toEqual(v1);
    expect(v2.logs).toHaveLength(50);
    // A cursor is a position in the same streams: v1's goes on in v2 and the other way round.
    const afterV1 = await revisionLogPage(em, deployment.id, revisionId, {
      type: "deploy",
      offset: v1.next_offset!,
      limit: 10,
    });
    const afterV2 = await logPage(em, deployLogsPath(deployment.id, revisionId), {
      order: "asc",
      offset: v2.next_offset,
      limit: 10,
    });
    expect(afterV1).toEqual(afterV2);
    expect(afterV1.logs[0]!.id).not.toBe(v2.logs.at(-1)!.id);
  });

  it("answers that validate against the model's LogPage, for every source and type", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const { revisions } = await history(em);
    for (const { deploymentId, revisionId } of revisions) {
      for (const type of ["build", "deploy"]) {
        const response = await em.get(`${revisionLogsPath(deploymentId, revisionId)}?type=${type}`);
        expect(response.status).toBe(200);
        expect(LogPage.safeParse(response.json).success).toBe(true);
      }
    }
  });
});

describe("the query, as the document says", () => {
  it("refuses each bad parameter with 422 at its place in the query, every problem at once", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("gitrepo");
    const path = revisionLogsPath(deployment.id, deployment.latest_revision_id);
    const cases: [string, string[][], string?][] = [
      ["", [["query", "type"]], "missing"],
      ["order=asc", [["query", "type"]], "missing"],
      ["type=runtime", [["query", "type"]], "enum"],
      ["type=BUILD", [["query", "type"]], "enum"],
      ["type=build&limit=0", [["query", "limit"]], "greater_than_equal"],
      ["type=build&limit=1001", [["query", "limit"]], "less_than_equal"],
      ["type=build&limit=ten", [["query", "limit"]], "int_parsing"],
      ["type=build&limit=2.5", [["query", "limit"]], "int_parsing"],
      ["type=build&order=newest", [["query", "order"]], "enum"],
      ["type=build&order=DESC", [["query", "order"]], "enum"],
      ["type=build&level=warning", [["query", "level"]], "enum"],
      ["type=build&level=TRACE", [["query", "level"]], "enum"],
      ["type=build&offset=not-an-offset", [["query", "offset"]]],
      ["type=build&start_time=yesterday", [["query", "start_time"]], "datetime_parsing"],
      ["type=build&end_time=1735689600000", [["query", "end_time"]], "datetime_parsing"],
      ["type=build&start_time=2025-01-02T00:00:00Z&end_time=2025-01-01T00:00:00Z", [["query", "end_time"]]],
      [
        "limit=-1&level=LOUD",
        [
          ["query", "type"],
          ["query", "limit"],
          ["query", "level"],
        ],
      ],
    ];
    for (const [query, locs, type] of cases) {
      const response = await em.get(`${path}?${query}`);
      expect(response.status, query).toBe(422);
      expect(
        response.json.detail.map((d: { loc: string[] }) => d.loc),
        query,
      ).toEqual(locs);
      if (type) expect(response.json.detail[0].type, query).toBe(type);
    }
    // Empty values are absent; run_id and other parameters are taken and ignored.
    const plain = await em.get(`${path}?type=build`);
    expect(plain.status).toBe(200);
    for (const query of ["type=build&limit=&order=&level=&query=", "type=build&run_id=abc&other=1"]) {
      expect((await em.get(`${path}?${query}`)).json, query).toEqual(plain.json);
    }
  });
});

describe("the route", () => {
  it("404 naming the deployment (the document's example) or the revision; another tenant's is a 404; 422 for a bad ID", async () => {
    const em = await startTestEmulator();
    const mine = await em.createDeployment("gitrepo");
    const other = await em.createDeployment("gitrepo");
    const unknownDeployment = await em.get(
      `${revisionLogsPath(UNKNOWN, mine.latest_revision_id)}?type=build`,
    );
    expect(unknownDeployment.status).toBe(404);
    expect(unknownDeployment.json).toEqual({ detail: `Deployment ID ${UNKNOWN} not found.` });
    for (const revisionId of [UNKNOWN, other.latest_revision_id]) {
      const response = await em.get(`${revisionLogsPath(mine.id, revisionId)}?type=deploy`);
      expect(response.status).toBe(404);
      expect(response.json).toEqual({ detail: `Revision ID ${revisionId} not found.` });
    }
    const path = `${revisionLogsPath(mine.id, mine.latest_revision_id)}?type=build`;
    const foreign = await em.get(path, { auth: "someone-else" });
    expect(foreign.status).toBe(404);
    expect(foreign.json.detail).toBe(`Deployment ID ${mine.id} not found.`);
    expect((await em.get(path, { auth: false })).status).toBe(401);
    expect((await em.get(`${revisionLogsPath("nope", mine.latest_revision_id)}?type=build`)).status).toBe(
      422,
    );
    expect((await em.get(`${revisionLogsPath(mine.id, "nope")}?type=build`)).json.detail[0].loc).toEqual([
      "path",
      "revision_id",
    ]);
    expect((await em.post(path, {})).status).toBe(405);
  });

  it("is counted in the stats and takes faults like every route", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("gitrepo");
    const path = `${revisionLogsPath(deployment.id, deployment.latest_revision_id)}?type=build`;
    em.emulator.addFault({ path: "/v2/deployments/*/revisions/*/logs", status: 404 });
    const faulted = await em.get(path);
    expect(faulted.status).toBe(404);
    expect(faulted.json.detail).toMatch(/^Injected fault/);
    expect((await em.get(path)).status).toBe(200);
    expect(em.emulator.stats().requests).toMatchObject({
      "GET /v2/deployments/{deployment_id}/revisions/{revision_id}/logs": 2,
    });
  });
});
