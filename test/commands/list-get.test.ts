import { afterEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { json, startServer } from "../helpers/http-server.js";
import { cliEnv, instantClock, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

describe("deploy list", () => {
  it("filters by every parameter of the spec and service facts", async () => {
    const em = await startTestEmulator();
    const gitrepo = em.createBody("gitrepo") as { source_config: Record<string, unknown> };
    const a = await em.createDeployment("gitrepo", "alpha-web", {
      source_config: { ...gitrepo.source_config, deployment_type: "prod" },
    });
    const b = await em.createDeployment("external_container", "beta-api");
    await em.createDeployment("internal_container", "gamma-web");
    const names = async (...args: string[]) => {
      const r = await runCli(["deploy", "list", "-o", "json", ...args], { env: cliEnv(em) });
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { name: string }[]).map((d) => d.name).sort();
    };
    expect(await names()).toEqual(["alpha-web", "beta-api", "gamma-web"]);
    expect(await names("--name", "beta-api")).toEqual(["beta-api"]);
    expect(await names("--name", "beta")).toEqual([]);
    expect(await names("--name-contains", "web")).toEqual(["alpha-web", "gamma-web"]);
    expect(await names("--deployment-type", "prod")).toEqual(["alpha-web"]);
    expect(await names("--remote-reconciled", "true")).toEqual(["beta-api"]);
    expect(await names("--deployment-ids", `${a.id},${b.id}`)).toEqual(["alpha-web", "beta-api"]);
    expect(await names("--status", "READY")).toEqual(["alpha-web", "beta-api", "gamma-web"]);
    expect(await names("--status", "AWAITING_DATABASE")).toEqual([]);
    expect(await names("--tag-value-ids", "0f0f0f0f-0000-4000-8000-000000000000")).toEqual([]);
    expect(await names("--image-version", "no-such-version")).toEqual([]);
  });

  it("checks --limit and --offset before sending anything", async () => {
    const em = await startTestEmulator();
    for (const args of [
      ["--limit", "0"],
      ["--limit", "101"],
      ["--limit", "x"],
      ["--offset", "-1"],
      ["--all", "--limit", "5"],
    ]) {
      const r = await runCli(["deploy", "list", ...args], { env: cliEnv(em) });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/--limit|--offset/);
    }
    const bad = await runCli(["deploy", "list", "--deployment-ids", "a,b"], { env: cliEnv(em) });
    expect(bad.code).toBe(2);
    expect(em.emulator.stats().requests["GET /v2/deployments"] ?? 0).toBe(0);
  });

  it("pages with --limit/--offset and follows every page with --all (json array, ndjson stream, ids)", async () => {
    const em = await startTestEmulator();
    for (let i = 0; i < 230; i++)
      await em.createDeployment("internal_container", `dep-${String(i).padStart(3, "0")}`);
    const page = await runCli(["deploy", "list", "--limit", "7", "--offset", "3", "-o", "id"], {
      env: cliEnv(em),
    });
    expect(page.stdout.trim().split("\n")).toHaveLength(7);
    const before = em.emulator.stats().requests["GET /v2/deployments"] ?? 0;
    // One page at a time: exactly the three pages.
    const all = await runCli(["deploy", "list", "--all", "-o", "json"], {
      env: cliEnv(em, { CPCTL_PAGE_WINDOW: "1" }),
    });
    expect(all.code).toBe(0);
    const items = JSON.parse(all.stdout) as { id: string }[];
    expect(items).toHaveLength(230);
    expect(new Set(items.map((d) => d.id)).size).toBe(230);
    expect((em.emulator.stats().requests["GET /v2/deployments"] ?? 0) - before).toBe(3);
    // With pages asked ahead (the default window): the same list, and no more requests past
    // its end than pages that held items (3): at most 6 in all.
    const ahead = await runCli(["deploy", "list", "--all", "-o", "json"], { env: cliEnv(em) });
    expect(JSON.parse(ahead.stdout)).toEqual(items);
    expect((em.emulator.stats().requests["GET /v2/deployments"] ?? 0) - before - 3).toBeLessThanOrEqual(6);
    const nd = await runCli(["deploy", "list", "--all", "-o", "ndjson"], { env: cliEnv(em) });
    const lines = nd.stdout.trim().split("\n");
    expect(lines).toHaveLength(230);
    expect(lines.every((line) => typeof JSON.parse(line).id === "string")).toBe(true);
    const empty = await runCli(["deploy", "list", "--name", "none", "-o", "json"], { env: cliEnv(em) });
    expect(JSON.parse(empty.stdout)).toEqual([]);
  });

  it("prints a table on a terminal and tab-separated rows off one, yaml on request", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("gitrepo", "tabular");
    const plain = await runCli(["deploy", "list"], { env: cliEnv(em) });
    const columns = plain.stdout.trim().split("\t");
    expect(columns.slice(0, 4)).toEqual([d.id, "tabular", "gitrepo", "READY"]);
    expect(plain.stdout).not.toMatch(/\u001b\[/);
    const tty = await runCli(["deploy", "list"], { env: cliEnv(em), tty: true });
    expect(tty.stdout).toMatch(/NAME\s+STATUS\s+ID\s+SOURCE\s+UPDATED/);
    expect(tty.stdout).toContain("tabular");
    const yaml = await runCli(["deploy", "list", "-o", "yaml"], { env: cliEnv(em) });
    expect(yaml.stdout).toMatch(/^- name: tabular/m);
  });
});

describe("deploy list, long and short, in every format", () => {
  it("off a terminal: the tab-separated rows scripts parse, unchanged (view order, ISO times, no header)", async () => {
    const em = await startTestEmulator();
    for (let i = 0; i < 120; i++)
      await em.createDeployment("internal_container", `tsv-${String(i).padStart(3, "0")}`);
    const json = await runCli(["deploy", "list", "--all", "-o", "json"], { env: cliEnv(em) });
    const expected = (JSON.parse(json.stdout) as Record<string, string>[])
      .map((d) =>
        [d.id, d.name, d.source, d.status, d.latest_revision_id, d.active_revision_id, d.updated_at].join(
          "\t",
        ),
      )
      .join("\n");
    const all = await runCli(["deploy", "list", "--all"], { env: cliEnv(em) });
    expect(all.stdout).toBe(`${expected}\n`);
    const page = await runCli(["deploy", "list", "--limit", "5"], { env: cliEnv(em) });
    expect(page.stdout).toBe(`${expected.split("\n").slice(0, 5).join("\n")}\n`);
  });

  it("yaml over several pages is one sequence that reads back as the json list", async () => {
    const em = await startTestEmulator();
    for (let i = 0; i < 105; i++)
      await em.createDeployment("external_container", `yaml-${String(i).padStart(3, "0")}`);
    const json = await runCli(["deploy", "list", "--all", "-o", "json"], { env: cliEnv(em) });
    const yaml = await runCli(["deploy", "list", "--all", "-o", "yaml"], { env: cliEnv(em) });
    expect(yaml.code).toBe(0);
    expect(parseYaml(yaml.stdout)).toEqual(JSON.parse(json.stdout));
    const none = await runCli(["deploy", "list", "--all", "--name", "none", "-o", "yaml"], {
      env: cliEnv(em),
    });
    expect(parseYaml(none.stdout)).toEqual([]);
  });

  it("on a terminal: times relative to the CLI's clock, the ID whole where the width allows", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("gitrepo", "relative");
    const clock = instantClock(em.clock.now() + 2 * 24 * 3600_000 + 5 * 60_000);
    const tty = await runCli(["deploy", "list"], { env: cliEnv(em, { NO_COLOR: "1" }), tty: true, clock });
    const [header, row] = tty.stdout.split("\n");
    expect(header).toMatch(/^NAME\s+STATUS\s+ID\s+SOURCE\s+UPDATED\s+LATEST REV\s+ACTIVE REV$/);
    expect(row).toMatch(new RegExp(`^relative\\s+READY\\s+${d.id}\\s+gitrepo\\s+2d ago\\s`));
    expect(tty.stdout).not.toContain(d.updated_at);
  });
});

describe("deploy get and name resolution", () => {
  it("gets by ID and by exact name; an unknown one exits 4", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("gitrepo", "findme");
    for (const ref of [d.id, "findme"]) {
      const r = await runCli(["deploy", "get", ref, "-o", "json"], { env: cliEnv(em) });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).id).toBe(d.id);
    }
    const byName = await runCli(["deploy", "get", "find"], { env: cliEnv(em) });
    expect(byName.code).toBe(4);
    expect(byName.stderr).toContain("no deployment named 'find'");
    const byId = await runCli(["deploy", "get", "0f0f0f0f-0000-4000-8000-000000000000", "-o", "json"], {
      env: cliEnv(em),
    });
    expect(byId.code).toBe(4);
    expect(JSON.parse(byId.stderr).error).toMatchObject({ code: "not_found", status: 404 });
  });

  it("lists the IDs and exits 2 when a name matches more than one deployment", async () => {
    // The emulator keeps names unique, so a tiny server plays a service that does not.
    const twins = [1, 2].map((n) => ({ id: `0000000${n}-0000-4000-8000-000000000000`, name: "twin" }));
    const server = await startServer((_req, res) => json(res, 200, { resources: twins, offset: 2 }));
    const r = await runCli(["deploy", "get", "twin"], {
      env: { CPCTL_BASE_URL: server.url, CPCTL_API_KEY: "k" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(twins[0]!.id);
    expect(r.stderr).toContain(twins[1]!.id);
  });
});

describe("integrations list", () => {
  it("lists both listings in every format", async () => {
    const em = await startTestEmulator();
    const seed = em.emulator.seed(em.tenantId);
    const json = await runCli(["integrations", "list", "--json"], { env: cliEnv(em) });
    expect(JSON.parse(json.stdout)).toEqual(seed.integrations);
    const alt = await runCli(["integrations", "list", "--alt", "-o", "id"], { env: cliEnv(em) });
    expect(alt.stdout.trim().split("\n")).toEqual(seed.altIntegrations.map((i) => i.id));
    const tsv = await runCli(["integrations", "list"], { env: cliEnv(em) });
    expect(tsv.stdout.split("\n")[0]).toBe(
      `${seed.integrations[0]!.id}\t${seed.integrations[0]!.name}\t${seed.integrations[0]!.installation_id}`,
    );
    const nd = await runCli(["integrations", "list", "-o", "ndjson"], { env: cliEnv(em) });
    expect(
      nd.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual(seed.integrations);
  });
});
