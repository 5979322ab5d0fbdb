// List deployments and revisions: paging (limit, offset, next offset), ordering, every
// filter, and 422 for bad query values.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../../../test/helpers/emulator.js";

afterEach(closeTestEmulators);

const names = (response: { json: { resources: { name: string }[] } }) =>
  response.json.resources.map((d) => d.name);

describe("paging", () => {
  it("pages newest first with limit (default 20) and the next offset; ties keep creation order", async () => {
    const em = await startTestEmulator();
    // The manual clock does not move: all 25 share one created_at, the tiebreak decides.
    for (let i = 0; i < 25; i++)
      await em.createDeployment("internal_container", `d${String(i).padStart(2, "0")}`);
    const first = await em.get("/v2/deployments");
    expect(first.json.resources).toHaveLength(20);
    expect(first.json.offset).toBe(20);
    expect(names(first)[0]).toBe("d24");
    expect(names(first)[19]).toBe("d05");
    const second = await em.get(`/v2/deployments?offset=${first.json.offset}`);
    expect(names(second)).toEqual(["d04", "d03", "d02", "d01", "d00"]);
    expect(second.json.offset).toBe(25);
    const past = await em.get("/v2/deployments?offset=25");
    expect(past.json).toEqual({ resources: [], offset: 25 });

    const all: string[] = [];
    let offset = 0;
    for (;;) {
      const page = await em.get(`/v2/deployments?limit=7&offset=${offset}`);
      all.push(...names(page));
      offset = page.json.offset;
      if (page.json.resources.length < 7) break;
    }
    expect(all).toHaveLength(25);
    expect(new Set(all).size).toBe(25);
    expect((await em.get("/v2/deployments?limit=100")).json.resources).toHaveLength(25);
  });

  it("orders by creation time first when the clock moves", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_container", "older");
    em.advance(1000);
    await em.createDeployment("internal_container", "newer");
    expect(names(await em.get("/v2/deployments"))).toEqual(["newer", "older"]);
  });

  it("refuses bad limit, offset and enum or boolean values with 422 at the query parameter", async () => {
    const em = await startTestEmulator();
    for (const [query, name] of [
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=abc", "limit"],
      ["limit=1.5", "limit"],
      ["offset=-1", "offset"],
      ["offset=x", "offset"],
      ["status=DONE", "status"],
      ["deployment_type=huge", "deployment_type"],
      ["remote_reconciled=maybe", "remote_reconciled"],
      ["deployment_ids=abc", "deployment_ids"],
    ]) {
      const response = await em.get(`/v2/deployments?${query}`);
      expect(response.status, query).toBe(422);
      expect(response.json.detail[0].loc).toEqual(["query", name]);
      expect(typeof response.json.detail[0].msg).toBe("string");
    }
    const two = await em.get("/v2/deployments?limit=0&offset=-3");
    expect(two.json.detail.map((i: { loc: string[] }) => i.loc[1])).toEqual(["limit", "offset"]);
    expect((await em.get("/v2/deployments?limit=1")).status).toBe(200);
    expect((await em.get("/v2/deployments?limit=100")).status).toBe(200);
  });
});

describe("filters", () => {
  it("filters by every parameter", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const git = await em.createDeployment("gitrepo", "alpha-git");
    const external = await em.createDeployment("external_container", "beta-ext");
    const prod = await em.post("/v2/deployments", {
      ...em.createBody("gitrepo", "Gamma-prod"),
      source_config: { ...(em.createBody("gitrepo").source_config as object), deployment_type: "prod" },
    });
    expect(prod.status).toBe(201);
    em.settle();
    const ready = await em.createDeployment("internal_source", "delta-new"); // still in progress

    const q = async (query: string) => names(await em.get(`/v2/deployments?${query}`)).sort();
    expect(await q("name=beta-ext")).toEqual(["beta-ext"]);
    expect(await q("name=beta")).toEqual([]);
    expect(await q("name_contains=GAMMA")).toEqual(["Gamma-prod"]);
    expect(await q("name_contains=-")).toHaveLength(4);
    expect(await q("status=READY")).toEqual(["Gamma-prod", "alpha-git", "beta-ext"]);
    expect(await q("status=AWAITING_DATABASE")).toEqual(["delta-new"]);
    expect(await q("remote_reconciled=true")).toEqual(["beta-ext"]);
    expect(await q("remote_reconciled=false")).toEqual(["Gamma-prod", "alpha-git", "delta-new"]);
    expect(await q("deployment_type=dev")).toEqual(["alpha-git"]);
    expect(await q("deployment_type=prod")).toEqual(["Gamma-prod"]);
    expect(await q(`deployment_ids=${git.id},${ready.id}`)).toEqual(["alpha-git", "delta-new"]);
    expect(await q(`deployment_ids=${external.id.toUpperCase()}`)).toEqual(["beta-ext"]);
    expect(await q("tag_value_ids=5f0c6a4e-8f8e-4a53-9c1e-1d2b3c4d5e6f")).toEqual([]);
    const version = (await em.get(`/v2/deployments/${git.id}`)).json.image_version;
    expect(await q(`image_version=${encodeURIComponent(version)}`)).toEqual([
      "Gamma-prod",
      "alpha-git",
      "beta-ext",
    ]);
    expect(await q("image_version=9.9.9")).toEqual([]);
    // Filters combine, and paging applies after filtering.
    expect(await q("remote_reconciled=false&status=READY")).toEqual(["Gamma-prod", "alpha-git"]);
    const page = await em.get("/v2/deployments?status=READY&limit=2&offset=1");
    expect(names(page)).toEqual(["beta-ext", "alpha-git"]);
    expect(page.json.offset).toBe(3);
    // Empty values mean no filter.
    expect(await q("name=&status=")).toHaveLength(4);
  });
});

describe("revision listing", () => {
  it("pages and filters revisions by status", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const created = await em.createDeployment("internal_container");
    const ids = [created.latest_revision_id];
    for (const tag of ["2", "3", "4"]) {
      const patched = await em.patch(`/v2/deployments/${created.id}`, {
        source_revision_config: { image_uri: `r/a:${tag}` },
      });
      ids.push(patched.json.latest_revision_id);
    }
    const base = `/v2/deployments/${created.id}/revisions`;
    const page = await em.get(`${base}?limit=2&offset=1`);
    expect(page.json.resources.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
    expect(page.json.offset).toBe(3);
    const skipped = await em.get(`${base}?status=SKIPPED`);
    expect(skipped.json.resources.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect((await em.get(`${base}?status=CREATING`)).json.resources.map((r: { id: string }) => r.id)).toEqual(
      [ids[3]],
    );
    expect((await em.get(`${base}?status=FINE`)).status).toBe(422);
    expect((await em.get(`${base}?limit=0`)).json.detail[0].loc).toEqual(["query", "limit"]);
  });
});
