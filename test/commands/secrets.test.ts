// `cpctl secrets list|set|unset|import` (CLI.md): list reads the deployment and shows each
// secret (masked unless --show-secrets) and each secret reference; set, unset and import are
// `deploy patch --secret`, `--unset-secret` and `--secrets-file` run by patch's own operation:
// the same body, preview, exit codes and CI outputs, which these tests hold side by side.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { cliEnv, freshDir, instantClock, previewOf, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const patches = (em: TestEmulator) =>
  em.emulator.stats().requests["PATCH /v2/deployments/{deployment_id}"] ?? 0;

/** Secret values no output may show (unless --show-secrets lists them). */
const ALPHA = "alpha-secret-value-1";
const BRAVO = "bravo-secret-value-2";
const NEW = "new-secret-value-3";

/** external_container: it may have secret references as well as secrets. */
async function withSecrets(em: TestEmulator, name = "web") {
  return em.createDeployment("external_container", name, {
    secrets: [
      { name: "ALPHA", value: ALPHA },
      { name: "BRAVO", value: BRAVO },
    ],
    secret_references: [{ name: "DB_URL", secret_name: "db-credentials", secret_key: "url" }],
  });
}

async function storedSecrets(em: TestEmulator, id: string) {
  return (await em.get(`/v2/deployments/${id}`)).json.secrets;
}

function expectNoValues(text: string, values: readonly string[] = [ALPHA, BRAVO, NEW]) {
  for (const value of values) expect(text).not.toContain(value);
}

describe("secrets list", () => {
  it("-o json: every row has name, source, value, secret_name and secret_key; values masked", async () => {
    const em = await startTestEmulator();
    await withSecrets(em);
    const r = await runCli(["secrets", "list", "web", "-o", "json"], { env: cliEnv(em) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { name: "ALPHA", source: "secret", value: "****", secret_name: null, secret_key: null },
      { name: "BRAVO", source: "secret", value: "****", secret_name: null, secret_key: null },
      {
        name: "DB_URL",
        source: "reference",
        value: null,
        secret_name: "db-credentials",
        secret_key: "url",
      },
    ]);
    expect(Object.keys(JSON.parse(r.stdout)[0])).toEqual([
      "name",
      "source",
      "value",
      "secret_name",
      "secret_key",
    ]);
    expectNoValues(r.stdout + r.stderr);
  });

  it("--show-secrets shows the values, in every format", async () => {
    const em = await startTestEmulator();
    await withSecrets(em);
    const json = await runCli(["secrets", "list", "web", "-o", "json", "--show-secrets"], {
      env: cliEnv(em),
    });
    expect(JSON.parse(json.stdout).map((row: { value: string | null }) => row.value)).toEqual([
      ALPHA,
      BRAVO,
      null,
    ]);
    const table = await runCli(["secrets", "list", "web", "--show-secrets"], { env: cliEnv(em) });
    expect(table.stdout).toBe(
      `ALPHA\tsecret\t${ALPHA}\nBRAVO\tsecret\t${BRAVO}\nDB_URL\treference\tdb-credentials:url\n`,
    );
  });

  it("--show-secrets on GitHub Actions masks each value in the log first, on stderr", async () => {
    const em = await startTestEmulator();
    await withSecrets(em);
    const env = cliEnv(em, { GITHUB_ACTIONS: "true", CI: "true" });
    const r = await runCli(["secrets", "list", "web", "--show-secrets"], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`::add-mask::${ALPHA}\n`);
    expect(r.stderr).toContain(`::add-mask::${BRAVO}\n`);
    expect(r.stdout).not.toContain("::add-mask::");
  });

  it("off a terminal: NAME, SOURCE, VALUE tab-separated, a reference's VALUE its SECRET_NAME:KEY", async () => {
    const em = await startTestEmulator();
    await withSecrets(em);
    const r = await runCli(["secrets", "list", "web"], { env: cliEnv(em) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      "ALPHA\tsecret\t****\nBRAVO\tsecret\t****\nDB_URL\treference\tdb-credentials:url\n",
    );
  });

  it("on a terminal: a table under a header; an empty list says so", async () => {
    const em = await startTestEmulator();
    await withSecrets(em);
    await em.createDeployment("external_container", "bare");
    const r = await runCli(["secrets", "list", "web", "--no-color"], { env: cliEnv(em), tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")).toEqual([
      "NAME    SOURCE     VALUE",
      "ALPHA   secret     ****",
      "BRAVO   secret     ****",
      "DB_URL  reference  db-credentials:url",
      "",
    ]);
    const empty = await runCli(["secrets", "list", "bare"], { env: cliEnv(em), tty: true });
    expect(empty.stdout).toBe("No secrets.\n");
    const emptyJson = await runCli(["secrets", "list", "bare", "-o", "json"], { env: cliEnv(em) });
    expect(JSON.parse(emptyJson.stdout)).toEqual([]);
  });

  it("-o id prints the names; yaml and ndjson the same rows as json, masked", async () => {
    const em = await startTestEmulator();
    await withSecrets(em);
    const id = await runCli(["secrets", "list", "web", "-o", "id"], { env: cliEnv(em) });
    expect(id.stdout).toBe("ALPHA\nBRAVO\nDB_URL\n");
    const json = JSON.parse(
      (await runCli(["secrets", "list", "web", "-o", "json"], { env: cliEnv(em) })).stdout,
    );
    const ndjson = await runCli(["secrets", "list", "web", "-o", "ndjson"], { env: cliEnv(em) });
    expect(
      ndjson.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line)),
    ).toEqual(json);
    const yaml = await runCli(["secrets", "list", "web", "-o", "yaml"], { env: cliEnv(em) });
    const { parse } = await import("yaml");
    expect(parse(yaml.stdout)).toEqual(json);
    expectNoValues(id.stdout + ndjson.stdout + yaml.stdout);
  });

  it("a deployment that does not exist: exit 4", async () => {
    const em = await startTestEmulator();
    const r = await runCli(["secrets", "list", "ghost"], { env: cliEnv(em) });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("no deployment named 'ghost'");
  });
});

/** The same change made both ways, on two deployments alike: what each printed and left. */
async function sideBySide(
  secretsArgs: (name: string) => string[],
  patchArgs: (name: string) => string[],
  options: { env?: Record<string, string>; stdin?: string; cwd?: string } = {},
) {
  const em = await startTestEmulator();
  const a = await withSecrets(em, "a");
  const b = await withSecrets(em, "b");
  const run = (args: string[]) =>
    runCli(args, { env: cliEnv(em, options.env), stdin: options.stdin, cwd: options.cwd });
  const viaSecrets = await run(secretsArgs("a"));
  const viaPatch = await run(patchArgs("b"));
  return { em, a, b, viaSecrets, viaPatch };
}

describe("secrets set, unset and import are deploy patch", () => {
  const cases = [
    {
      what: "set NAME=VALUE NAME",
      secrets: (d: string) => ["secrets", "set", d, `ALPHA=${NEW}`, "CHARLIE"],
      patch: (d: string) => ["deploy", "patch", d, "--secret", `ALPHA=${NEW}`, "--secret", "CHARLIE"],
      env: { CHARLIE: NEW },
    },
    {
      what: "unset NAME...",
      secrets: (d: string) => ["secrets", "unset", d, "ALPHA", "BRAVO"],
      patch: (d: string) => ["deploy", "patch", d, "--unset-secret", "ALPHA", "--unset-secret", "BRAVO"],
    },
    {
      what: "import FILE",
      secrets: (d: string) => ["secrets", "import", d, "more.env"],
      patch: (d: string) => ["deploy", "patch", d, "--secrets-file", "more.env"],
      file: `BRAVO=${NEW}\nDELTA='delta value'\n`,
    },
    {
      what: "import - (stdin)",
      secrets: (d: string) => ["secrets", "import", d, "-"],
      patch: (d: string) => ["deploy", "patch", d, "--secrets-file", "-"],
      stdin: `BRAVO=${NEW}\nDELTA='delta value'\n`,
    },
  ];

  for (const c of cases) {
    it(`${c.what}: the same --dry-run body and preview, byte for byte, in json and text`, async () => {
      const cwd = freshDir("secrets");
      if (c.file) writeFileSync(join(cwd, "more.env"), c.file);
      const em = await startTestEmulator();
      await withSecrets(em, "web");
      const run = (args: string[]) => runCli(args, { env: cliEnv(em, c.env), stdin: c.stdin, cwd });
      for (const format of [["-o", "json"], ["-o", "yaml"], []]) {
        const viaSecrets = await run([...c.secrets("web"), "--dry-run", ...format]);
        const viaPatch = await run([...c.patch("web"), "--dry-run", ...format]);
        expect(viaSecrets.code, viaSecrets.stderr).toBe(0);
        expect(viaSecrets).toEqual(viaPatch);
        expectNoValues(viaSecrets.stdout + viaSecrets.stderr);
      }
      expect(
        previewOf((await run([...c.secrets("web"), "--dry-run", "-o", "json"])).stderr).changes,
      ).not.toEqual([]);
      expect(patches(em)).toBe(0);
    });

    it(`${c.what}: the same change sent, the same exit, outputs and stored secrets`, async () => {
      const cwd = freshDir("secrets");
      if (c.file) writeFileSync(join(cwd, "more.env"), c.file);
      const { em, a, b, viaSecrets, viaPatch } = await sideBySide(
        (d) => [...c.secrets(d), "-o", "json"],
        (d) => [...c.patch(d), "-o", "json"],
        { env: c.env, stdin: c.stdin, cwd },
      );
      expect(viaSecrets.code, viaSecrets.stderr).toBe(0);
      expect(viaPatch.code, viaPatch.stderr).toBe(0);
      expect(patches(em)).toBe(2);
      expect(await storedSecrets(em, a.id)).toEqual(await storedSecrets(em, b.id));
      const same = (text: string, d: { id: string; name: string }) =>
        text.replaceAll(d.id, "ID").replaceAll(`"${d.name}"`, '"NAME"');
      expect(same(JSON.stringify(previewOf(viaSecrets.stderr)), a)).toBe(
        same(JSON.stringify(previewOf(viaPatch.stderr)), b),
      );
      const shown = (text: string) => Object.keys(JSON.parse(text)).sort();
      expect(shown(viaSecrets.stdout)).toEqual(shown(viaPatch.stdout));
      expect(JSON.parse(viaSecrets.stdout).secrets).toEqual(JSON.parse(viaPatch.stdout).secrets);
      expectNoValues(viaSecrets.stdout + viaSecrets.stderr);
    });
  }

  it("the CI outputs are patch's: the same keys in $GITHUB_OUTPUT", async () => {
    const em = await startTestEmulator();
    await withSecrets(em, "a");
    await withSecrets(em, "b");
    const outputs: string[] = [];
    for (const args of [
      ["secrets", "set", "a", `ALPHA=${NEW}`],
      ["deploy", "patch", "b", "--secret", `ALPHA=${NEW}`],
    ]) {
      const dir = freshDir("step");
      const r = await runCli(args, {
        env: cliEnv(em, {
          CI: "true",
          GITHUB_ACTIONS: "true",
          GITHUB_OUTPUT: join(dir, "output"),
          GITHUB_STEP_SUMMARY: join(dir, "summary.md"),
        }),
      });
      expect(r.code, r.stderr).toBe(0);
      const output = readFileSync(join(dir, "output"), "utf8");
      outputs.push(output.replace(/=.*$/gm, "="));
      expectNoValues(output + readFileSync(join(dir, "summary.md"), "utf8") + r.stderr + r.stdout);
    }
    expect(outputs[0]).toBe(outputs[1]);
    expect(outputs[0]).toContain("revision_id=");
  });
});

describe("secrets set", () => {
  it("sets by name and keeps the others; NAME alone reads the environment variable NAME", async () => {
    const em = await startTestEmulator();
    const d = await withSecrets(em);
    const r = await runCli(["secrets", "set", "web", "CHARLIE"], { env: cliEnv(em, { CHARLIE: NEW }) });
    expect(r.code, r.stderr).toBe(0);
    expect(await storedSecrets(em, d.id)).toEqual([
      { name: "ALPHA", value: ALPHA },
      { name: "BRAVO", value: BRAVO },
      { name: "CHARLIE", value: NEW },
    ]);
    expect(r.stderr).toContain("+ secrets.CHARLIE: ****");
    expect(r.stderr).toMatch(/new revision \S+ started/);
    expectNoValues(r.stdout + r.stderr);
  });

  it("bad input: exit 2, the argument named (never a value), nothing sent", async () => {
    const em = await startTestEmulator();
    await withSecrets(em);
    const env = cliEnv(em, { EMPTY: "" });
    const cases: [string[], string][] = [
      [["MISSING"], "MISSING: the environment variable MISSING is not set; export it, or give MISSING=VALUE"],
      [["=x"], "'=...': the secret needs a name"],
      [[`sk.${NEW}`], "a NAME[=VALUE] argument: expected NAME"],
      [["TOKEN=****"], 'secret TOKEN (argument TOKEN=...): "****" is what cpctl prints'],
      [["TOKEN=sk-****abcd"], "secret TOKEN (argument TOKEN=...): the value looks like one"],
      [["TOKEN="], "secret TOKEN (argument TOKEN=...) is empty"],
      [["EMPTY"], "secret EMPTY (argument EMPTY) is empty: the environment variable EMPTY is set but empty"],
      [[`bad-name=${NEW}`], "NAME[=VALUE] (secrets[0].name): must be an environment variable name"],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(["secrets", "set", "web", ...args, "-y"], { env });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain(message);
      expectNoValues(r.stdout + r.stderr);
    }
    const none = await runCli(["secrets", "set", "web"], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("missing required argument 'name[=value]'");
    expect(patches(em)).toBe(0);
  });

  it("--allow-empty-secrets sends an empty value on purpose", async () => {
    const em = await startTestEmulator();
    const d = await withSecrets(em);
    const r = await runCli(["secrets", "set", "web", "TOKEN=", "--allow-empty-secrets"], { env: cliEnv(em) });
    expect(r.code, r.stderr).toBe(0);
    expect(await storedSecrets(em, d.id)).toContainEqual({ name: "TOKEN", value: "" });
  });

  it("a value the deployment already has: nothing to change, nothing sent, exit 0", async () => {
    const em = await startTestEmulator();
    await withSecrets(em);
    const r = await runCli(["secrets", "set", "web", `ALPHA=${ALPHA}`], { env: cliEnv(em) });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("nothing to change");
    expect(patches(em)).toBe(0);
  });

  it("--wait follows the new revision to DEPLOYED; a failed one is exit 5", async () => {
    const em = await startTestEmulator({ stageMs: 60_000 });
    const d = await withSecrets(em);
    em.settle();
    const clock = instantClock(Date.now(), (ms) => em.advance(ms));
    const r = await runCli(["secrets", "set", "web", `ALPHA=${NEW}`, "--wait", "--interval", "1s"], {
      env: cliEnv(em),
      clock,
    });
    expect(r.code, r.stderr).toBe(0);
    const latest = (await em.get(`/v2/deployments/${d.id}`)).json.latest_revision_id;
    expect(latest).not.toBe(d.latest_revision_id);
    expect(r.stderr).toMatch(new RegExp(`revision ${latest}: DEPLOYED`));

    em.emulator.failNextRevision({ stage: "DEPLOYING" });
    const failed = await runCli(
      ["secrets", "unset", "web", "BRAVO", "--wait", "--interval", "1s", "-o", "json"],
      { env: cliEnv(em), clock },
    );
    expect(failed.code, failed.stderr).toBe(5);
    expect(JSON.parse(failed.stdout)).toMatchObject({ id: d.id, status: expect.any(String) });
    expect(failed.stderr).toMatch(/DEPLOY_FAILED/);
  });

  it("asks where deploy patch asks: a confirming profile off a terminal needs --yes", async () => {
    const em = await startTestEmulator();
    const d = await withSecrets(em);
    const home = freshDir("home");
    mkdirSync(join(home, ".config", "cpctl"), { recursive: true });
    writeFileSync(
      join(home, ".config", "cpctl", "config.yaml"),
      `profiles:\n  prod:\n    baseUrl: ${em.url}\n    apiKey: \${env:KEY}\n    confirm: true\n`,
      { mode: 0o600 },
    );
    const env = { KEY: em.apiKey, CPCTL_PROFILE: "prod" };
    const refused = await runCli(["secrets", "set", "web", `ALPHA=${NEW}`], { env, homeDir: home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("pass --yes to patch deployment web");
    expect(patches(em)).toBe(0);
    const allowed = await runCli(["secrets", "set", "web", `ALPHA=${NEW}`, "--yes"], { env, homeDir: home });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(await storedSecrets(em, d.id)).toContainEqual({ name: "ALPHA", value: NEW });
  });
});

describe("secrets unset", () => {
  it("removes by name and keeps the others; a name the deployment lacks is a warning", async () => {
    const em = await startTestEmulator();
    const d = await withSecrets(em);
    const r = await runCli(["secrets", "unset", "web", "ALPHA", "GHOST"], { env: cliEnv(em) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("warning: deployment web has no secret GHOST to unset");
    expect(r.stderr).toContain("- secrets.ALPHA: **** (removed)");
    expect(await storedSecrets(em, d.id)).toEqual([{ name: "BRAVO", value: BRAVO }]);
    expect((await em.get(`/v2/deployments/${d.id}`)).json.secret_references).toHaveLength(1);

    const absent = await runCli(["secrets", "unset", "web", "GHOST"], { env: cliEnv(em) });
    expect(absent.code).toBe(0);
    expect(absent.stderr).toContain("nothing to change");
    expect(patches(em)).toBe(1);
  });
});

describe("secrets import", () => {
  it("sets the file's secrets and keeps the others; a bad line is named, never its value", async () => {
    const em = await startTestEmulator();
    const d = await withSecrets(em);
    const cwd = freshDir("secrets");
    writeFileSync(join(cwd, ".env"), `# from the vault\nexport BRAVO=${NEW}\nCHARLIE="two\\nlines"\n`);
    const r = await runCli(["secrets", "import", "web", ".env", "-o", "json"], { env: cliEnv(em), cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(await storedSecrets(em, d.id)).toEqual([
      { name: "ALPHA", value: ALPHA },
      { name: "BRAVO", value: NEW },
      { name: "CHARLIE", value: "two\nlines" },
    ]);

    writeFileSync(join(cwd, "bad.env"), `TOKEN=pa#${NEW}\n`);
    const bad = await runCli(["secrets", "import", "web", "bad.env"], { env: cliEnv(em), cwd });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("bad.env:1: the value of TOKEN holds '#'");
    writeFileSync(join(cwd, "empty-value.env"), "TOKEN= # from vault\n");
    const empty = await runCli(["secrets", "import", "web", "empty-value.env"], { env: cliEnv(em), cwd });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("secret TOKEN (empty-value.env:1) is empty");
    expectNoValues(bad.stderr + empty.stderr);
    expect(patches(em)).toBe(1);
  });

  it("a file that cannot be read, or holds no secrets: exit 2 naming it, nothing sent", async () => {
    const em = await startTestEmulator();
    await withSecrets(em);
    const cwd = freshDir("secrets");
    const missing = await runCli(["secrets", "import", "web", "nope.env"], { env: cliEnv(em), cwd });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.env: cannot read it (no such file)");
    writeFileSync(join(cwd, "comments.env"), "# nothing yet\n");
    const none = await runCli(["secrets", "import", "web", "comments.env"], { env: cliEnv(em), cwd });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("comments.env holds no secrets (NAME=VALUE lines): nothing to change");
    const stdin = await runCli(["secrets", "import", "web", "-"], { env: cliEnv(em), stdin: "" });
    expect(stdin.stderr).toContain("- (stdin) holds no secrets");
    expect(patches(em)).toBe(0);
    expect(existsSync(join(cwd, "-"))).toBe(false);
  });
});
