import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { failure } from "../../test/helpers/failure.js";
import { DEFAULT_HOST, DEFAULT_PORT } from "../emulator/defaults.js";
import { UsageError } from "../errors.js";
import { ConfigError, type ConfigLoadOptions, loadConfigLayers } from "./files.js";
import { LOCAL_BASE_URL } from "./profiles.js";
import { defaultLayer, environmentLayer, requireSet, resolveSettings } from "./settings.js";

interface Setup {
  home: string;
  cwd: string;
  userFile: string;
  write(path: string, text: string, mode?: number): string;
  load(options?: Partial<ConfigLoadOptions>): ReturnType<typeof loadConfigLayers>;
  warnings: string[];
  /** A user file that trusts the project directory: its cpctl.config.mjs may run. */
  trustProject(): void;
}

function setup(): Setup {
  const home = mkdtempSync(join(tmpdir(), "cpctl-files-"));
  const cwd = join(home, "project");
  mkdirSync(cwd);
  const warnings: string[] = [];
  const write = (path: string, text: string, mode = 0o600) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    chmodSync(path, mode);
    return path;
  };
  return {
    home,
    cwd,
    userFile: join(home, ".config", "cpctl", "config.yaml"),
    write,
    warnings,
    trustProject: () => {
      write(join(home, ".config", "cpctl", "config.yaml"), `trustedDirectories: [${JSON.stringify(cwd)}]\n`);
    },
    load: (options = {}) =>
      loadConfigLayers({ cwd, homeDir: home, env: {}, warn: (m) => warnings.push(m), ...options }),
  };
}

async function settingsOf(s: Setup, options: Partial<ConfigLoadOptions> = {}) {
  const env = options.env ?? {};
  const loaded = await s.load(options);
  return resolveSettings(
    [environmentLayer(env), ...loaded.layers, defaultLayer()],
    loaded.profile,
    loaded.profileOrigin,
  );
}

describe("no config file", () => {
  test("gives no layers and no profile", async () => {
    const s = setup();
    const loaded = await s.load();
    expect(loaded).toMatchObject({ layers: [], profile: null, profileOrigin: null });
    expect(loaded.files).toMatchObject({ userPresent: false, projectPath: null, user: null, project: null });
  });

  test("the built-in local profile is the emulator's default address", async () => {
    const s = setup();
    const settings = await settingsOf(s, { profileFlag: "local" });
    expect(settings.baseUrl).toBe(LOCAL_BASE_URL);
    expect(LOCAL_BASE_URL).toBe(`http://${DEFAULT_HOST}:${DEFAULT_PORT}`);
    expect(settings.origin.baseUrl).toBe("built-in profile local");
  });

  test("any other profile is unknown, and the error lists the known ones", async () => {
    const s = setup();
    const error = await failure(s.load({ profileFlag: "prod" }), UsageError);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe("unknown profile 'prod' (from --profile); known profiles: local");
  });
});

describe("file formats", () => {
  const body = { profiles: { prod: { baseUrl: "https://prod.example.com" } } };

  test.each([
    [".cpctlrc", "profiles:\n  prod:\n    baseUrl: https://prod.example.com\n"],
    [".cpctlrc.yaml", "profiles:\n  prod:\n    baseUrl: https://prod.example.com\n"],
    [".cpctlrc.json", JSON.stringify(body)],
    ["cpctl.config.mjs", `export default ${JSON.stringify(body)};\n`],
    ["package.json", JSON.stringify({ name: "app", cpctl: body })],
  ])("a project %s is read", async (name, text) => {
    const s = setup();
    if (name.endsWith(".mjs")) s.trustProject();
    const path = s.write(join(s.cwd, name), text);
    const settings = await settingsOf(s, { profileFlag: "prod" });
    expect(settings.baseUrl).toBe("https://prod.example.com");
    const prefix = name === "package.json" ? "cpctl." : "";
    expect(settings.origin.baseUrl).toBe(`${prefix}profiles.prod.baseUrl in ${path}`);
  });

  test("cpctl.config.mjs: a syntax error is reported as such; a changed file is read again", async () => {
    const s = setup();
    s.trustProject();
    const path = s.write(
      join(s.cwd, "cpctl.config.mjs"),
      "export default { profiles: { a: { output: 'json' } ;\n",
    );
    const error = await failure(s.load(), UsageError);
    // The wording is Node's (under vitest, Vite's): it says the syntax is wrong, not that require() failed.
    expect(error.message).toMatch(
      new RegExp(`^${path}: cannot read this config file: .*(Unexpected token|invalid JS syntax)`),
    );
    s.write(path, "export default { profiles: { a: { output: 'json' } } };\n");
    expect((await settingsOf(s, { profileFlag: "a" })).output).toBe("json");
    s.write(path, "export default { profiles: { a: { output: 'yaml' } } };\n");
    const later = new Date(Date.now() + 5000);
    const { utimesSync } = await import("node:fs");
    utimesSync(path, later, later);
    expect((await settingsOf(s, { profileFlag: "a" })).output).toBe("yaml");
  });

  test("an empty file is an empty config", async () => {
    const s = setup();
    s.write(s.userFile, "");
    expect((await s.load()).layers).toEqual([]);
  });

  test("broken YAML is a usage error naming the file", async () => {
    const s = setup();
    s.write(s.userFile, "profiles:\n  prod: [\n");
    const error = await failure(s.load(), UsageError);
    expect(error.message).toContain(`${s.userFile}: cannot read this config file`);
  });

  test.each([
    ["profiles:\n  prod:\n    apikey: x\n", "profiles.prod.apikey: unknown key; did you mean 'apiKey'?"],
    ["profile:\n  prod: {}\n", "profile: unknown key; did you mean 'profiles'?"],
    [
      "profiles:\n  prod:\n    tenantId: 12345\n",
      "profiles.prod.tenantId: must be a string, not a number (put it in quotes)",
    ],
    ["profiles:\n  prod:\n    confirm: [yes]\n", "profiles.prod.confirm: must be true or false, not a list"],
    ["profiles: [prod]\n", "profiles: must map profile names to settings, not a list"],
    ["profiles:\n  prod: https://x\n", "profiles.prod: must be a mapping of settings"],
    ["defaultProfile: 3\n", "defaultProfile: must be a profile name, not a number"],
    ["- a\n", "must be a mapping with a 'profiles' key, not a list"],
    ["baseUrl: https://x\n", "baseUrl: settings belong to a profile: put baseUrl under profiles.NAME"],
  ])("a badly shaped file is an error naming the file and key: %j", async (text, message) => {
    const s = setup();
    s.write(s.userFile, text);
    const error = await failure(s.load(), UsageError);
    expect(error.message).toContain(`${s.userFile}: `);
    expect(error.message).toContain(message);
  });

  test("a bad value in the profile in use names the file, profile and key", async () => {
    const s = setup();
    s.write(s.userFile, "profiles:\n  prod:\n    output: xml\n  other:\n    tenantId: nope\n");
    const error = await failure(s.load({ profileFlag: "prod" }), UsageError);
    expect(error.message).toBe(
      `${s.userFile}: profiles.prod.output (profile prod): 'xml' is not an output format; use one of table, json, yaml, ndjson, id`,
    );
    // Another profile's bad value does not stand in the way.
    s.write(s.userFile, "profiles:\n  prod:\n    output: json\n  other:\n    tenantId: nope\n");
    await expect(s.load({ profileFlag: "prod" })).resolves.toMatchObject({ profile: "prod" });
  });
});

describe(`\${env:NAME} in values`, () => {
  test("is resolved, and the origin says which variable", async () => {
    const s = setup();
    s.write(
      s.userFile,
      `profiles:\n  prod:\n    baseUrl: https://\${env:HOST}\n    apiKey: \${env:PROD_KEY}\n    confirm: \${env:CONFIRM}\n`,
    );
    const settings = await settingsOf(s, {
      profileFlag: "prod",
      env: { HOST: "h.example.com", PROD_KEY: "k-1", CONFIRM: "true" },
    });
    expect(settings).toMatchObject({ baseUrl: "https://h.example.com", apiKey: "k-1", confirm: true });
    expect(settings.origin.apiKey).toBe(`profiles.prod.apiKey in ${s.userFile} (from \${env:PROD_KEY})`);
  });

  test("an unset variable is no value, and an error naming the file, profile, key and variable where needed", async () => {
    const s = setup();
    s.write(
      s.userFile,
      `profiles:\n  prod:\n    baseUrl: https://h.example.com\n    apiKey: \${env:PROD_KEY}\n`,
    );
    const loaded = await s.load({ profileFlag: "prod" });
    const settings = resolveSettings(loaded.layers, loaded.profile, loaded.profileOrigin);
    expect(settings).toMatchObject({ baseUrl: "https://h.example.com", apiKey: null });
    expect(settings.unset.apiKey).toEqual({
      variable: "PROD_KEY",
      at: `${s.userFile}: profiles.prod.apiKey`,
    });
    requireSet(settings, ["baseUrl"]);
    expect(() => requireSet(settings, ["apiKey"])).toThrow(
      `${s.userFile}: profiles.prod.apiKey (profile prod, chosen by --profile): the environment variable PROD_KEY is not set (used as \${env:PROD_KEY}); export it, or change the file`,
    );
  });

  test("a malformed reference is an error, never sent as text", async () => {
    const s = setup();
    s.write(s.userFile, `profiles:\n  prod:\n    apiKey: \${env:PROD KEY}\n`);
    const error = await failure(s.load({ profileFlag: "prod" }), UsageError);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain(
      `${s.userFile}: profiles.prod.apiKey (profile prod): '\${env:PROD KEY}' is not a valid reference`,
    );
  });

  test("only the profile in use needs its variables", async () => {
    const s = setup();
    s.write(
      s.userFile,
      `profiles:\n  prod:\n    apiKey: \${env:PROD_KEY}\n  dev:\n    baseUrl: http://dev.example.com\n`,
    );
    await expect(s.load({ profileFlag: "dev" })).resolves.toMatchObject({ profile: "dev" });
  });

  test("an empty variable leaves the value unset, so lower layers apply", async () => {
    const s = setup();
    s.write(join(s.cwd, ".cpctlrc.yaml"), `profiles:\n  prod:\n    output: \${env:OUT}\n`);
    s.write(s.userFile, "profiles:\n  prod:\n    output: yaml\n");
    const settings = await settingsOf(s, { profileFlag: "prod", env: { OUT: "" } });
    expect(settings.output).toBe("yaml");
  });
});

describe("precedence", () => {
  function both(s: Setup) {
    s.write(
      s.userFile,
      [
        "defaultProfile: userdef",
        "profiles:",
        "  prod:",
        "    baseUrl: https://user.example.com",
        "    tenantId: 11111111-1111-4111-8111-111111111111",
        "    output: yaml",
        "    confirm: true",
        "  userdef:",
        "    baseUrl: https://userdef.example.com",
        "  projdef:",
        "    baseUrl: https://projdef.example.com",
        "",
      ].join("\n"),
    );
    s.write(join(s.cwd, ".cpctlrc.yaml"), "profiles:\n  prod:\n    baseUrl: https://project.example.com\n");
  }

  test("project beats user per key; keys the project does not set come from the user file", async () => {
    const s = setup();
    both(s);
    const settings = await settingsOf(s, { profileFlag: "prod" });
    expect(settings).toMatchObject({
      baseUrl: "https://project.example.com",
      tenantId: "11111111-1111-4111-8111-111111111111",
      output: "yaml",
      confirm: true,
    });
    expect(settings.origin.baseUrl).toContain(".cpctlrc.yaml");
    expect(settings.origin.tenantId).toContain(s.userFile);
  });

  test("environment beats both files", async () => {
    const s = setup();
    both(s);
    const settings = await settingsOf(s, {
      profileFlag: "prod",
      env: { CPCTL_BASE_URL: "https://env.example.com", CPCTL_OUTPUT: "json" },
    });
    expect(settings).toMatchObject({ baseUrl: "https://env.example.com", output: "json" });
    expect(settings.origin.baseUrl).toBe("environment variable CPCTL_BASE_URL");
  });

  test("a file may override the built-in local profile", async () => {
    const s = setup();
    s.write(s.userFile, `profiles:\n  local:\n    baseUrl: http://127.0.0.1:9999\n    apiKey: \${env:K}\n`);
    const settings = await settingsOf(s, { profileFlag: "local", env: { K: "dev" } });
    expect(settings).toMatchObject({ baseUrl: "http://127.0.0.1:9999", apiKey: "dev" });
  });

  test("profile: --profile > CPCTL_PROFILE > project defaultProfile > user defaultProfile", async () => {
    const s = setup();
    both(s);
    expect((await s.load()).profile).toBe("userdef");
    expect((await s.load()).profileOrigin).toBe(`defaultProfile in the user file ${s.userFile}`);
    s.write(join(s.cwd, ".cpctlrc.yaml"), "defaultProfile: projdef\n");
    expect((await s.load()).profile).toBe("projdef");
    expect((await s.load({ env: { CPCTL_PROFILE: "prod" } })).profile).toBe("prod");
    const chosen = await s.load({ env: { CPCTL_PROFILE: "prod" }, profileFlag: "local" });
    expect(chosen).toMatchObject({ profile: "local", profileOrigin: "--profile" });
  });

  test("an unknown profile from any source is a usage error listing the known ones", async () => {
    const s = setup();
    both(s);
    const fromEnv = await failure(s.load({ env: { CPCTL_PROFILE: "stage" } }), UsageError);
    expect(fromEnv.message).toBe(
      "unknown profile 'stage' (from CPCTL_PROFILE); known profiles: prod, userdef, projdef, local",
    );
    s.write(join(s.cwd, ".cpctlrc.yaml"), "defaultProfile: gone\n");
    const fromFile = await failure(s.load(), UsageError);
    expect(fromFile.message).toContain(
      `unknown profile 'gone' (from defaultProfile in the project file ${join(s.cwd, ".cpctlrc.yaml")})`,
    );
  });
});

describe("the permission warning", () => {
  const literal = "profiles:\n  prod:\n    apiKey: sk-live-123\n";

  test("a literal credential in a file others can read is warned about, once per load", async () => {
    const s = setup();
    s.write(s.userFile, literal, 0o644);
    await s.load();
    expect(s.warnings).toEqual([
      `${s.userFile} holds a literal credential (profiles.prod.apiKey) and can be read by others (mode 0644): run \`chmod 600 ${s.userFile}\`, or write the value as \${env:NAME} and export NAME`,
    ]);
  });

  test("not when the file is 0600, nor when the credential is a reference", async () => {
    const s = setup();
    s.write(s.userFile, literal, 0o600);
    s.write(join(s.cwd, ".cpctlrc.yaml"), `profiles:\n  prod:\n    bearerToken: \${env:TOKEN}\n`, 0o644);
    await s.load();
    expect(s.warnings).toEqual([]);
  });

  test("also for a project file, group-readable included", async () => {
    const s = setup();
    const path = s.write(
      join(s.cwd, ".cpctlrc.json"),
      JSON.stringify({ profiles: { ci: { bearerToken: "tok" } } }),
      0o640,
    );
    await s.load();
    expect(s.warnings).toHaveLength(1);
    expect(s.warnings[0]).toContain(`${path} holds a literal credential (profiles.ci.bearerToken)`);
    expect(s.warnings[0]).toContain(`chmod 600 ${path}`);
  });

  test("in cpctl.config.mjs a value computed from process.env is not literal; one written in the file is", async () => {
    const s = setup();
    s.trustProject();
    const path = join(s.cwd, "cpctl.config.mjs");
    s.write(path, "export default { profiles: { ci: { apiKey: String(40 + 2) } } };\n", 0o644);
    await s.load();
    expect(s.warnings).toEqual([]);
    const s2 = setup();
    s2.trustProject();
    s2.write(
      join(s2.cwd, "cpctl.config.mjs"),
      'export default { profiles: { ci: { apiKey: "sk-in-file" } } };\n',
      0o644,
    );
    await s2.load();
    expect(s2.warnings).toHaveLength(1);
  });
});

describe("the search and the parsers", () => {
  test("an empty project file is passed over: the search goes on up to the next one", async () => {
    const s = setup();
    s.write(join(s.home, ".cpctlrc.yaml"), "profiles:\n  up:\n    output: json\n");
    s.write(join(s.cwd, ".cpctlrc"), "   \n");
    const loaded = await s.load({ profileFlag: "up" });
    expect(loaded.files.projectPath).toBe(join(s.home, ".cpctlrc.yaml"));
    expect(loaded.profile).toBe("up");
  });

  test("the user file is never taken for a project file", async () => {
    const s = setup();
    s.write(s.userFile, "profiles:\n  mine:\n    output: yaml\n");
    const loaded = await s.load({ profileFlag: "mine" });
    expect(loaded.files.projectPath).toBeNull();
    expect(loaded.files.user?.path).toBe(s.userFile);
  });

  test.each([
    [
      ".cpctlrc.yaml",
      "profiles:\n  prod: [\n    apiKey: sk-live-secret\n",
      "not valid YAML (line 4, column 1: ",
    ],
    [
      ".cpctlrc",
      "a: 1\n---\napiKey: sk-live-secret\n",
      "not valid YAML (line 2, column 1: more than one document)",
    ],
    [
      ".cpctlrc.json",
      '{"profiles": {"prod": {apiKey: "sk-live-secret"}}}',
      "not valid JSON (line 1, column 24: ",
    ],
  ])("a syntax error in %s says where, and quotes nothing of the file", async (name, text, message) => {
    const s = setup();
    const path = s.write(join(s.cwd, name), text);
    const error = await failure(s.load(), UsageError);
    expect(error.message).toContain(`${path}: cannot read this config file: ${message}`);
    expect(error.message).not.toContain("sk-live");
  });

  test("no config file anywhere: nothing found, nothing read", async () => {
    const s = setup();
    const loaded = await s.load();
    expect(loaded.files).toMatchObject({ user: null, project: null, projectPath: null, candidates: [] });
  });
});
