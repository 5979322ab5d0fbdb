// `cpctl config show|list|get|set|path`: output in table (off and on a terminal) and JSON,
// credential masking, and what `config set` writes and refuses.
import { existsSync, readFileSync, statSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { parse as parseYaml } from "yaml";
import { runCli } from "../helpers/run-cli.js";
import { type Sandbox, sandbox, TENANT_A } from "./fixtures.js";

const USER = [
  "defaultProfile: prod",
  "profiles:",
  "  prod:",
  "    baseUrl: https://api.example.com",
  "    apiKey: sk-live-secret-1",
  "    confirm: true",
  "  dev:",
  `    baseUrl: \${env:DEV_URL}`,
  `    bearerToken: \${env:DEV_TOKEN}`,
  "",
].join("\n");

function run(s: Sandbox, args: string[], options: { env?: Record<string, string>; tty?: boolean } = {}) {
  return runCli(args, { homeDir: s.home, cwd: s.cwd, env: options.env ?? {}, tty: options.tty });
}

function setup(): Sandbox {
  const s = sandbox();
  s.user(USER);
  s.project(".cpctlrc.yaml", `profiles:\n  prod:\n    tenantId: ${TENANT_A}\n`);
  return s;
}

describe("config show", () => {
  test("table off a terminal: KEY, VALUE, SOURCE tab-separated; credentials masked", async () => {
    const s = setup();
    const r = await run(s, ["config", "show"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      [
        `profile\tprod\tdefaultProfile in the user file ${s.userFile}`,
        `baseUrl\thttps://api.example.com\tprofiles.prod.baseUrl in ${s.userFile}`,
        `apiKey\t****\tprofiles.prod.apiKey in ${s.userFile}`,
        "bearerToken\t-\t-",
        `tenantId\t${TENANT_A}\tprofiles.prod.tenantId in ${s.cwd}/.cpctlrc.yaml`,
        "tenantHeader\tX-Tenant-Id\tbuilt-in default",
        "output\ttable\tbuilt-in default",
        `confirm\ttrue\tprofiles.prod.confirm in ${s.userFile}`,
        "caFile\t-\t-",
        "deployment\t-\t-",
        "",
      ].join("\n"),
    );
    expect(r.stdout).not.toContain("sk-live-secret-1");
  });

  test("table on a terminal has a header", async () => {
    const s = setup();
    const r = await run(s, ["config", "show"], { tty: true, env: { NO_COLOR: "1" } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^KEY\s+VALUE\s+SOURCE$/m);
    expect(r.stdout).toContain("****");
  });

  test("json: each key with its value and source; --show-secrets shows credentials", async () => {
    const s = setup();
    const masked = JSON.parse((await run(s, ["config", "show", "-o", "json"])).stdout);
    expect(Object.keys(masked)).toEqual([
      "profile",
      "baseUrl",
      "apiKey",
      "bearerToken",
      "tenantId",
      "tenantHeader",
      "output",
      "confirm",
      "caFile",
      "deployment",
    ]);
    expect(masked.apiKey).toEqual({ value: "****", source: `profiles.prod.apiKey in ${s.userFile}` });
    expect(masked.bearerToken).toEqual({ value: null, source: null });
    expect(masked.confirm).toEqual({ value: true, source: `profiles.prod.confirm in ${s.userFile}` });
    const shown = JSON.parse((await run(s, ["config", "show", "--json", "--show-secrets"])).stdout);
    expect(shown.apiKey.value).toBe("sk-live-secret-1");
  });

  test(`a credential from \${env:} names the variable as its source, and is masked`, async () => {
    const s = setup();
    const env = { DEV_URL: "http://dev.example.com", DEV_TOKEN: "tok-123456" };
    const r = await run(s, ["config", "show", "--profile", "dev", "-o", "yaml"], { env });
    const shown = parseYaml(r.stdout);
    expect(shown.bearerToken).toEqual({
      value: "****",
      source: `profiles.dev.bearerToken in ${s.userFile} (from \${env:DEV_TOKEN})`,
    });
    expect(shown.baseUrl.value).toBe("http://dev.example.com");
  });
});

describe("config get", () => {
  test("prints the raw value alone; credentials masked unless --show-secrets", async () => {
    const s = setup();
    expect((await run(s, ["config", "get", "baseUrl"])).stdout).toBe("https://api.example.com\n");
    expect((await run(s, ["config", "get", "confirm"])).stdout).toBe("true\n");
    expect((await run(s, ["config", "get", "apiKey"])).stdout).toBe("****\n");
    expect((await run(s, ["config", "get", "apiKey", "--show-secrets"])).stdout).toBe("sk-live-secret-1\n");
    expect((await run(s, ["config", "get", "profile"])).stdout).toBe("prod\n");
  });

  test("--profile picks the profile; the environment still applies", async () => {
    const s = setup();
    const env = { DEV_URL: "http://dev.example.com", DEV_TOKEN: "t" };
    expect((await run(s, ["config", "get", "baseUrl", "--profile", "dev"], { env })).stdout).toBe(
      "http://dev.example.com\n",
    );
    const fromEnv = { ...env, CPCTL_BASE_URL: "https://env.example.com" };
    expect((await run(s, ["config", "get", "baseUrl", "--profile", "dev"], { env: fromEnv })).stdout).toBe(
      "https://env.example.com\n",
    );
  });

  test("json: key, value and source", async () => {
    const s = setup();
    const r = await run(s, ["config", "get", "tenantId", "--json"]);
    expect(JSON.parse(r.stdout)).toEqual({
      key: "tenantId",
      value: TENANT_A,
      source: `profiles.prod.tenantId in ${s.cwd}/.cpctlrc.yaml`,
    });
    const key = await run(s, ["config", "get", "apiKey", "--json"]);
    expect(JSON.parse(key.stdout).value).toBe("****");
  });

  test("an unset key exits 1 with nothing on stdout; an unknown key is a usage error", async () => {
    const s = setup();
    const unset = await run(s, ["config", "get", "bearerToken"]);
    expect(unset).toMatchObject({ code: 1, stdout: "" });
    expect(unset.stderr).toBe(
      `error: bearerToken is not set (profile prod, chosen by defaultProfile in the user file ${s.userFile}); \`cpctl config show\` shows every setting\n`,
    );
    const unknown = await run(s, ["config", "get", "base-url"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown key 'base-url'; did you mean 'baseUrl'?");
  });
});

describe("config list", () => {
  test("table: selected marker, name, base URL, default, confirm, sources; the built-in local profile", async () => {
    const s = setup();
    const r = await run(s, ["config", "list"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `*\tprod\thttps://api.example.com\tyes\tyes\t${s.cwd}/.cpctlrc.yaml, ${s.userFile}`,
        `\tdev\t\${env:DEV_URL}\t\t\t${s.userFile}`,
        "\tlocal\thttp://127.0.0.1:8124\t\t\tbuilt-in",
        "",
      ].join("\n"),
    );
  });

  test("json: one object per profile", async () => {
    const s = setup();
    const r = await run(s, ["config", "list", "-o", "json", "--profile", "dev"], {
      env: { DEV_URL: "http://dev.example.com", DEV_TOKEN: "t" },
    });
    expect(JSON.parse(r.stdout)).toEqual([
      {
        name: "prod",
        selected: false,
        default: true,
        baseUrl: "https://api.example.com",
        confirm: true,
        sources: [`${s.cwd}/.cpctlrc.yaml`, s.userFile],
      },
      {
        name: "dev",
        selected: true,
        default: false,
        baseUrl: "http://dev.example.com",
        confirm: false,
        sources: [s.userFile],
      },
      {
        name: "local",
        selected: false,
        default: false,
        baseUrl: "http://127.0.0.1:8124",
        confirm: false,
        sources: ["built-in"],
      },
    ]);
  });

  test("with no config file: only local", async () => {
    const s = sandbox();
    const r = await run(s, ["config", "list", "--json"]);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        name: "local",
        selected: false,
        default: false,
        baseUrl: "http://127.0.0.1:8124",
        confirm: false,
        sources: ["built-in"],
      },
    ]);
  });

  test("still lists when the chosen profile is unknown or cannot resolve, with a warning", async () => {
    const s = setup();
    const unknown = await run(s, ["config", "list", "-o", "id"], { env: { CPCTL_PROFILE: "stage" } });
    expect(unknown.code).toBe(0);
    expect(unknown.stdout).toBe("prod\ndev\nlocal\n");
    expect(unknown.stderr).toContain("warning: unknown profile 'stage' (from CPCTL_PROFILE)");
    // A profile whose ${env:...} variable is unset resolves (that setting has no value): no warning.
    const unset = await run(s, ["config", "list", "-o", "id", "--profile", "dev"]);
    expect(unset).toMatchObject({ code: 0, stdout: "prod\ndev\nlocal\n", stderr: "" });
  });
});

describe("config path", () => {
  test("table and json: the user file and the project file, present or absent", async () => {
    const s = sandbox();
    const none = await run(s, ["config", "path"]);
    expect(none.stdout).toBe(`user\t${s.userFile}\tabsent\nproject\t-\tabsent\n`);
    expect(JSON.parse((await run(s, ["config", "path", "--json"])).stdout)).toEqual({
      user: { path: s.userFile, present: false },
      project: { path: null, present: false },
    });
    s.user("profiles: {}\n");
    const project = s.project(".cpctlrc.json", "{}");
    expect((await run(s, ["config", "path"])).stdout).toBe(
      `user\t${s.userFile}\tpresent\nproject\t${project}\tpresent\n`,
    );
    expect(JSON.parse((await run(s, ["config", "path", "-o", "json"])).stdout).project).toEqual({
      path: project,
      present: true,
    });
  });

  test("answers even when a file is broken, and says what is wrong", async () => {
    const s = sandbox();
    s.user("profiles:\n  prod: [\n");
    const r = await run(s, ["config", "path"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`user\t${s.userFile}\tpresent`);
    expect(r.stderr).toContain(`warning: ${s.userFile}: cannot read this config file`);
  });
});

describe("config set", () => {
  test("creates the user file 0600 (and its directory), then keeps other content", async () => {
    const s = sandbox();
    const r = await run(s, ["config", "set", "baseUrl", "https://api.example.com", "--profile", "prod"]);
    expect(r).toMatchObject({ code: 0, stdout: "" });
    expect(r.stderr).toBe(
      `set profiles.prod.baseUrl = https://api.example.com in ${s.userFile} (created, mode 0600)\n`,
    );
    expect(statSync(s.userFile).mode & 0o777).toBe(0o600);
    expect(await run(s, ["config", "set", "confirm", "yes", "--profile", "prod"])).toMatchObject({ code: 0 });
    expect(await run(s, ["config", "set", "apiKey", `\${env:PROD_KEY}`, "--profile", "prod"])).toMatchObject({
      code: 0,
      stderr: expect.not.stringContaining("warning"),
    });
    expect(await run(s, ["config", "set", "output", "json", "--profile", "dev"])).toMatchObject({ code: 0 });
    expect(readFileSync(s.userFile, "utf8")).toBe(
      `profiles:\n  prod:\n    baseUrl: https://api.example.com\n    confirm: true\n    apiKey: \${env:PROD_KEY}\n  dev:\n    output: json\n`,
    );
    // What was set is what is read.
    expect(
      (await run(s, ["config", "get", "confirm", "--profile", "prod"], { env: { PROD_KEY: "k" } })).stdout,
    ).toBe("true\n");
  });

  test("without --profile: CPCTL_PROFILE, then defaultProfile; with none, an error", async () => {
    const s = sandbox();
    s.user("defaultProfile: main\nprofiles:\n  main: {}\n");
    await run(s, ["config", "set", "output", "yaml"]);
    await run(s, ["config", "set", "output", "id"], { env: { CPCTL_PROFILE: "other" } });
    expect(parseYaml(readFileSync(s.userFile, "utf8")).profiles).toEqual({
      main: { output: "yaml" },
      other: { output: "id" },
    });
    const none = sandbox();
    const r = await run(none, ["config", "set", "output", "yaml"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("which profile? give --profile NAME");
    expect(existsSync(none.userFile)).toBe(false);
  });

  test("json prints what was written", async () => {
    const s = sandbox();
    const r = await run(s, ["config", "set", "tenantId", TENANT_A, "--profile", "p", "--json"]);
    expect(JSON.parse(r.stdout)).toEqual({
      file: s.userFile,
      profile: "p",
      key: "tenantId",
      value: TENANT_A,
      created: true,
    });
  });

  test.each([
    [
      ["colour", "red"],
      "unknown key 'colour'; a profile holds baseUrl, apiKey, bearerToken, tenantId, tenantHeader, output, confirm",
    ],
    [["apikey", "x"], "unknown key 'apikey'; did you mean 'apiKey'?"],
    [["output", "xml"], "output: 'xml' is not an output format; use one of table, json, yaml, ndjson, id"],
    [["tenantId", "acme"], "tenantId: 'acme' is not a tenant UUID"],
    [["baseUrl", "api.example.com"], "baseUrl: 'api.example.com' is not a URL"],
    [["baseUrl", "ftp://files.example.com"], "must be an http:// or https:// address"],
    [["confirm", "maybe"], "confirm: 'maybe' is not true or false"],
    [["tenantHeader", "X Tenant"], "is not an HTTP header name"],
    [["output", ""], "output: the value is empty"],
  ])("refuses %j with a usage error and writes nothing", async (args, message) => {
    const s = sandbox();
    const r = await run(s, ["config", "set", ...args, "--profile", "p"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(existsSync(s.userFile)).toBe(false);
  });

  test("refuses to set defaultProfile, and says what does: config use", async () => {
    const s = sandbox();
    const r = await run(s, ["config", "set", "defaultProfile", "prod"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "config set does not change the default profile: `cpctl config use NAME` does",
    );
    expect(r.stderr).toContain("export CPCTL_PROFILE=NAME");
    expect(existsSync(s.userFile)).toBe(false);
  });

  test(`a literal credential is stored, masked in the message, with a warning suggesting \${env:NAME}`, async () => {
    const s = sandbox();
    const r = await run(s, ["config", "set", "apiKey", "sk-live-987", "--profile", "prod"]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("sk-live-987");
    expect(r.stderr).toContain(`set profiles.prod.apiKey = **** in ${s.userFile}`);
    expect(r.stderr).toContain(
      `warning: ${s.userFile} now holds a literal apiKey: anyone who can read the file can use it. Prefer a reference: cpctl config set apiKey '\${env:CPCTL_PROD_API_KEY}' --profile prod, and export CPCTL_PROD_API_KEY.`,
    );
    expect(r.stderr).not.toContain("chmod");
    expect(parseYaml(readFileSync(s.userFile, "utf8")).profiles.prod.apiKey).toBe("sk-live-987");
  });

  test("works when the profile in use cannot resolve: fixing a bad value is what it is for", async () => {
    const s = sandbox();
    s.user("defaultProfile: prod\nprofiles:\n  prod:\n    tenantId: not-a-uuid\n");
    const r = await run(s, ["config", "set", "tenantId", TENANT_A]);
    expect(r.code).toBe(0);
    expect((await run(s, ["config", "get", "tenantId"])).stdout).toBe(`${TENANT_A}\n`);
  });

  test("refuses to rewrite a broken file", async () => {
    const s = sandbox();
    s.user("profiles:\n  prod: [\n");
    const r = await run(s, ["config", "set", "output", "json", "--profile", "prod"]);
    expect(r.code).toBe(2);
    expect(readFileSync(s.userFile, "utf8")).toBe("profiles:\n  prod: [\n");
  });
});

describe("the permission warning through the CLI", () => {
  test("0644 with a literal credential warns once per run, naming the file and chmod 600", async () => {
    const s = sandbox();
    s.user("defaultProfile: prod\nprofiles:\n  prod:\n    apiKey: sk-abc\n", 0o644);
    const r = await run(s, ["config", "show"]);
    expect(r.code).toBe(0);
    const warnings = r.stderr.split("\n").filter((line) => line.startsWith("warning:"));
    expect(warnings).toEqual([
      `warning: ${s.userFile} holds a literal credential (profiles.prod.apiKey) and can be read by others (mode 0644): run \`chmod 600 ${s.userFile}\`, or write the value as \${env:NAME} and export NAME`,
    ]);
  });

  test(`0600, or a \${env:} reference in a 0644 file, does not warn`, async () => {
    const a = sandbox();
    a.user("defaultProfile: prod\nprofiles:\n  prod:\n    apiKey: sk-abc\n", 0o600);
    expect((await run(a, ["config", "show"])).stderr).toBe("");
    const b = sandbox();
    b.user(`defaultProfile: prod\nprofiles:\n  prod:\n    apiKey: \${env:K}\n`, 0o644);
    expect((await run(b, ["config", "show"], { env: { K: "sk-abc" } })).stderr).toBe("");
  });

  test("a profile's credentials never reach an error message", async () => {
    const s = sandbox();
    s.user(
      "defaultProfile: prod\nprofiles:\n  prod:\n    baseUrl: http://127.0.0.1:9\n    apiKey: sk-never-shown\n",
    );
    const r = await run(s, ["deploy", "list", "--debug", "--request-timeout", "2s"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toContain("sk-never-shown");
  });
});

describe("the built-in local profile", () => {
  test("points at the emulator's default address with a placeholder key, so it works with no setup", async () => {
    const s = sandbox();
    const r = await run(s, ["config", "show", "--profile", "local", "--show-secrets", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.stringify(JSON.parse(r.stdout));
    expect(shown).toContain("http://127.0.0.1:8124");
    expect(shown).toContain("local-emulator");
    expect(shown).toContain("built-in profile local");
  });
});
