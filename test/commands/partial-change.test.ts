// A partial change keeps everything the user did not name (CLI.md "Changing part of a
// deployment: nothing is lost"), end to end against the emulator: the deployment after the
// patch equals the one before plus exactly the change, for each family of fields.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { frontOf } from "../helpers/front.js";
import { cliEnv, freshDir, previewOf, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

// biome-ignore lint/suspicious/noExplicitAny: deployments are compared field by field.
type Json = Record<string, any>;

const patches = (em: TestEmulator) =>
  em.emulator.stats().requests["PATCH /v2/deployments/{deployment_id}"] ?? 0;

/** The deployment as stored, without what every revision moves on. */
async function stateOf(em: TestEmulator, id: string): Promise<Json> {
  const {
    updated_at: _u,
    latest_revision_id: _l,
    active_revision_id: _a,
    status: _s,
    image_version: _i,
    ...rest
  } = (await em.get(`/v2/deployments/${id}`)).json;
  return rest;
}

/** A deployment with something in every family: secrets, references, and a rich resource_spec. */
async function richDeployment(em: TestEmulator): Promise<Json> {
  return em.createDeployment("external_container", "rich", {
    secrets: [
      { name: "A", value: "alpha-value" },
      { name: "B", value: "bravo-value" },
      { name: "C", value: "charlie-value" },
    ],
    secret_references: [
      { name: "R1", secret_name: "db", secret_key: "url" },
      { name: "R2", secret_name: "db", secret_key: "password" },
    ],
    source_config: {
      ...(em.createBody("external_container").source_config as Json),
      resource_spec: {
        min_scale: 2,
        max_scale: 6,
        cpu: 1,
        memory_mb: 1024,
        memory_limit_mb: 4096,
        labels: { team: "core", tier: "web" },
        annotations: { owner: "ops" },
        service_account_name: "runner",
        volumes: [
          { name: "cache", emptyDir: {} },
          { name: "config", configMap: { name: "cfg" } },
        ],
        volume_mounts: [{ name: "cache", mountPath: "/cache" }],
        sidecars: [{ name: "proxy", image: "envoy:1" }],
        image_pull_secrets: [{ name: "regcred" }],
      },
    },
  });
}

async function patch(
  em: TestEmulator,
  args: string[],
  extra: { env?: Json; stdin?: string; cwd?: string } = {},
) {
  return runCli(["deploy", "patch", "rich", ...args, "-o", "json"], {
    env: cliEnv(em, extra.env),
    stdin: extra.stdin,
    cwd: extra.cwd,
  });
}

const spec = (state: Json) => state.source_config.resource_spec;

describe("secrets merge by name", () => {
  it("--secret sets one secret and keeps the others", async () => {
    const em = await startTestEmulator();
    const d = await richDeployment(em);
    const before = await stateOf(em, d.id);
    const r = await patch(em, ["--secret", "C=charlie-2"]);
    expect(r.code, r.stderr).toBe(0);
    expect(await stateOf(em, d.id)).toEqual({
      ...before,
      secrets: [
        { name: "A", value: "alpha-value" },
        { name: "B", value: "bravo-value" },
        { name: "C", value: "charlie-2" },
      ],
    });
    expect(previewOf(r.stderr).changes).toEqual([
      expect.objectContaining({ path: "secrets.C", kind: "change" }),
    ]);
  });

  it("--secrets-file and -f add and overwrite by name; an empty list in a patch file changes nothing", async () => {
    const em = await startTestEmulator();
    const d = await richDeployment(em);
    const before = await stateOf(em, d.id);
    const dir = freshDir("secrets");
    writeFileSync(join(dir, "more.env"), "B=bravo-2\nD=delta-value\n");
    expect((await patch(em, ["--secrets-file", "more.env"], { cwd: dir })).code).toBe(0);
    const merged = [
      { name: "A", value: "alpha-value" },
      { name: "B", value: "bravo-2" },
      { name: "C", value: "charlie-value" },
      { name: "D", value: "delta-value" },
    ];
    expect(await stateOf(em, d.id)).toEqual({ ...before, secrets: merged });

    const emptied = await patch(em, ["-f", "-"], { stdin: "secrets: []\n" });
    expect(emptied.code, emptied.stderr).toBe(0);
    expect(emptied.stderr).toContain("an empty secrets list in a patch changes nothing");
    expect((await stateOf(em, d.id)).secrets).toEqual(merged);
  });

  it("--unset-secret removes exactly that one; --replace-secrets makes the given ones the whole set", async () => {
    const em = await startTestEmulator();
    const d = await richDeployment(em);
    const before = await stateOf(em, d.id);
    const unset = await patch(em, ["--unset-secret", "B", "--unset-secret", "NOT_THERE"]);
    expect(unset.code, unset.stderr).toBe(0);
    expect(unset.stderr).toContain("has no secret NOT_THERE to unset");
    expect(await stateOf(em, d.id)).toEqual({
      ...before,
      secrets: [
        { name: "A", value: "alpha-value" },
        { name: "C", value: "charlie-value" },
      ],
    });
    expect(previewOf(unset.stderr).changes).toEqual([
      expect.objectContaining({ path: "secrets.B", kind: "remove", current: "****", desired: null }),
    ]);

    const replaced = await patch(em, ["--replace-secrets", "--secret", "Z=zulu-value"]);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(await stateOf(em, d.id)).toEqual({ ...before, secrets: [{ name: "Z", value: "zulu-value" }] });
    expect(
      previewOf(replaced.stderr)
        .changes.filter((c) => c.kind === "remove")
        .map((c) => c.path),
    ).toEqual(["secrets.A", "secrets.C"]);
  });
});

describe("secret references merge by name", () => {
  it("--secret-ref adds one, --unset-secret-ref removes one, --replace-secret-refs replaces the set", async () => {
    const em = await startTestEmulator();
    const d = await richDeployment(em);
    const before = await stateOf(em, d.id);
    expect((await patch(em, ["--secret-ref", "R3=cache:token"])).code).toBe(0);
    expect(await stateOf(em, d.id)).toEqual({
      ...before,
      secret_references: [
        ...before.secret_references,
        { name: "R3", secret_name: "cache", secret_key: "token" },
      ],
    });
    expect((await patch(em, ["--unset-secret-ref", "R1"])).code).toBe(0);
    expect((await stateOf(em, d.id)).secret_references.map((r: Json) => r.name)).toEqual(["R2", "R3"]);
    expect((await patch(em, ["--replace-secret-refs", "--secret-ref", "R9=x:y"])).code).toBe(0);
    expect(await stateOf(em, d.id)).toEqual({
      ...before,
      secret_references: [{ name: "R9", secret_name: "x", secret_key: "y" }],
    });
  });
});

describe("resource_spec merges field by field", () => {
  it("a scalar flag changes that field; the rest stays, and limits at their default follow", async () => {
    const em = await startTestEmulator();
    const d = await richDeployment(em);
    const before = await stateOf(em, d.id);
    const r = await patch(em, ["--cpu", "2", "--max-scale", "9"]);
    expect(r.code, r.stderr).toBe(0);
    expect(await stateOf(em, d.id)).toEqual({
      ...before,
      source_config: {
        ...before.source_config,
        resource_spec: {
          ...spec(before),
          cpu: 2,
          max_scale: 9,
          // At their default (2 x cpu, = cpu, = max_scale) before: they follow.
          cpu_limit: 4,
          queue_cpu: 2,
          queue_cpu_limit: 4,
          queue_max_scale: 9,
        },
      },
    });
    // memory_limit_mb was set apart from its default (4096, not 2 x 1024): it stays.
    expect(spec(await stateOf(em, d.id)).memory_limit_mb).toBe(4096);
    expect(
      previewOf(r.stderr)
        .changes.map((c) => c.path)
        .sort(),
    ).toEqual(
      [
        "source_config.resource_spec.cpu",
        "source_config.resource_spec.cpu_limit",
        "source_config.resource_spec.max_scale",
        "source_config.resource_spec.queue_cpu",
        "source_config.resource_spec.queue_cpu_limit",
        "source_config.resource_spec.queue_max_scale",
      ].sort(),
    );
  });

  it("maps merge key by key; --set KEY=null removes one key or one field", async () => {
    const em = await startTestEmulator();
    const d = await richDeployment(em);
    const before = await stateOf(em, d.id);
    const r = await patch(em, [
      "--set",
      "source_config.resource_spec.labels.app=agent",
      "--set",
      "source_config.resource_spec.labels.tier=null",
      "--set",
      "source_config.resource_spec.service_account_name=null",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const { service_account_name: _gone, ...rest } = spec(before);
    expect(await stateOf(em, d.id)).toEqual({
      ...before,
      source_config: {
        ...before.source_config,
        resource_spec: { ...rest, labels: { team: "core", app: "agent" } },
      },
    });
    const removed = previewOf(r.stderr)
      .changes.filter((c) => c.kind === "remove")
      .map((c) => c.path);
    expect(removed.sort()).toEqual([
      "source_config.resource_spec.labels.tier",
      "source_config.resource_spec.service_account_name",
    ]);
  });

  it("a list is replaced only when named; --set into one item edits that item", async () => {
    const em = await startTestEmulator();
    const d = await richDeployment(em);
    const before = await stateOf(em, d.id);
    expect((await patch(em, ["--set", "source_config.resource_spec.sidecars[0].image=envoy:2"])).code).toBe(
      0,
    );
    const edited = await stateOf(em, d.id);
    expect(edited).toEqual({
      ...before,
      source_config: {
        ...before.source_config,
        resource_spec: { ...spec(before), sidecars: [{ name: "proxy", image: "envoy:2" }] },
      },
    });
    const r = await patch(em, ["--set", 'source_config.resource_spec.image_pull_secrets=[{"name":"other"}]']);
    expect(r.code, r.stderr).toBe(0);
    expect(await stateOf(em, d.id)).toEqual({
      ...edited,
      source_config: {
        ...edited.source_config,
        resource_spec: { ...spec(edited), image_pull_secrets: [{ name: "other" }] },
      },
    });
  });

  it("--replace-resource-spec makes the fields given the whole spec", async () => {
    const em = await startTestEmulator();
    const d = await richDeployment(em);
    const before = await stateOf(em, d.id);
    const r = await patch(em, ["--replace-resource-spec", "--cpu", "1", "--memory-mb", "512"]);
    expect(r.code, r.stderr).toBe(0);
    expect(spec(await stateOf(em, d.id))).toEqual({
      cpu: 1,
      cpu_limit: 2,
      memory_mb: 512,
      memory_limit_mb: 1024,
      queue_cpu: 1,
      queue_cpu_limit: 2,
      queue_memory_mb: 512,
      queue_memory_limit_mb: 1024,
    });
    expect((await stateOf(em, d.id)).secrets).toEqual(before.secrets);
    expect(previewOf(r.stderr).changes.filter((c) => c.kind === "remove").length).toBeGreaterThan(5);
  });

  it("patch -f merges a file's resource_spec the same way", async () => {
    const em = await startTestEmulator();
    const d = await richDeployment(em);
    const before = await stateOf(em, d.id);
    const r = await patch(em, ["-f", "-"], {
      stdin: "source_config:\n  resource_spec:\n    memory_mb: 2048\n    labels:\n      env: prod\n",
    });
    expect(r.code, r.stderr).toBe(0);
    expect(spec(await stateOf(em, d.id))).toEqual({
      ...spec(before),
      memory_mb: 2048,
      // At its default before (= memory_mb), it follows; its own limit follows it in turn.
      queue_memory_mb: 2048,
      queue_memory_limit_mb: 4096,
      labels: { team: "core", tier: "web", env: "prod" },
    });
  });
});

describe("refusals: exit 2, nothing sent", () => {
  it("--set PATH=null where the API cannot clear, and --replace-* with nothing given", async () => {
    const em = await startTestEmulator();
    await richDeployment(em);
    for (const args of [
      ["--set", "source_config.custom_url=null"],
      ["--set", "source_revision_config.image_uri=null"],
      ["--replace-secrets"],
      ["--replace-secret-refs", "--cpu", "1"],
      ["--replace-resource-spec", "--secret", "A=x-value"],
    ]) {
      const r = await patch(em, args);
      expect(r.code, args.join(" ")).toBe(2);
    }
    expect(patches(em)).toBe(0);
  });

  it("a server that returns secrets without values: refuses to merge, asks for --replace-secrets", async () => {
    const em = await startTestEmulator();
    const d = await richDeployment(em);
    // What a service that hides values would answer: the emulator's answer, masked.
    const front = await frontOf(em, {
      rewrite: (answer) => answer.text.replace(/"value":"[^"]*"/g, '"value":"****"'),
    });
    const url = front.url;
    // Other services hide values in other ways: never taken for the value itself.
    for (const mask of ["********", "[REDACTED]", "sk-...abcd"]) {
      const other = await frontOf(em, {
        rewrite: (answer) => answer.text.replace(/"value":"[^"]*"/g, `"value":"${mask}"`),
      });
      const hidden = await runCli(["deploy", "patch", "rich", "--secret", "C=charlie-2", "--yes"], {
        env: { CPCTL_BASE_URL: other.url, CPCTL_API_KEY: em.apiKey },
      });
      expect(hidden.code, mask).toBe(2);
      expect(hidden.stderr).toContain("returned secrets A, B without their values");
    }
    const r = await runCli(["deploy", "patch", "rich", "--secret", "C=charlie-2"], {
      env: { CPCTL_BASE_URL: url, CPCTL_API_KEY: em.apiKey },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("returned secrets A, B without their values");
    expect(r.stderr).toContain("--replace-secrets");
    expect(patches(em)).toBe(0);
    // With the whole set given, nothing needs to be read back.
    const whole = await runCli(
      [
        "deploy",
        "patch",
        "rich",
        "--replace-secrets",
        "--secret",
        "A=a-value",
        "--secret",
        "C=c-value",
        "--yes",
      ],
      { env: { CPCTL_BASE_URL: url, CPCTL_API_KEY: em.apiKey } },
    );
    expect(whole.code, whole.stderr).toBe(0);
    expect((await stateOf(em, d.id)).secrets).toEqual([
      { name: "A", value: "a-value" },
      { name: "C", value: "c-value" },
    ]);
  });
});

describe("values that are never values", () => {
  it('"****" is refused from flags, files, stdin, --secrets-file and --set, on patch and on create', async () => {
    const em = await startTestEmulator();
    await richDeployment(em);
    const dir = freshDir("mask");
    writeFileSync(join(dir, "masked.env"), "A=****\n");
    writeFileSync(join(dir, "masked.yaml"), "secrets:\n  - name: A\n    value: '****'\n");
    const cases: [string[], string | undefined][] = [
      [["--secret", "A=****"], undefined],
      [["--secrets-file", "masked.env"], undefined],
      [["-f", "masked.yaml"], undefined],
      [["-f", "-"], '{"secrets":[{"name":"A","value":"****"}]}'],
      [["--set", "secrets[0].name=A", "--set", "secrets[0].value=****"], undefined],
    ];
    for (const [args, stdin] of cases) {
      const r = await runCli(["deploy", "patch", "rich", ...args], { env: cliEnv(em), cwd: dir, stdin });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain("secret A");
      expect(r.stderr).toContain('"****" is what cpctl prints in place of a secret value');
      expect(r.stderr).toContain("leave secrets out");
    }
    const create = await runCli(
      [
        "deploy",
        "create",
        "--name",
        "n",
        "--source",
        "internal_container",
        "--image-uri",
        "x:1",
        "--secret",
        "K=****",
      ],
      { env: cliEnv(em) },
    );
    expect(create.code).toBe(2);
    expect(patches(em)).toBe(0);
    expect(em.emulator.stats().requests["POST /v2/deployments"]).toBe(1);
  });

  it("any other mask is refused too (a file made from another tool's output), never quoted", async () => {
    const em = await startTestEmulator();
    await richDeployment(em);
    for (const mask of ["********", "[REDACTED]", "sk-...abcd", "sk-****wxyz", "<hidden>"]) {
      const r = await runCli(["deploy", "patch", "rich", "--secret", `A=${mask}`, "--yes"], {
        env: cliEnv(em),
      });
      expect(r.code, mask).toBe(2);
      expect(r.stderr).toContain(
        "secret A (--secret A=...): the value looks like one a server shows in place of a secret (only *, a word such as [REDACTED], or a few characters around ...), not a value",
      );
      // The characters around a mask may be a real value's first and last.
      expect(r.stderr).not.toMatch(/abcd|wxyz|sk-/);
    }
    expect(patches(em)).toBe(0);
  });

  it("an empty value from the environment is refused (naming secret and variable) unless --allow-empty-secrets", async () => {
    const em = await startTestEmulator();
    const d = await richDeployment(em);
    const dir = freshDir("empty");
    writeFileSync(join(dir, "patch.yaml"), "secrets:\n  - name: B\n    value: ${env:CI_TOKEN}\n");
    const fromFlag = await patch(em, ["--secret", "B"], { env: { B: "" } });
    expect(fromFlag.code).toBe(2);
    expect(fromFlag.stderr).toContain(
      "secret B (--secret B) is empty: the environment variable B is set but empty",
    );
    const fromFile = await patch(em, ["-f", "patch.yaml"], { env: { CI_TOKEN: "" }, cwd: dir });
    expect(fromFile.code).toBe(2);
    expect(fromFile.stderr).toContain(
      "secret B (patch.yaml:3) is empty: the environment variable CI_TOKEN is set but empty",
    );
    expect(fromFile.stderr).toContain("--allow-empty-secrets");
    expect(patches(em)).toBe(0);

    writeFileSync(join(dir, "empty.env"), "B=\n");
    for (const [args, stdin] of [
      [["--secret", "B="], undefined],
      [["--secrets-file", "empty.env"], undefined],
      [["-f", "-"], '{"secrets":[{"name":"B","value":""}]}'],
      [["--set", "secrets[0].name=B", "--set", "secrets[0].value="], undefined],
    ] as [string[], string | undefined][]) {
      const r = await patch(em, args, { cwd: dir, stdin });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain("secret B");
      expect(r.stderr).toContain("is empty");
    }
    expect(patches(em)).toBe(0);

    const allowed = await patch(em, ["--secret", "B", "--allow-empty-secrets"], { env: { B: "" } });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect((await stateOf(em, d.id)).secrets).toContainEqual({ name: "B", value: "" });
    // An empty value is shown as empty, never as the mask.
    expect(previewOf(allowed.stderr).changes).toEqual([
      expect.objectContaining({ path: "secrets.B", current: "****", desired: "" }),
    ]);
  });

  it("a malformed ${env:...} reference is an error naming the file line, never sent as text", async () => {
    const em = await startTestEmulator();
    await richDeployment(em);
    const dir = freshDir("malformed");
    writeFileSync(join(dir, "patch.yaml"), "secrets:\n  - name: B\n    value: ${env:CI TOKEN}\n");
    const r = await patch(em, ["-f", "patch.yaml"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("patch.yaml:3: secrets[0].value: '${env:CI TOKEN}' is not a valid reference");
    expect(patches(em)).toBe(0);
  });
});

describe("the preview", () => {
  it("--dry-run shows every change and removal, sends nothing; the text form marks removals", async () => {
    const em = await startTestEmulator();
    await richDeployment(em);
    const r = await runCli(
      ["deploy", "patch", "rich", "--replace-secrets", "--secret", "A=new-alpha", "--cpu", "2", "--dry-run"],
      { env: cliEnv(em) },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("Changes to deployment rich:");
    expect(r.stderr).toContain("~ secrets.A: **** -> ****");
    expect(r.stderr).toContain("- secrets.B: **** (removed)");
    expect(r.stderr).toContain("- secrets.C: **** (removed)");
    expect(r.stderr).toContain("~ source_config.resource_spec.cpu: 1 -> 2");
    expect(r.stderr).toContain("starts a new revision (source_config.resource_spec, secrets)");
    expect(r.stderr).not.toContain("new-alpha");
    expect(patches(em)).toBe(0);
    // The dry run's stdout is the body that would be sent: the whole merged values.
    const body = JSON.parse(
      (
        await runCli(["deploy", "patch", "rich", "--cpu", "2", "--dry-run", "-o", "json", "--show-secrets"], {
          env: cliEnv(em),
        })
      ).stdout,
    );
    expect(body.source_config.resource_spec).toMatchObject({ cpu: 2, max_scale: 6, memory_mb: 1024 });
  });

  it("the JSON preview line holds no raw character a terminal acts on (DEL, C1, bidi)", async () => {
    const em = await startTestEmulator();
    await richDeployment(em);
    const hostile = "a\u007fb\u009bc\u202ed";
    const r = await runCli(
      ["deploy", "patch", "rich", "--image-uri", `img:${hostile}`, "--dry-run", "-o", "json"],
      {
        env: cliEnv(em),
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const line = r.stderr.split("\n").find((l) => l.startsWith('{"preview"')) ?? "";
    expect(line).not.toMatch(/[\u007f-\u009f\u202a-\u202e]/);
    expect(JSON.stringify(previewOf(r.stderr).changes)).toContain(JSON.stringify(hostile).slice(1, -1));
  });

  it("nothing to change: says so, sends nothing, exits 0", async () => {
    const em = await startTestEmulator();
    const d = await richDeployment(em);
    const r = await patch(em, ["--secret", "A=alpha-value", "--cpu", "1"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("nothing to change");
    expect(JSON.parse(r.stdout).id).toBe(d.id);
    expect(patches(em)).toBe(0);
  });
});
