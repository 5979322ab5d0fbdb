// `listeners get|create|update|delete` (issue 34, point 3): a listener by ID, compute ID or ID
// prefix; every change shown before it is sent, --dry-run sending nothing; update's whole list
// (--k8s-namespace) or merge (--add/--remove-k8s-namespace); nothing stranded (a namespace or a
// listener that deployments use); a duplicate compute ID said plainly; delete confirmed.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { cliEnv, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const POST = "POST /v2/listeners";
const PATCH = "PATCH /v2/listeners/{listener_id}";
const DELETE = "DELETE /v2/listeners/{listener_id}";
const calls = (em: TestEmulator, key: string) => em.emulator.stats().requests[key] ?? 0;

function cli(em: TestEmulator, args: string[], env: Record<string, string> = {}) {
  return runCli(["listeners", ...args], { env: cliEnv(em, env) });
}

async function makeListener(em: TestEmulator, computeId: string, namespaces: string[]) {
  const made = await em.post("/v2/listeners", {
    compute_type: "k8s",
    compute_id: computeId,
    compute_config: { k8s_namespaces: namespaces },
  });
  expect(made.status, made.text).toBe(201);
  return made.json as { id: string; compute_id: string };
}

async function namespacesOf(em: TestEmulator, id: string): Promise<string[]> {
  return (await em.get(`/v2/listeners/${id}`)).json.compute_config.k8s_namespaces;
}

describe("listeners create", () => {
  it("creates a k8s listener: the change on stderr first, the listener on stdout", async () => {
    const em = await startTestEmulator();
    const r = await cli(em, [
      "create",
      "--compute-id",
      "my-cluster",
      "--k8s-namespace",
      "agents",
      "--k8s-namespace",
      "tools",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'Creating listener for compute ID my-cluster (k8s):\n  + compute_type: "k8s"\n  + compute_id: "my-cluster"\n' +
        '  + compute_config.k8s_namespaces: "agents"\n  + compute_config.k8s_namespaces: "tools"\n',
    );
    expect(r.stderr).toMatch(/created listener [0-9a-f-]{36} for compute ID my-cluster/);
    expect(r.stdout).toMatch(/^COMPUTE ID\tmy-cluster$/m);
    const listed = await em.get("/v2/listeners");
    expect(listed.json.resources.at(-1)).toMatchObject({
      compute_id: "my-cluster",
      compute_config: { k8s_namespaces: ["agents", "tools"] },
    });
  });

  it("CI with -o json: the preview as one JSON line on stderr, the service's object on stdout", async () => {
    const em = await startTestEmulator();
    const r = await cli(em, ["create", "--compute-id", "ci-cluster", "--k8s-namespace", "ci", "-o", "json"], {
      CI: "true",
    });
    expect(r.code, r.stderr).toBe(0);
    const listener = JSON.parse(r.stdout);
    expect(listener).toMatchObject({
      compute_type: "k8s",
      compute_id: "ci-cluster",
      compute_config: { k8s_namespaces: ["ci"] },
    });
    const preview = JSON.parse(r.stderr.split("\n")[0]!).preview;
    expect(preview).toMatchObject({
      action: "create",
      listener_id: null,
      compute_id: "ci-cluster",
      k8s_namespaces: ["ci"],
    });
    expect(preview.changes).toHaveLength(3);
  });

  it("a compute ID already taken: exit 1 naming it and the listener that has it", async () => {
    const em = await startTestEmulator();
    const first = await makeListener(em, "prod", ["a", "b"]);
    const r = await cli(em, ["create", "--compute-id", "prod", "--k8s-namespace", "c"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `a listener for compute ID prod already exists: ${first.id} (namespaces a, b)`,
    );
    expect(r.stderr).toContain("cpctl listeners update prod --add-k8s-namespace NS");
    const json = await cli(em, ["create", "--compute-id", "prod", "-o", "json"]);
    expect(JSON.parse(json.stderr.trim().split("\n").at(-1)!).error).toMatchObject({
      code: "conflict",
      status: 409,
    });
  });

  it("bad input: exit 2 naming the flag, nothing sent; --dry-run prints the body and sends nothing", async () => {
    const em = await startTestEmulator();
    const bad = await cli(em, ["create", "--compute-id", "x", "--k8s-namespace", "Agents"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--k8s-namespace "Agents": must be a DNS label');
    const blank = await cli(em, ["create", "--compute-id", " x"]);
    expect(blank.code).toBe(2);
    expect(blank.stderr).toContain("--compute-id: must not start or end with white space");
    expect((await cli(em, ["create", "--k8s-namespace", "a"])).code).toBe(2);
    const dry = await cli(em, ["create", "--compute-id", "dry", "--k8s-namespace", "a", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({
      compute_type: "k8s",
      compute_id: "dry",
      compute_config: { k8s_namespaces: ["a"] },
    });
    expect(dry.stderr).toContain("dry run: nothing was sent");
    expect(calls(em, POST)).toBe(0);
  });
});

describe("listeners get", () => {
  it("by ID, compute ID or ID prefix; unknown: exit 4; another tenant's: exit 4", async () => {
    const em = await startTestEmulator();
    const made = await makeListener(em, "found", ["x"]);
    for (const ref of [made.id, "found", made.id.slice(0, 10)]) {
      const r = await cli(em, ["get", ref, "-o", "json"]);
      expect(r.code, `${ref}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout).id).toBe(made.id);
    }
    const missing = await cli(em, ["get", "nowhere"]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("no listener has the ID, compute ID or ID prefix 'nowhere'");
    const other = await runCli(["listeners", "get", made.id], {
      env: cliEnv(em, { CPCTL_API_KEY: "other-key" }),
    });
    expect(other.code).toBe(4);
  });
});

describe("listeners update", () => {
  it("--add and --remove change those named and keep the rest; --k8s-namespace makes the whole list", async () => {
    const em = await startTestEmulator();
    const l = await makeListener(em, "edit", ["agents", "tools"]);
    const add = await cli(em, ["update", "edit", "--add-k8s-namespace", "staging"]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toContain(
      `Changes to listener edit (${l.id}): namespaces agents, tools, staging\n  + compute_config.k8s_namespaces: "staging"\n`,
    );
    expect(await namespacesOf(em, l.id)).toEqual(["agents", "tools", "staging"]);
    const remove = await cli(em, ["update", "edit", "--remove-k8s-namespace", "tools"]);
    expect(remove.code, remove.stderr).toBe(0);
    expect(remove.stderr).toContain('  - compute_config.k8s_namespaces: "tools" (removed)\n');
    expect(await namespacesOf(em, l.id)).toEqual(["agents", "staging"]);
    const replace = await cli(em, [
      "update",
      "edit",
      "--k8s-namespace",
      "prod",
      "--k8s-namespace",
      "agents",
      "-o",
      "json",
    ]);
    expect(replace.code, replace.stderr).toBe(0);
    expect(JSON.parse(replace.stdout).compute_config.k8s_namespaces).toEqual(["prod", "agents"]);
    expect(await namespacesOf(em, l.id)).toEqual(["prod", "agents"]);
    expect(calls(em, PATCH)).toBe(3);
  });

  it("nothing to change, --dry-run, and flags that do not go together: nothing sent", async () => {
    const em = await startTestEmulator();
    const l = await makeListener(em, "same", ["agents"]);
    const same = await cli(em, ["update", "same", "--add-k8s-namespace", "agents"]);
    expect(same.code).toBe(0);
    expect(same.stderr).toContain("nothing to change: listener same already has agents; nothing was sent");
    const dry = await cli(em, ["update", "same", "--add-k8s-namespace", "b", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({ compute_config: { k8s_namespaces: ["agents", "b"] } });
    expect(dry.stderr).toContain('  + compute_config.k8s_namespaces: "b"');
    const mixed = await cli(em, ["update", "same", "--k8s-namespace", "a", "--add-k8s-namespace", "b"]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain("give one or the other");
    expect((await cli(em, ["update", "same"])).code).toBe(2);
    expect((await cli(em, ["update", "same", "--add-k8s-namespace", "B"])).code).toBe(2);
    expect(calls(em, PATCH)).toBe(0);
    expect(await namespacesOf(em, l.id)).toEqual(["agents"]);
  });

  it("removing a namespace that deployments use: refused (exit 1) naming them, nothing sent", async () => {
    const em = await startTestEmulator();
    const l = await makeListener(em, "busy", ["agents", "tools"]);
    const d = await em.createDeployment("external_container", "api", {
      source_config: { listener_id: l.id, listener_config: { k8s_namespace: "tools" } },
    });
    const r = await cli(em, ["update", "busy", "--remove-k8s-namespace", "tools"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `cannot remove namespace tools from listener busy: 1 deployment uses it: api (${d.id}); nothing was sent`,
    );
    expect(r.stderr).toContain("delete those deployments first");
    const replaced = await cli(em, ["update", "busy", "--k8s-namespace", "agents"]);
    expect(replaced.code).toBe(1);
    // Another namespace may go.
    expect((await cli(em, ["update", "busy", "--remove-k8s-namespace", "agents"])).code).toBe(0);
    expect(await namespacesOf(em, l.id)).toEqual(["tools"]);
    expect(calls(em, PATCH)).toBe(1);
  });
});

describe("listeners delete", () => {
  it("asks on a terminal, needs --yes elsewhere (exit 2 before any request), and deletes", async () => {
    const em = await startTestEmulator();
    const l = await makeListener(em, "old", ["a"]);
    const before = em.emulator.stats().total;
    const ci = await cli(em, ["delete", "old"], { CI: "true" });
    expect(ci.code).toBe(2);
    expect(ci.stderr).toContain("--yes");
    expect(em.emulator.stats().total).toBe(before);
    const no = await runCli(["listeners", "delete", "old"], {
      env: cliEnv(em, { NO_COLOR: "1" }),
      tty: true,
      stdin: "n\n",
    });
    expect(no.code).toBe(1);
    expect(no.stderr).toContain(`Deleting listener old (${l.id}), namespaces a`);
    expect(calls(em, DELETE)).toBe(0);
    const dry = await cli(em, ["delete", "old", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain("dry run: nothing was deleted");
    expect(calls(em, DELETE)).toBe(0);
    const yes = await cli(em, ["delete", "old", "--yes", "-o", "json"], { CI: "true" });
    expect(yes.code, yes.stderr).toBe(0);
    expect(JSON.parse(yes.stdout)).toEqual({ id: l.id, compute_id: "old", deleted: true });
    expect((await em.get(`/v2/listeners/${l.id}`)).status).toBe(404);
  });

  it("a listener that deployments use: refused (exit 1) naming them, before anything is asked or sent", async () => {
    const em = await startTestEmulator();
    const l = await makeListener(em, "used", ["a"]);
    const d = await em.createDeployment("external_container", "on-used", {
      source_config: { listener_id: l.id, listener_config: { k8s_namespace: "a" } },
    });
    const r = await cli(em, ["delete", "used", "--yes"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `listener used (${l.id}) is used by 1 deployment: on-used (${d.id}); nothing was sent`,
    );
    expect(calls(em, DELETE)).toBe(0);
  });
});
