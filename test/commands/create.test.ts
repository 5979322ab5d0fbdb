import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { cliEnv, freshDir, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const posts = (em: TestEmulator) => em.emulator.stats().requests["POST /v2/deployments"] ?? 0;

async function gitrepoArgs(em: TestEmulator, name: string): Promise<string[]> {
  const integration = em.emulator.seed(em.tenantId).integrations[0]!.id;
  return [
    "deploy",
    "create",
    "--name",
    name,
    "--source",
    "gitrepo",
    "--integration-id",
    integration,
    "--repo-url",
    "https://github.com/acme/agent",
    "--repo-ref",
    "main",
    "--agent-config-path",
    "agent.json",
  ];
}

describe("deploy create from flags", () => {
  it("creates a gitrepo deployment and prints the Deployment object as JSON", async () => {
    const em = await startTestEmulator();
    const r = await runCli(
      [...(await gitrepoArgs(em, "agent-a")), "--deployment-type", "dev", "--build-on-push", "-o", "json"],
      { env: cliEnv(em) },
    );
    expect(r.stderr).toContain("created deployment agent-a");
    expect(r.code).toBe(0);
    const deployment = JSON.parse(r.stdout);
    expect(deployment).toMatchObject({
      name: "agent-a",
      source: "gitrepo",
      source_config: {
        repo_url: "https://github.com/acme/agent",
        deployment_type: "dev",
        build_on_push: true,
      },
      source_revision_config: { repo_ref: "main", agent_config_path: "agent.json" },
    });
    expect(deployment.latest_revision_id).toMatch(/^[0-9a-f-]{36}$/);
    const stored = await em.get(`/v2/deployments/${deployment.id}`);
    expect(stored.json.source_config.integration_id).toBe(em.emulator.seed(em.tenantId).integrations[0]!.id);
  });

  it("reaches every named field flag and --set, typed by the schema (dry run shows the body)", async () => {
    const em = await startTestEmulator();
    const listener = em.emulator.seed(em.tenantId).listeners[0]!;
    const r = await runCli(
      [
        "deploy",
        "create",
        "--dry-run",
        "-o",
        "json",
        "--name",
        "api",
        "--source",
        "external_container",
        "--image-uri",
        "ghcr.io/acme/api:1",
        "--custom-url",
        "https://api.example.com",
        "--listener-id",
        listener.id,
        "--k8s-namespace",
        listener.compute_config.k8s_namespaces[0]!,
        "--min-scale",
        "1",
        "--max-scale",
        "3",
        "--cpu",
        "0.5",
        "--cpu-limit",
        "1",
        "--memory-mb",
        "512",
        "--memory-limit-mb",
        "1024",
        "--set",
        "source_config.resource_spec.queue_cpu=0.25",
        "--set",
        'source_config.resource_spec.labels={"team":"infra"}',
        "--set",
        "source_config.resource_spec.sidecars[0].name=proxy",
        "--set",
        "source_config.resource_spec.sidecars[0].image=envoy:1",
        "--secret-ref",
        "DB_URL=db-credentials:url",
      ],
      { env: cliEnv(em) },
    );
    expect(r.stderr).toContain("nothing was sent");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      name: "api",
      source: "external_container",
      source_config: {
        custom_url: "https://api.example.com",
        listener_id: listener.id,
        listener_config: { k8s_namespace: listener.compute_config.k8s_namespaces[0] },
        resource_spec: {
          min_scale: 1,
          max_scale: 3,
          cpu: 0.5,
          cpu_limit: 1,
          memory_mb: 512,
          memory_limit_mb: 1024,
          queue_cpu: 0.25,
          labels: { team: "infra" },
          sidecars: [{ name: "proxy", image: "envoy:1" }],
        },
      },
      source_revision_config: { image_uri: "ghcr.io/acme/api:1" },
      secrets: [],
      secret_references: [{ name: "DB_URL", secret_name: "db-credentials", secret_key: "url" }],
    });
    expect(posts(em)).toBe(0);
  });

  it("takes secrets from the environment, NAME=VALUE and a dotenv file, and masks their values", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("secrets");
    writeFileSync(
      join(dir, ".env"),
      '# comment\nexport FROM_FILE="line1\\nline2"\nPLAIN=plain-value # trailing\n',
    );
    const args = [
      ...(await gitrepoArgs(em, "agent-s")),
      "--secret",
      "FROM_ENV",
      "--secret",
      "INLINE=inline-secret",
      "--secrets-file",
      ".env",
      "-o",
      "json",
    ];
    const r = await runCli(args, { env: cliEnv(em, { FROM_ENV: "env-secret-value" }), cwd: dir });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.secrets.map((s: { name: string }) => s.name).sort()).toEqual([
      "FROM_ENV",
      "FROM_FILE",
      "INLINE",
      "PLAIN",
    ]);
    expect(out.secrets.every((s: { value: string }) => s.value === "****")).toBe(true);
    for (const secret of ["env-secret-value", "inline-secret", "plain-value", "line1"]) {
      expect(r.stdout + r.stderr).not.toContain(secret);
    }
    const stored = await em.get(`/v2/deployments/${out.id}`);
    const values = Object.fromEntries(
      stored.json.secrets.map((s: { name: string; value: string }) => [s.name, s.value]),
    );
    expect(values).toEqual({
      FROM_ENV: "env-secret-value",
      INLINE: "inline-secret",
      FROM_FILE: "line1\nline2",
      PLAIN: "plain-value",
    });

    const shown = await runCli(["deploy", "get", "agent-s", "-o", "json", "--show-secrets"], {
      env: cliEnv(em),
    });
    expect(shown.stdout).toContain("env-secret-value");
  });

  it("names an unset --secret variable", async () => {
    const em = await startTestEmulator();
    const r = await runCli([...(await gitrepoArgs(em, "x")), "--secret", "MISSING_VAR"], { env: cliEnv(em) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--secret MISSING_VAR: the environment variable MISSING_VAR is not set");
  });

  it("refuses a body that breaks a rule before sending anything, naming the flag", async () => {
    const em = await startTestEmulator();
    const r = await runCli(
      [...(await gitrepoArgs(em, "bad")).map((a) => (a === "main" ? "refs/tags/v1" : a)), "--build-on-push"],
      { env: cliEnv(em) },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--build-on-push \(source_config\.build_on_push\): build_on_push cannot be true when repo_ref is a tag/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(posts(em)).toBe(0);
  });

  it("refuses cpu out of bounds and an agent_config_path on a container source", async () => {
    const em = await startTestEmulator();
    const r = await runCli(
      [
        "deploy",
        "create",
        "--name",
        "c",
        "--source",
        "external_container",
        "--image-uri",
        "x:1",
        "--cpu",
        "9",
        "--agent-config-path",
        "agent.json",
      ],
      { env: cliEnv(em) },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--cpu (source_config.resource_spec.cpu): must be between 0.1 and 8 cores");
    expect(r.stderr).toContain(
      "--agent-config-path (source_revision_config.agent_config_path): must be null for external_container",
    );
    expect(posts(em)).toBe(0);
  });

  it("types --set values by the schema and suggests the right path", async () => {
    const em = await startTestEmulator();
    const base = [
      "deploy",
      "create",
      "--dry-run",
      "--name",
      "c",
      "--source",
      "external_container",
      "--image-uri",
      "x:1",
    ];
    const wrongType = await runCli([...base, "--set", "source_config.resource_spec.min_scale=abc"], {
      env: cliEnv(em),
    });
    expect(wrongType.code).toBe(2);
    expect(wrongType.stderr).toContain("expected a whole number");
    const typo = await runCli([...base, "--set", "source_config.resource_spec.cpus=1"], { env: cliEnv(em) });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("did you mean 'cpu'?");
    const badEnum = await runCli([...base, "--set", "source_config.deployment_type=huge"], {
      env: cliEnv(em),
    });
    expect(badEnum.stderr).toContain("one of dev_free, dev, prod");
    const bool = await runCli(
      [...base, "-o", "json", "--set", "source_config.resource_spec.sidecars=[]", "--set", "secrets=[]"],
      { env: cliEnv(em) },
    );
    expect(bool.code).toBe(0);
  });

  it("reads a YAML file with ${env:NAME}, lets flags override it, and points errors at the line", async () => {
    const em = await startTestEmulator();
    const dir = freshDir("file");
    const integration = em.emulator.seed(em.tenantId).integrations[0]!.id;
    writeFileSync(
      join(dir, "deploy.yaml"),
      [
        "name: from-file",
        "source: gitrepo",
        "source_config:",
        `  integration_id: ${integration}`,
        "  repo_url: ${env:REPO}",
        "source_revision_config:",
        "  repo_ref: main",
        "  agent_config_path: agent.json",
        "secrets:",
        "  - name: TOKEN",
        "    value: ${env:TOKEN}",
        "",
      ].join("\n"),
    );
    const r = await runCli(["deploy", "create", "-f", "deploy.yaml", "--repo-ref", "release", "-o", "json"], {
      env: cliEnv(em, { REPO: "https://github.com/acme/x", TOKEN: "file-token-value" }),
      cwd: dir,
    });
    expect(r.code).toBe(0);
    const created = JSON.parse(r.stdout);
    expect(created.source_config.repo_url).toBe("https://github.com/acme/x");
    expect(created.source_revision_config.repo_ref).toBe("release");
    expect(r.stdout).not.toContain("file-token-value");

    const unset = await runCli(["deploy", "create", "-f", "deploy.yaml", "--dry-run"], {
      env: cliEnv(em, { TOKEN: "t" }),
      cwd: dir,
    });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain(
      "deploy.yaml:5: source_config.repo_url: the environment variable REPO is not set",
    );

    writeFileSync(
      join(dir, "bad.yaml"),
      `name: b\nsource: gitrepo\nsource_config:\n  repo_url: x\n  build_on_pushh: true\n  integration_id: ${integration}\nsource_revision_config:\n  agent_config_path: agent.json\n`,
    );
    const typo = await runCli(["deploy", "create", "-f", "bad.yaml", "--dry-run"], {
      env: cliEnv(em),
      cwd: dir,
    });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      "bad.yaml:5: source_config.build_on_pushh: is not a known field; did you mean 'build_on_push'?",
    );
  });

  it("reads a JSON file from stdin", async () => {
    const em = await startTestEmulator();
    const body = {
      name: "stdin-dep",
      source: "internal_container",
      source_config: {},
      source_revision_config: { image_uri: "x:1" },
      secrets: [],
    };
    const r = await runCli(["deploy", "create", "-f", "-", "-o", "id"], {
      env: cliEnv(em),
      stdin: JSON.stringify(body),
    });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers a duplicate name with exit 1 and the server's message, as JSON in json mode", async () => {
    const em = await startTestEmulator();
    const args = await gitrepoArgs(em, "dup");
    expect((await runCli(args, { env: cliEnv(em) })).code).toBe(0);
    const again = await runCli([...args, "-o", "json"], { env: cliEnv(em) });
    expect(again.code).toBe(1);
    expect(again.stdout).toBe("");
    const error = JSON.parse(again.stderr.trim().split("\n").at(-1)!);
    expect(error).toEqual({
      error: {
        code: "conflict",
        status: 409,
        message: expect.stringContaining("dup"),
        details: expect.anything(),
      },
    });
  });

  it("--wait exits 0 once the first revision is DEPLOYED, 5 when it fails", async () => {
    const em = await startTestEmulator();
    const ok = await runCli([...(await gitrepoArgs(em, "w1")), "--wait", "-o", "id"], { env: cliEnv(em) });
    expect(ok.code).toBe(0);
    expect(ok.stderr).toMatch(/DEPLOYED/);
    em.emulator.failNextRevision({ stage: "BUILDING" });
    const failed = await runCli([...(await gitrepoArgs(em, "w2")), "--wait", "-o", "id"], {
      env: cliEnv(em),
    });
    expect(failed.code).toBe(5);
    // The ID is printed even though the wait failed.
    expect(failed.stdout.trim()).toMatch(/^[0-9a-f-]{36}$/);
    expect(failed.stderr).toContain("BUILD_FAILED");
  });
});
