// An ID's first 8 characters or more (what a narrow table shows) stand for the whole ID
// wherever an ID is taken; a name still wins over a prefix; a prefix that several IDs start
// with is a usage error listing them (exit 2).
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { startServer } from "../helpers/http-server.js";
import { cliEnv, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const deployment = (id: string, name: string) => ({
  id,
  name,
  source: "internal_container",
  source_config: {},
  source_revision_config: { image_uri: "r.example.com/a:1" },
  secrets: [],
  secret_references: [],
  tenant_id: "11111111-1111-4111-8111-111111111111",
  created_at: "2026-11-21T12:00:00Z",
  updated_at: "2026-11-21T12:00:00Z",
  status: "READY",
  latest_revision_id: null,
  active_revision_id: null,
});

describe("a deployment ID prefix", () => {
  it("of 8 characters or more finds the deployment, as get, list-free commands and -o id use it", async () => {
    const em = await startTestEmulator();
    const agent = await em.createDeployment("internal_container", "agent");
    await em.createDeployment("internal_container", "other");
    for (const prefix of [agent.id.slice(0, 8), agent.id.slice(0, 13), agent.id.slice(0, 8).toUpperCase()]) {
      const got = await runCli(["deploy", "get", prefix, "-o", "json"], { env: cliEnv(em) });
      expect(got.code, `${prefix}: ${got.stderr}`).toBe(0);
      expect(JSON.parse(got.stdout).id).toBe(agent.id);
    }
    const revisions = await runCli(["deploy", "revisions", agent.id.slice(0, 8), "-o", "id"], {
      env: cliEnv(em),
    });
    expect(revisions.stdout.trim()).toBe(agent.latest_revision_id);
  });

  it("is looked for in every deployment (a request per 100): the API has no prefix filter", async () => {
    const em = await startTestEmulator();
    const target = await em.createDeployment("internal_container", "target");
    for (let i = 0; i < 149; i++) await em.createDeployment("internal_container", `filler-${i}`);
    const lists = () => em.emulator.stats().requests["GET /v2/deployments"] ?? 0;
    const before = lists();
    const got = await runCli(["deploy", "get", target.id.slice(0, 8), "-o", "id"], { env: cliEnv(em) });
    expect(got.stdout.trim()).toBe(target.id);
    // Both pages, whatever page the match is on: a second match would make it ambiguous.
    expect(lists() - before).toBeGreaterThanOrEqual(2);
  });

  it("that several IDs start with is exit 2, listing them; a name wins over a prefix", async () => {
    const a = deployment("0f0f0f0f-0000-4000-8000-00000000000a", "alpha");
    const b = deployment("0f0f0f0f-0000-4000-8000-00000000000b", "beta");
    const named = deployment("1e1e1e1e-0000-4000-8000-00000000000c", "deadbeef");
    const shadowed = deployment("deadbeef-0000-4000-8000-00000000000d", "shadowed");
    const server = await startServer((req, res) => {
      res.setHeader("content-type", "application/json");
      const all = [a, b, named, shadowed];
      const name = new URL(req.url, "http://x").searchParams.get("name");
      const resources = name === null ? all : all.filter((d) => d.name === name);
      res.end(JSON.stringify({ resources, offset: resources.length }));
    });
    const env = { CPCTL_BASE_URL: server.url, CPCTL_API_KEY: "k" };
    const ambiguous = await runCli(["deploy", "get", "0f0f0f0f"], { env });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(
      `2 deployments have an ID that starts with '0f0f0f0f': ${a.id} (alpha), ${b.id} (beta); give more of the ID`,
    );
    const won = await runCli(["deploy", "get", "deadbeef", "-o", "json"], { env });
    expect(won.code, won.stderr).toBe(0);
    expect(JSON.parse(won.stdout).id).toBe(named.id);
  });

  it("shorter than 8 characters is only a name: not found, saying so", async () => {
    const em = await startTestEmulator();
    const agent = await em.createDeployment("internal_container", "agent");
    const r = await runCli(["deploy", "get", agent.id.slice(0, 7)], { env: cliEnv(em) });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("An ID prefix needs at least 8 characters");
  });
});

describe("revision, integration and listener ID prefixes", () => {
  it("--revision and --to take a revision's first 8 characters", async () => {
    const em = await startTestEmulator();
    const agent = await em.createDeployment("internal_container", "agent");
    const first = agent.latest_revision_id as string;
    await em.patch(`/v2/deployments/${agent.id}`, {
      source_revision_config: { image_uri: "r.example.com/a:2" },
    });
    em.settle();
    const short = first.slice(0, 8);
    const env = cliEnv(em);
    const wait = await runCli(["deploy", "wait", "agent", "--revision", short, "-o", "json"], { env });
    expect(wait.code, wait.stderr).toBe(0);
    expect(JSON.parse(wait.stdout).revision_id).toBe(first);
    const logs = await runCli(["deploy", "logs", "agent", "--revision", short, "-o", "json"], { env });
    expect(logs.code, logs.stderr).toBe(0);
    const rollback = await runCli(["deploy", "rollback", "agent", "--to", short, "--dry-run"], { env });
    expect(rollback.code, rollback.stderr).toBe(0);
    expect(rollback.stderr).toContain(`from revision ${first}`);
    const bad = await runCli(["deploy", "redeploy", "agent", "--revision", "0123abcd"], { env });
    expect(bad.code).toBe(4);
    const refused = await runCli(["deploy", "wait", "agent", "--revision", "0123"], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "--revision '0123': expected an ID (8-4-4-4-12 hexadecimal digits), or its first 8",
    );
  });

  it("--listener-id and --integration-id take a prefix, sent as the whole ID", async () => {
    const em = await startTestEmulator();
    const seed = em.emulator.seed(em.tenantId);
    const listener = seed.listeners[0]!.id;
    const r = await runCli(
      [
        "deploy",
        "create",
        "--name",
        "api",
        "--source",
        "external_container",
        "--image-uri",
        "r.example.com/a:1",
        "--listener-id",
        listener.slice(0, 8),
        "--k8s-namespace",
        "default",
        "-o",
        "json",
      ],
      { env: cliEnv(em) },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).source_config.listener_id).toBe(listener);
    const integration = seed.integrations[0]!.id;
    const diff = await runCli(
      ["deploy", "diff", "-f", "-", "--integration-id", integration.slice(0, 9), "-o", "json"],
      {
        env: cliEnv(em),
        stdin:
          "name: agent\nsource: gitrepo\nsource_config:\n  repo_url: https://github.com/a/b\nsource_revision_config:\n  repo_ref: main\n  agent_config_path: agent.json\n",
      },
    );
    expect(diff.code, diff.stderr).toBe(0);
    const change = JSON.parse(diff.stdout).changes.find(
      (c: { path: string }) => c.path === "source_config.integration_id",
    );
    expect(change.desired).toBe(integration);
  });
});
