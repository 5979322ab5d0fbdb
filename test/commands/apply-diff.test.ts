import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { frontOf } from "../helpers/front.js";
import { cliEnv, freshDir, previewOf, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

function count(em: TestEmulator, key: string): number {
  return em.emulator.stats().requests[key] ?? 0;
}

function writeFile(dir: string, image: string, cpu: number, secret = "s3cret-value") {
  writeFileSync(
    join(dir, "deploy.yaml"),
    [
      "name: web",
      "source: external_container",
      "source_config:",
      "  resource_spec:",
      `    cpu: ${cpu}`,
      "    memory_mb: 512",
      "source_revision_config:",
      `  image_uri: ${image}`,
      "secrets:",
      "  - name: API_TOKEN",
      `    value: ${secret}`,
      "",
    ].join("\n"),
  );
}

describe("deploy apply", () => {
  it("creates, then patches only what differs, then does nothing", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("apply");
    writeFile(dir, "ghcr.io/acme/web:1", 0.5);
    const created = await runCli(["deploy", "apply", "-f", "deploy.yaml", "-o", "json"], {
      env: cliEnv(em),
      cwd: dir,
    });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain("creating it");
    const first = JSON.parse(created.stdout);
    expect(count(em, "POST /v2/deployments")).toBe(1);

    writeFile(dir, "ghcr.io/acme/web:2", 0.5);
    const dry = await runCli(["deploy", "apply", "-f", "deploy.yaml", "--dry-run", "-o", "json"], {
      env: cliEnv(em),
      cwd: dir,
    });
    expect(JSON.parse(dry.stdout)).toEqual({ source_revision_config: { image_uri: "ghcr.io/acme/web:2" } });
    expect(count(em, "PATCH /v2/deployments/{deployment_id}")).toBe(0);

    const patched = await runCli(["deploy", "apply", "-f", "deploy.yaml", "-o", "json"], {
      env: cliEnv(em),
      cwd: dir,
    });
    expect(patched.code, patched.stderr).toBe(0);
    expect(previewOf(patched.stderr).changes.map((c) => c.path)).toEqual([
      "source_revision_config.image_uri",
    ]);
    expect(JSON.parse(patched.stdout).latest_revision_id).not.toBe(first.latest_revision_id);
    expect(count(em, "PATCH /v2/deployments/{deployment_id}")).toBe(1);

    const again = await runCli(["deploy", "apply", "-f", "deploy.yaml"], { env: cliEnv(em), cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("already matches the file");
    expect(count(em, "PATCH /v2/deployments/{deployment_id}")).toBe(1);
    expect(count(em, "POST /v2/deployments")).toBe(1);
  });

  it("sends a whole resource_spec when one of its fields differs, and the secrets when a value changes", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("apply");
    writeFile(dir, "ghcr.io/acme/web:1", 0.5);
    await runCli(["deploy", "apply", "-f", "deploy.yaml"], { env: cliEnv(em), cwd: dir });
    writeFile(dir, "ghcr.io/acme/web:1", 1, "rotated-value");
    const dry = await runCli(
      ["deploy", "apply", "-f", "deploy.yaml", "--dry-run", "-o", "json", "--show-secrets"],
      { env: cliEnv(em), cwd: dir },
    );
    expect(JSON.parse(dry.stdout)).toEqual({
      source_config: { resource_spec: { cpu: 1, memory_mb: 512 } },
      secrets: [{ name: "API_TOKEN", value: "rotated-value" }],
    });
  });

  it("refuses a difference in a field fixed at creation, naming it", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("apply");
    writeFile(dir, "x:1", 0.5);
    await runCli(["deploy", "apply", "-f", "deploy.yaml"], { env: cliEnv(em), cwd: dir });
    const r = await runCli(
      [
        "deploy",
        "apply",
        "-f",
        "deploy.yaml",
        "--set",
        "source=internal_container",
        "--set",
        "source_config.resource_spec=null",
      ],
      {
        env: cliEnv(em),
        cwd: dir,
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("source");
    expect(count(em, "PATCH /v2/deployments/{deployment_id}")).toBe(0);
  });

  it("a secrets list in the file is the whole set: apply names each secret it removes; unnamed resource fields stay", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("apply");
    writeFile(dir, "x:1", 0.5);
    await runCli(["deploy", "apply", "-f", "deploy.yaml"], { env: cliEnv(em), cwd: dir });
    // Set outside the file: a secret, and a resource field the file does not name.
    const extra = await runCli(
      ["deploy", "patch", "web", "--secret", "EXTRA=extra-value", "--max-scale", "7"],
      {
        env: cliEnv(em),
      },
    );
    expect(extra.code, extra.stderr).toBe(0);

    const r = await runCli(["deploy", "apply", "-f", "deploy.yaml"], { env: cliEnv(em), cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("- secrets.EXTRA: **** (removed)");
    const json = await runCli(["deploy", "get", "web", "-o", "json", "--show-secrets"], { env: cliEnv(em) });
    const after = JSON.parse(json.stdout);
    expect(after.secrets).toEqual([{ name: "API_TOKEN", value: "s3cret-value" }]);
    expect(after.source_config.resource_spec).toMatchObject({ cpu: 0.5, memory_mb: 512, max_scale: 7 });
  });

  it("two applies of a new deployment race: the one whose create gets 409 patches the winner instead", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("apply");
    writeFile(dir, "ghcr.io/acme/web:2", 0.5);
    let lookups = 0;
    // The other apply creates "web" after this one looked the name up and before its create lands.
    const front = await frontOf(em, {
      intercept: async (request) => {
        if (request.method === "GET" && request.url.startsWith("/v2/deployments?") && ++lookups === 1)
          return { status: 200, body: { resources: [], offset: 0 } };
        if (request.method === "POST" && request.url === "/v2/deployments") {
          const other = em.createBody("external_container", "web");
          await em.createDeployment("external_container", "web", {
            source_config: other.source_config,
            source_revision_config: { image_uri: "ghcr.io/acme/web:1" },
          });
          return { status: 409, body: { detail: "Deployment with name web already exists." } };
        }
        return undefined;
      },
    });
    const r = await runCli(["deploy", "apply", "-f", "deploy.yaml", "-o", "json"], {
      env: { CPCTL_BASE_URL: front.url, CPCTL_API_KEY: em.apiKey },
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("was created meanwhile (HTTP 409): patching it instead");
    const patched = JSON.parse(r.stdout);
    expect(patched.source_revision_config.image_uri).toBe("ghcr.io/acme/web:2");
    expect(count(em, "PATCH /v2/deployments/{deployment_id}")).toBe(1);
    expect((await em.get("/v2/deployments?name=web")).json.resources).toHaveLength(1);
  });

  it("--wait waits for the new revision", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("apply");
    writeFile(dir, "x:1", 0.5);
    const r = await runCli(["deploy", "apply", "-f", "deploy.yaml", "--wait"], { env: cliEnv(em), cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("DEPLOYED");
  });
});

describe("deploy diff", () => {
  it("shows field-by-field differences with secret values masked, and --exit-code follows git", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("diff");
    writeFile(dir, "ghcr.io/acme/web:1", 0.5);

    const before = await runCli(["deploy", "diff", "-f", "deploy.yaml", "--exit-code"], {
      env: cliEnv(em),
      cwd: dir,
    });
    expect(before.code).toBe(1);
    expect(before.stdout).toContain("apply would create it");
    expect(before.stdout).toContain("+ secrets.API_TOKEN: ****");
    expect(before.stdout).not.toContain("s3cret-value");

    await runCli(["deploy", "apply", "-f", "deploy.yaml"], { env: cliEnv(em), cwd: dir });
    const same = await runCli(["deploy", "diff", "-f", "deploy.yaml", "--exit-code"], {
      env: cliEnv(em),
      cwd: dir,
    });
    expect(same.code).toBe(0);
    expect(same.stdout).toContain("no differences");
    expect(same.stderr).toBe("");

    writeFile(dir, "ghcr.io/acme/web:2", 1, "new-secret-value");
    const changed = await runCli(["deploy", "diff", "-f", "deploy.yaml"], { env: cliEnv(em), cwd: dir });
    expect(changed.code).toBe(0);
    expect(changed.stdout).toContain(
      '~ source_revision_config.image_uri: "ghcr.io/acme/web:1" -> "ghcr.io/acme/web:2"',
    );
    expect(changed.stdout).toContain("~ source_config.resource_spec.cpu: 0.5 -> 1");
    expect(changed.stdout).toContain("~ source_config.resource_spec.cpu_limit: 1 -> 2");
    expect(changed.stdout).toContain("~ secrets.API_TOKEN: **** -> ****");
    expect(changed.stdout).not.toContain("new-secret-value");

    const json = await runCli(["deploy", "diff", "-f", "deploy.yaml", "-o", "json", "--exit-code"], {
      env: cliEnv(em),
      cwd: dir,
    });
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ name: "web", action: "patch", triggers_revision: true });
    expect(report.changes.map((c: { path: string }) => c.path)).toContain("source_revision_config.image_uri");
    expect(JSON.stringify(report)).not.toContain("new-secret-value");
    expect(count(em, "PATCH /v2/deployments/{deployment_id}")).toBe(0);
  });

  it("does not count an unset limit as a difference (the service fills its default)", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("diff");
    writeFile(dir, "x:1", 0.25);
    await runCli(["deploy", "apply", "-f", "deploy.yaml"], { env: cliEnv(em), cwd: dir });
    const r = await runCli(["deploy", "diff", "-f", "deploy.yaml", "--exit-code"], {
      env: cliEnv(em),
      cwd: dir,
    });
    expect(r.stdout).toContain("no differences");
    expect(r.code).toBe(0);
  });
});

describe("deploy diff of a deployment that does not exist yet", () => {
  it("says apply would create it and shows the whole body, with no refusal apply would not give", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("diff-new");
    const integration = em.emulator.seed(em.tenantId).integrations[0]!.id;
    writeFileSync(
      join(dir, "deploy.yaml"),
      [
        "name: my-agent",
        "source: gitrepo",
        "source_config:",
        `  integration_id: ${integration}`,
        "  repo_url: https://github.com/acme/agent",
        "  deployment_type: prod",
        "  build_on_push: false",
        "source_revision_config:",
        "  repo_ref: main",
        "  agent_config_path: agent.json",
        "secrets:",
        "  - name: OPENAI_API_KEY",
        "    value: sk-not-shown",
        "",
      ].join("\n"),
    );
    const text = await runCli(["deploy", "diff", "-f", "deploy.yaml", "--exit-code"], {
      env: cliEnv(em),
      cwd: dir,
    });
    expect(text.code, text.stderr).toBe(1);
    expect(text.stderr).toBe("");
    expect(text.stdout.split("\n")).toEqual([
      "deployment my-agent does not exist: apply would create it",
      '  + name: "my-agent"',
      '  + source: "gitrepo"',
      `  + source_config.integration_id: "${integration}"`,
      '  + source_config.repo_url: "https://github.com/acme/agent"',
      '  + source_config.deployment_type: "prod"',
      "  + source_config.build_on_push: false",
      '  + source_revision_config.repo_ref: "main"',
      '  + source_revision_config.agent_config_path: "agent.json"',
      "  + secrets.OPENAI_API_KEY: ****",
      "",
    ]);
    const json = await runCli(["deploy", "diff", "-f", "deploy.yaml", "-o", "json"], {
      env: cliEnv(em),
      cwd: dir,
    });
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ action: "create", deployment_id: null, triggers_revision: true });
    expect(report.changes.filter((c: { immutable: boolean }) => c.immutable)).toEqual([]);
    // And apply creates it, as diff said.
    const applied = await runCli(["deploy", "apply", "-f", "deploy.yaml"], { env: cliEnv(em), cwd: dir });
    expect(applied.code, applied.stderr).toBe(0);
  });
});

describe("deploy get -o yaml | deploy apply -f -", () => {
  const getYaml = async (em: TestEmulator, name: string, ...flags: string[]) => {
    const got = await runCli(["deploy", "get", name, "-o", "yaml", ...flags], { env: cliEnv(em) });
    expect(got.code, got.stderr).toBe(0);
    return got.stdout;
  };

  it("applies: the read-only fields are ignored with one note listing them, and nothing changes", async () => {
    const em = await startTestEmulator();
    const seed = em.emulator.seed(em.tenantId);
    await em.createDeployment("gitrepo", "agent");
    await em.createDeployment("external_container", "api", {
      source_config: {
        listener_id: seed.listeners[0]!.id,
        listener_config: { k8s_namespace: "default" },
        resource_spec: { cpu: 1, memory_mb: 2048, labels: { team: "ml" } },
      },
      secrets: [],
    });
    em.settle();
    for (const name of ["agent", "api"]) {
      const yaml = await getYaml(em, name);
      const patches = count(em, "PATCH /v2/deployments/{deployment_id}");
      const applied = await runCli(["deploy", "apply", "-f", "-"], { env: cliEnv(em), stdin: yaml });
      expect(applied.code, applied.stderr).toBe(0);
      const notes = applied.stderr.split("\n").filter((line) => line.includes("ignored the fields"));
      expect(notes, applied.stderr).toHaveLength(1);
      expect(notes[0]).toContain(
        "stdin: ignored the fields no request sets (as `deploy get` prints them): id, tenant_id, created_at, updated_at, status, latest_revision_id, active_revision_id, image_version, source_revision_config.repo_commit_sha",
      );
      if (name === "agent") expect(notes[0]).toContain("source_config.custom_url");
      expect(count(em, "PATCH /v2/deployments/{deployment_id}")).toBe(patches);
      const diff = await runCli(["deploy", "diff", "-f", "-", "--exit-code"], {
        env: cliEnv(em),
        stdin: yaml,
      });
      expect(diff.code, diff.stdout).toBe(0);
    }
  });

  it("with secrets: from get --show-secrets (the mask itself is refused, as everywhere)", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_container", "svc", {
      secrets: [{ name: "TOKEN", value: "t0ken-value" }],
    });
    const masked = await runCli(["deploy", "apply", "-f", "-"], {
      env: cliEnv(em),
      stdin: await getYaml(em, "svc"),
    });
    expect(masked.code).toBe(2);
    expect(masked.stderr).toContain("****");
    const whole = await getYaml(em, "svc", "--show-secrets");
    const applied = await runCli(["deploy", "apply", "-f", "-"], { env: cliEnv(em), stdin: whole });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).not.toContain("t0ken-value");
  });

  it("an id that is not the deployment's is refused: the file was written from another one", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_container", "one");
    const two = await em.createDeployment("internal_container", "two");
    const yaml = (await getYaml(em, "one")).replace(/^name: one$/m, "name: two");
    for (const command of ["apply", "diff"]) {
      const r = await runCli(["deploy", command, "-f", "-"], { env: cliEnv(em), stdin: yaml });
      expect(r.code, command).toBe(2);
      expect(r.stderr).toContain(
        `but deployment two's is ${two.id}: the file was written from another deployment`,
      );
    }
    const patch = await runCli(["deploy", "patch", "two", "-f", "-"], { env: cliEnv(em), stdin: yaml });
    expect(patch.code).toBe(2);
    expect(patch.stderr).toContain("the file was written from another deployment");
  });
});
