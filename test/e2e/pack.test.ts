// The package as npm ships it: `npm pack`, installed into an empty project offline and with
// an EMPTY npm cache, then `npx cpctl --version` from there. The empty cache is the point: a
// runtime dependency that npm would have to fetch makes the install fail here, where a warm
// ~/.npm would hide it. The build bundles every dependency, so there should be none. From the
// same install, a user's project imports `cpctl/emulator` in a node:test file and type-checks
// a file that uses it, with the declarations the package ships alone.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  version: string;
  bin: { cpctl: string };
  dependencies?: Record<string, string>;
};

let work = "";
let npmEnv: Record<string, string | undefined> = {};

interface Installed {
  /** `npm pack --json`'s record of the tarball. */
  info: { filename: string; files: { path: string }[] };
  /** The project the tarball was installed into. */
  project: string;
  install: { exitCode?: number; stderr: string };
}

let installing: Promise<Installed> | null = null;

/** Packs the package and installs the tarball into an empty project, once for the tests below. */
function packedAndInstalled(): Promise<Installed> {
  installing ??= (async () => {
    // --ignore-scripts: `npm test` has just built dist/ (pretest); `prepack` would rebuild it
    // while the other end-to-end tests are running the binary.
    const packed = await execa(
      "npm",
      ["pack", "--ignore-scripts", "--json", "--pack-destination", join(work, "out")],
      { cwd: root, env: npmEnv, timeout: 60_000 },
    );
    const [info] = JSON.parse(packed.stdout) as Installed["info"][];
    const project = join(work, "project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "cpctl-pack-test", private: true }));
    const install = await execa(
      "npm",
      ["install", "--offline", "--no-audit", "--no-fund", join(work, "out", info!.filename)],
      { cwd: project, env: npmEnv, reject: false, timeout: 60_000 },
    );
    return { info: info!, project, install };
  })();
  return installing;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "cpctl-pack-test-"));
  mkdirSync(join(work, "cache"));
  mkdirSync(join(work, "out"));
  npmEnv = {
    ...process.env,
    npm_config_cache: join(work, "cache"),
    npm_config_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    npm_config_loglevel: "error",
  };
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the packed package", () => {
  it("`npm publish --dry-run` has nothing to correct or warn about", async () => {
    const publish = await execa("npm", ["publish", "--dry-run", "--ignore-scripts"], {
      cwd: root,
      env: { ...npmEnv, npm_config_loglevel: "warn" },
      reject: false,
      timeout: 60_000,
    });
    expect(publish.exitCode, publish.stderr).toBe(0);
    expect(publish.stdout + publish.stderr).toContain(`+ ${pkg.name}@${pkg.version}`);
    // Everything npm would say about the package (a field it corrects, a file it drops). Not
    // the machine's own npm settings, nor the log-in a dry run does not need.
    const warnings = publish.stderr
      .split("\n")
      .filter((line) => /^npm (warn|error)/.test(line))
      .filter((line) => !/Unknown (user|global|project|env) config|requires you to be logged in/.test(line));
    expect(warnings).toEqual([]);
  }, 90_000);

  it("installs offline with nothing to fetch, and `npx cpctl --version` runs from the install", async () => {
    const { info, project, install } = await packedAndInstalled();
    const files = info.files.map((f) => f.path);
    expect(files).toContain(pkg.bin.cpctl);
    // dist/ as shipped: what the build writes (its chunks included), cpctl/emulator (one module
    // and the declarations of its types), and the notices.
    const built = readdirSync(join(root, "dist"), { recursive: true, encoding: "utf8" })
      .filter((name) => /\.(js|mjs|d\.mts)$/.test(name))
      .map((name) => `dist/${name}`);
    expect(built).toContain("dist/cli.js");
    expect(built).toEqual(
      expect.arrayContaining([
        "dist/emulator/index.d.mts",
        "dist/emulator/index.mjs",
        "dist/emulator/model/emulator-controls.d.mts",
        "dist/emulator/model/enums.d.mts",
      ]),
    );
    expect(files.filter((f) => f.startsWith("dist/")).sort()).toEqual(
      [...built, "dist/THIRD-PARTY-NOTICES.txt"].sort(),
    );
    // The licence, and the bundled libraries' (test/e2e/licence.test.ts checks what they say).
    expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json"]));
    expect(files.filter((f) => f.startsWith("src/") || f.startsWith("test/"))).toEqual([]);
    // Source maps are for development: in the package they were most of its size.
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);

    // publint, on the tarball itself: what the registry would get.
    const lint = await execa(
      join(root, "node_modules", ".bin", "publint"),
      ["run", join(work, "out", info.filename), "--strict"],
      { cwd: root, env: npmEnv, reject: false, timeout: 60_000 },
    );
    expect(lint.exitCode, lint.stdout + lint.stderr).toBe(0);
    expect(lint.stdout).toContain("All good!");

    const runtimeDeps = Object.keys(pkg.dependencies ?? {});
    expect(
      install.exitCode,
      `npm install of the tarball failed offline with an empty cache, so it has something to fetch. ` +
        `package.json "dependencies": ${runtimeDeps.join(", ") || "none"}; the bundle already contains ` +
        `them, so they belong in "devDependencies".\n${install.stderr}`,
    ).toBe(0);
    const installed = readdirSync(join(project, "node_modules")).filter((name) => !name.startsWith("."));
    expect(installed).toEqual([pkg.name]);

    const version = await execa("npx", ["--offline", "cpctl", "--version"], {
      cwd: project,
      env: npmEnv,
      reject: false,
      timeout: 30_000,
    });
    expect(version.exitCode, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(pkg.version);

    // The installed command (node_modules/.bin/cpctl, a link to bin/cpctl.cjs): the help, as
    // the repository's bin prints it, and a command that loads the bundle's chunks.
    const cpctlBin = join(project, "node_modules", ".bin", "cpctl");
    const help = await execa(cpctlBin, ["--help"], { cwd: project, reject: false, stripFinalNewline: false });
    const repoHelp = await execa(process.execPath, [join(root, pkg.bin.cpctl), "--help"], {
      cwd: project,
      stripFinalNewline: false,
    });
    expect(help.stdout).toBe(repoHelp.stdout);
    const schema = await execa(cpctlBin, ["schema"], { cwd: project, reject: false });
    expect(schema.exitCode, schema.stderr).toBe(0);
    expect(JSON.parse(schema.stdout)).toHaveProperty("properties.name");

    // A cpctl.config.mjs, imported from the installed bundle.
    const configHome = join(work, "xdg");
    mkdirSync(join(configHome, "cpctl"), { recursive: true });
    writeFileSync(
      join(configHome, "cpctl", "config.yaml"),
      `trustedDirectories: [${JSON.stringify(project)}]\n`,
    );
    writeFileSync(
      join(project, "cpctl.config.mjs"),
      'export default { profiles: { prod: { baseUrl: "https://prod.example.com" } } };\n',
    );
    const config = await execa(cpctlBin, ["config", "get", "baseUrl", "--profile", "prod"], {
      cwd: project,
      env: { XDG_CONFIG_HOME: configHome },
      reject: false,
    });
    expect(config.exitCode, config.stderr).toBe(0);
    expect(config.stdout).toBe("https://prod.example.com");
  }, 150_000);

  it("cpctl/emulator: a node:test file imports it from the install, and its types stand alone", async () => {
    const installed = await packedAndInstalled();
    expect(installed.install.exitCode, installed.install.stderr).toBe(0);
    // A project of its own, with the install's node_modules: not the one the test above gave
    // a cpctl.config.mjs.
    const project = join(work, "emulator-user");
    mkdirSync(project);
    symlinkSync(join(installed.project, "node_modules"), join(project, "node_modules"));

    // A user's test: the emulator, cpctl's own bin against it, a control.
    writeFileSync(
      join(project, "deploy.test.mjs"),
      `import { execFile } from "node:child_process";
import { test } from "node:test";
import assert from "node:assert/strict";
import { promisify } from "node:util";
import { startEmulator } from "cpctl/emulator";

test("a deploy script against the emulator", async () => {
  const emulator = await startEmulator();
  try {
    const env = { PATH: process.env.PATH, HOME: import.meta.dirname, CPCTL_BASE_URL: emulator.url, CPCTL_API_KEY: "ci-key" };
    const cpctl = (...args) => promisify(execFile)("node_modules/.bin/cpctl", [...args, "-o", "json"], { env });
    const created = JSON.parse((await cpctl("deploy", "create", "--name", "agent", "--source",
      "external_container", "--image-uri", "ghcr.io/acme/agent:1.0", "--wait")).stdout);
    assert.equal(created.active_revision_id, created.latest_revision_id);
    const rule = await emulator.controls.failNext({ stage: "DEPLOYING", deployment: created.id });
    assert.equal(rule.deployment_id, created.id);
    assert.equal((await emulator.controls.clock.advance("1m")).offset_ms, 60000);
  } finally {
    await emulator.close();
  }
});
`,
    );
    const run = await execa(process.execPath, ["--test", "deploy.test.mjs"], { cwd: project, reject: false });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^# pass 1$/m);

    // Its types, as a TypeScript project with no @types/node and no zod finds them, under both
    // resolutions users have: a wrong type is an error, and were the types \`any\` (a
    // declaration that does not resolve), the @ts-expect-error lines would be errors instead.
    writeFileSync(
      join(project, "check.mts"),
      `import { type Emulator, type FailRule, type StartEmulatorOptions, startEmulator } from "cpctl/emulator";
const options: StartEmulatorOptions = { stageMs: 0, clock: "manual", apiKeys: ["ci-key"] };
const emulator: Emulator = await startEmulator(options);
const url: string = emulator.url;
const rule: FailRule = await emulator.controls.failNext({ stage: "BUILDING", message: "npm ERR!" });
const later: number = (await emulator.controls.clock.advance("10m")).now_ms;
const state: "failing" | "ok" = (await emulator.controls.health("id", "failing", { revision: "r" })).state;
// @ts-expect-error: not a stage
await emulator.controls.failNext({ stage: "BAKING" });
// @ts-expect-error: the clock is "real" or "manual"
await startEmulator({ clock: "fast" });
// @ts-expect-error: url is a string
const port: number = emulator.url;
await emulator.controls.reset();
await emulator.close();
export { later, port, rule, state, url };
`,
    );
    const tsc = join(root, "node_modules", ".bin", "tsc");
    const resolutions = [
      { module: "node16", moduleResolution: "node16" },
      { module: "preserve", moduleResolution: "bundler" },
    ];
    const checks = await Promise.all(
      resolutions.map((resolution) => {
        const config = join(project, `tsconfig.${resolution.moduleResolution}.json`);
        // The declarations of cpctl are checked (no skipLibCheck), not TypeScript's own: faster.
        const compilerOptions = {
          ...resolution,
          target: "es2022",
          lib: ["es2022"],
          types: [],
          strict: true,
          noEmit: true,
          skipDefaultLibCheck: true,
        };
        writeFileSync(config, JSON.stringify({ compilerOptions, files: ["check.mts"] }));
        return execa(tsc, ["-p", config], { cwd: project, reject: false, timeout: 60_000 });
      }),
    );
    for (const [i, check] of checks.entries()) {
      expect(check.exitCode, `${JSON.stringify(resolutions[i])}:\n${check.stdout}${check.stderr}`).toBe(0);
    }
  }, 150_000);
});
