// `cpctl emulator fail-next|fail|clock|push|faults|stats|tracing-projects|reset`: the
// emulator's controls as commands, sent with the chosen profile's address and credentials,
// so that they act in the caller's tenant (the built-in `local` profile's, in the README).
import { afterEach, describe, expect, it } from "vitest";
import { LOCAL_API_KEY } from "../../src/config/profiles.js";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

/** As a reader of the README: `export CPCTL_PROFILE=local`, the emulator at the test's address. */
const local = (em: TestEmulator, extra: Record<string, string> = {}) => ({
  CPCTL_PROFILE: "local",
  CPCTL_BASE_URL: em.url,
  ...extra,
});

const createAgent = (em: TestEmulator, name: string) =>
  runCli(
    [
      "deploy",
      "create",
      "--name",
      name,
      "--source",
      "gitrepo",
      "--integration-id",
      em.emulator.seed(em.emulator.tenantFor(LOCAL_API_KEY)).integrations[0]!.id,
      "--repo-url",
      "https://github.com/acme/agent",
      "--repo-ref",
      "main",
      "--agent-config-path",
      "agent.json",
      "--wait",
    ],
    { env: local(em) },
  );

describe("cpctl emulator fail-next", () => {
  it("with the local profile's key reaches that tenant: its next revision fails, with the message", async () => {
    const em = await startTestEmulator();
    const rule = await runCli(
      ["emulator", "fail-next", "--stage", "BUILDING", "--message", "npm ERR! Missing script: build"],
      { env: local(em) },
    );
    expect(rule.code, rule.stderr).toBe(0);
    expect(rule.stderr).toContain(
      "the next revision of any of your deployments that reaches BUILDING will end BUILD_FAILED",
    );
    // Another tenant's revisions do not take it.
    const other = await em.createDeployment("gitrepo", "someone-else");
    em.settle();
    expect((await em.get(`/v2/deployments/${other.id}`)).json.status).toBe("READY");

    const created = await createAgent(em, "my-agent");
    expect(created.code).toBe(5);
    expect(created.stderr).toContain("ended BUILD_FAILED");
    expect(created.stderr).toContain("npm ERR! Missing script: build");
    // Used once: the next one deploys.
    const list = await runCli(["emulator", "fail-next", "--list", "-o", "json"], { env: local(em) });
    expect(JSON.parse(list.stdout)).toEqual([]);
  });

  it("--deployment takes a name, and only that deployment's revision fails", async () => {
    const em = await startTestEmulator();
    expect((await createAgent(em, "first")).code).toBe(0);
    expect((await createAgent(em, "second")).code).toBe(0);
    const rule = await runCli(
      ["emulator", "fail-next", "--stage", "DEPLOYING", "--deployment", "second", "-o", "json"],
      {
        env: local(em),
      },
    );
    expect(rule.code, rule.stderr).toBe(0);
    const second = JSON.parse(
      (await runCli(["deploy", "get", "second", "-o", "json"], { env: local(em) })).stdout,
    );
    expect(JSON.parse(rule.stdout)).toMatchObject({
      deployment_id: second.id,
      stage: "DEPLOYING",
      message: null,
    });
    const pending = await runCli(["emulator", "fail-next", "--list"], { env: local(em), tty: true });
    expect(pending.stdout).toMatch(/DEPLOYING/);
    expect((await runCli(["deploy", "redeploy", "first", "--wait"], { env: local(em) })).code).toBe(0);
    expect((await runCli(["deploy", "redeploy", "second", "--wait"], { env: local(em) })).code).toBe(5);
  });

  it("without --stage is a usage error that lists the stages", async () => {
    const em = await startTestEmulator();
    const r = await runCli(["emulator", "fail-next"], { env: local(em) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--stage is required: one of CREATING, QUEUED, AWAITING_BUILD, BUILDING");
  });
});

describe("cpctl emulator fail and push", () => {
  it("fail: the latest revision in progress fails at the end of the stage", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const created = await runCli(
      [
        "deploy",
        "create",
        "--name",
        "api",
        "--source",
        "internal_container",
        "--image-uri",
        "r.example.com/a:1",
      ],
      { env: local(em) },
    );
    expect(created.code, created.stderr).toBe(0);
    const r = await runCli(["emulator", "fail", "api", "--stage", "DEPLOYING", "-o", "json"], {
      env: local(em),
    });
    expect(r.code, r.stderr).toBe(0);
    em.settle();
    const revisions = await runCli(["deploy", "revisions", "api", "-o", "json"], { env: local(em) });
    expect(JSON.parse(revisions.stdout)[0].status).toBe("DEPLOY_FAILED");
  });

  it("push: a new revision of a deployment that builds on push; 409 otherwise", async () => {
    const em = await startTestEmulator();
    const created = await createAgent(em, "my-agent");
    expect(created.code).toBe(0);
    const refused = await runCli(["emulator", "push", "my-agent"], { env: local(em) });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("build_on_push");
    const patched = await runCli(["deploy", "patch", "my-agent", "--build-on-push"], { env: local(em) });
    expect(patched.code, patched.stderr).toBe(0);
    const sha = "a".repeat(40);
    const pushed = await runCli(["emulator", "push", "my-agent", "--sha", sha, "-o", "json"], {
      env: local(em),
    });
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(JSON.parse(pushed.stdout).source_revision_config.repo_commit_sha).toBe(sha);
  });
});

describe("cpctl emulator clock, faults, stats, tracing-projects, reset", () => {
  it("clock advance moves every revision in progress on", async () => {
    const em = await startTestEmulator({ stageMs: 60_000 });
    await runCli(
      [
        "deploy",
        "create",
        "--name",
        "api",
        "--source",
        "internal_container",
        "--image-uri",
        "r.example.com/a:1",
      ],
      {
        env: local(em),
      },
    );
    const before = JSON.parse((await runCli(["emulator", "clock", "-o", "json"], { env: local(em) })).stdout);
    const r = await runCli(["emulator", "clock", "advance", "10m", "-o", "json"], { env: local(em) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).now_ms - before.now_ms).toBe(600_000);
    const got = JSON.parse((await runCli(["deploy", "get", "api", "-o", "json"], { env: local(em) })).stdout);
    expect(got.status).toBe("READY");
    const bad = await runCli(["emulator", "clock", "advance", "soon"], { env: local(em) });
    expect(bad.code).toBe(2);
  });

  it("faults add, list and clear; stats count what the API received", async () => {
    const em = await startTestEmulator();
    const added = await runCli(
      [
        "emulator",
        "faults",
        "add",
        "--method",
        "get",
        "--path",
        "/v2/listeners",
        "--status",
        "503",
        "--count",
        "5",
        "-o",
        "json",
      ],
      { env: local(em) },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      method: "GET",
      path: "/v2/listeners",
      status: 503,
      remaining: 5,
    });
    const failed = await runCli(["listeners", "list", "--request-timeout", "1s"], { env: local(em) });
    expect(failed.code).toBe(1);
    const listed = await runCli(["emulator", "faults", "-o", "json"], { env: local(em) });
    expect(JSON.parse(listed.stdout)[0].remaining).toBeLessThan(5);
    expect((await runCli(["emulator", "faults", "clear"], { env: local(em) })).code).toBe(0);
    expect((await runCli(["listeners", "list"], { env: local(em) })).code).toBe(0);
    const stats = JSON.parse((await runCli(["emulator", "stats", "-o", "json"], { env: local(em) })).stdout);
    expect(stats.requests["GET /v2/listeners"]).toBeGreaterThanOrEqual(2);
    const tty = await runCli(["emulator", "stats"], { env: local(em, { NO_COLOR: "1" }), tty: true });
    expect(tty.stdout).toMatch(/^ROUTE\s+REQUESTS/);
  });

  it("faults add refuses a status the emulator cannot answer (1xx) before sending, naming --status", async () => {
    const em = await startTestEmulator();
    const r = await runCli(["emulator", "faults", "add", "--path", "/v2/listeners", "--status", "101"], {
      env: local(em),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--status");
    expect(r.stderr).toContain("200");
    const listed = await runCli(["emulator", "faults", "-o", "json"], { env: local(em) });
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });

  it("tracing-projects lists the caller's", async () => {
    const em = await startTestEmulator();
    await createAgent(em, "traced");
    await em.createDeployment("internal_container", "not-mine");
    const r = await runCli(["emulator", "tracing-projects", "-o", "json"], { env: local(em) });
    expect(JSON.parse(r.stdout).map((p: { name: string }) => p.name)).toEqual(["traced"]);
  });

  it("reset asks first (--yes in scripts), then the emulator is empty", async () => {
    const em = await startTestEmulator();
    await createAgent(em, "my-agent");
    const refused = await runCli(["emulator", "reset"], { env: local(em) });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("pass --yes");
    const reset = await runCli(["emulator", "reset", "--yes"], { env: local(em) });
    expect(reset.code, reset.stderr).toBe(0);
    expect(JSON.parse((await runCli(["deploy", "list", "-o", "json"], { env: local(em) })).stdout)).toEqual(
      [],
    );
  });

  it("an emulator with --control-token takes it from CPCTL_EMULATOR_CONTROL_TOKEN, never shown", async () => {
    const em = await startTestEmulator({ controlToken: "ctl-secret-Xq9" });
    const refused = await runCli(["emulator", "stats", "--debug"], { env: local(em) });
    expect(refused.code).toBe(3);
    const token = local(em, { CPCTL_EMULATOR_CONTROL_TOKEN: "ctl-secret-Xq9" });
    const r = await runCli(["emulator", "clock", "advance", "1m", "--debug"], { env: token });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("X-Control-Token");
    expect(`${r.stdout}${r.stderr}`).not.toContain("ctl-secret-Xq9");
  });
});

describe("cpctl emulator itself", () => {
  it("a word that is no control is an unknown command, with the nearest", async () => {
    const r = await runCli(["emulator", "fail-nxt"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'emulator fail-nxt'; did you mean 'emulator fail-next'?");
  });
});
