import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { cliEnv, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

/** A gitrepo deployment with three revisions, newest first: DEPLOYED, BUILD_FAILED, DEPLOYED. */
async function deploymentWithHistory(em: TestEmulator): Promise<{ id: string; revisions: string[] }> {
  const d = await em.createDeployment("gitrepo", "agent");
  em.emulator.failNextRevision({ deploymentId: d.id, stage: "BUILDING" });
  const second = await em.patch(`/v2/deployments/${d.id}`, {
    source_revision_config: { repo_ref: "broken" },
  });
  const third = await em.patch(`/v2/deployments/${d.id}`, { source_revision_config: { repo_ref: "fixed" } });
  em.settle();
  return {
    id: d.id,
    revisions: [third.json.latest_revision_id, second.json.latest_revision_id, d.latest_revision_id],
  };
}

describe("deploy revisions", () => {
  it("marks the active revision in a last column; JSON stays the API's objects", async () => {
    const em = await startTestEmulator();
    const { revisions } = await deploymentWithHistory(em);
    const r = await runCli(["deploy", "revisions", "agent"], { env: cliEnv(em) });
    const rows = r.stdout
      .trim()
      .split("\n")
      .map((line) => line.split("\t"));
    expect(rows.map((row) => row.at(-1))).toEqual(["*", "-", "-"]);
    expect(rows[0]![0]).toBe(revisions[0]);
    const tty = await runCli(["deploy", "revisions", "agent"], { env: cliEnv(em), tty: true });
    expect(tty.stdout).toMatch(/ACTIVE/);
    const json = await runCli(["deploy", "revisions", "agent", "-o", "json"], { env: cliEnv(em) });
    expect(JSON.parse(json.stdout)[0]).not.toHaveProperty("ACTIVE");
  });

  it("deploy list shows when the latest revision failed while the deployment stays READY", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("gitrepo", "agent");
    em.settle();
    em.emulator.failNextRevision({ deploymentId: d.id, stage: "BUILDING" });
    await em.patch(`/v2/deployments/${d.id}`, { source_revision_config: { repo_ref: "broken" } });
    em.settle();
    await em.createDeployment("internal_container", "fine");
    em.settle();
    const r = await runCli(["deploy", "list"], { env: cliEnv(em) });
    const status = Object.fromEntries(
      r.stdout
        .trim()
        .split("\n")
        .map((line) => line.split("\t"))
        .map((row) => [row[1], row[3]]),
    );
    expect(status).toEqual({ agent: "READY (latest revision BUILD_FAILED)", fine: "READY" });
    // JSON is the API's objects, untouched: no extra requests either.
    const before = em.emulator.stats().total;
    const json = await runCli(["deploy", "list", "-o", "json"], { env: cliEnv(em) });
    expect(JSON.parse(json.stdout).map((x: { status: string }) => x.status)).toEqual(["READY", "READY"]);
    expect(em.emulator.stats().total - before).toBe(1);
  });

  it("lists newest first: tab-separated off a terminal, and a table on one", async () => {
    const em = await startTestEmulator();
    const { revisions } = await deploymentWithHistory(em);
    const r = await runCli(["deploy", "revisions", "agent"], { env: cliEnv(em) });
    expect(r.code).toBe(0);
    const rows = r.stdout
      .trim()
      .split("\n")
      .map((line) => line.split("\t"));
    expect(rows.map((row) => row[0])).toEqual(revisions);
    expect(rows.map((row) => row[1])).toEqual(["DEPLOYED", "BUILD_FAILED", "DEPLOYED"]);
    expect(rows.map((row) => row[3])).toEqual(["fixed", "broken", "main"]);

    const tty = await runCli(["deploy", "revisions", "agent"], { env: cliEnv(em), tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/ID\s.*STATUS\s.*SOURCE/);
    expect(tty.stdout).toContain("BUILD_FAILED");
  });

  it("prints json, yaml, ndjson and ids", async () => {
    const em = await startTestEmulator();
    const { id, revisions } = await deploymentWithHistory(em);
    const env = cliEnv(em);

    const json = await runCli(["deploy", "revisions", id, "-o", "json"], { env });
    expect(json.code).toBe(0);
    const list = JSON.parse(json.stdout);
    expect(list.map((rev: { id: string }) => rev.id)).toEqual(revisions);
    expect(list[0]).toMatchObject({
      status: "DEPLOYED",
      source: "gitrepo",
      source_revision_config: { repo_ref: "fixed" },
    });

    const yaml = await runCli(["deploy", "revisions", id, "-o", "yaml"], { env });
    expect(parseYaml(yaml.stdout).map((rev: { id: string }) => rev.id)).toEqual(revisions);

    const ndjson = await runCli(["deploy", "revisions", id, "-o", "ndjson"], { env });
    expect(
      ndjson.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).status),
    ).toEqual(["DEPLOYED", "BUILD_FAILED", "DEPLOYED"]);

    const ids = await runCli(["deploy", "revisions", id, "-o", "id"], { env });
    expect(ids.stdout).toBe(`${revisions.join("\n")}\n`);
  });

  it("filters by status and pages with --limit and --offset", async () => {
    const em = await startTestEmulator();
    const { revisions } = await deploymentWithHistory(em);
    const env = cliEnv(em);
    const ids = async (...args: string[]) => {
      const r = await runCli(["deploy", "revisions", "agent", "-o", "id", ...args], { env });
      expect(r.code).toBe(0);
      return r.stdout.trim().split("\n").filter(Boolean);
    };
    expect(await ids("--status", "DEPLOYED")).toEqual([revisions[0], revisions[2]]);
    expect(await ids("--status", "BUILD_FAILED")).toEqual([revisions[1]]);
    expect(await ids("--status", "QUEUED")).toEqual([]);
    expect(await ids("--limit", "1")).toEqual([revisions[0]]);
    expect(await ids("--limit", "1", "--offset", "1")).toEqual([revisions[1]]);
    expect(await ids("--offset", "3")).toEqual([]);
    expect(await ids("--all")).toEqual(revisions);
    expect(await ids("--all", "--offset", "1")).toEqual(revisions.slice(1));
    expect(await ids("--all", "--status", "DEPLOYED", "--offset", "1")).toEqual([revisions[2]]);
  });

  it("follows every page with --all", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("external_container", "api");
    for (let i = 0; i < 104; i++) {
      await em.patch(`/v2/deployments/${d.id}`, {
        source_revision_config: { image_uri: `registry.example.com/agent:${i}` },
      });
    }
    const r = await runCli(["deploy", "revisions", "api", "--all", "-o", "json"], { env: cliEnv(em) });
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout);
    expect(list).toHaveLength(105);
    expect(list[0].source_revision_config.image_uri).toBe("registry.example.com/agent:103");
    expect(new Set(list.map((rev: { id: string }) => rev.id)).size).toBe(105);
    // Both pages, and at most as many past the end as pages that held items (2).
    const asked = em.emulator.stats().requests["GET /v2/deployments/{deployment_id}/revisions"] ?? 0;
    expect(asked).toBeGreaterThanOrEqual(2);
    expect(asked).toBeLessThanOrEqual(4);
  });

  it("checks --limit, --offset and --status before any request (exit 2)", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("gitrepo", "agent");
    const before = em.emulator.stats().total;
    for (const args of [
      ["--limit", "0"],
      ["--limit", "101"],
      ["--limit", "ten"],
      ["--offset", "-1"],
      ["--offset", "1.5"],
      ["--status", "DONE"],
      ["--all", "--limit", "5"],
    ]) {
      const r = await runCli(["deploy", "revisions", "agent", ...args], { env: cliEnv(em) });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stdout).toBe("");
    }
    const status = await runCli(["deploy", "revisions", "agent", "--status", "DONE"], { env: cliEnv(em) });
    expect(status.stderr).toContain("BUILD_FAILED");
    const limit = await runCli(["deploy", "revisions", "agent", "--limit", "101", "-o", "json"], {
      env: cliEnv(em),
    });
    expect(JSON.parse(limit.stderr).error.message).toContain("from 1 to 100");
    expect(em.emulator.stats().total).toBe(before);
  });

  it("exits 4 for an unknown deployment, by name or ID", async () => {
    const em = await startTestEmulator();
    expect((await runCli(["deploy", "revisions", "ghost"], { env: cliEnv(em) })).code).toBe(4);
    expect((await runCli(["deploy", "revisions", randomUUID()], { env: cliEnv(em) })).code).toBe(4);
  });
});
