// bin/cpctl.cjs, the command package.json names, as users run it (the build is made by the
// global setup): its one answer without the bundle (--version), the help commander renders,
// and what the common commands load from dist/ and from Node: a command loads the chunks it
// needs and no library it does not use (docs/performance.md). What is loaded, not how long it
// takes: timings are for `npm run bench`.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { type SpawnedEmulator, spawnEmulator } from "../helpers/spawn-emulator.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(root, "bin", "cpctl.cjs");
const dist = join(root, "dist");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  version: string;
  bin: Record<string, string>;
};
const ptyProxy = join(root, "test", "terminal", "helpers", "pty-proxy.py");

const work = mkdtempSync(join(tmpdir(), "cpctl-startup-test-"));
let dirs = 0;
const freshDir = (label: string) => {
  const dir = join(work, `${label}-${++dirs}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

/** A deployment file `deploy create --dry-run -f` accepts. */
const deploymentFile = join(work, "deployment.json");
writeFileSync(
  deploymentFile,
  JSON.stringify({
    name: "startup-test",
    source: "external_container",
    source_config: { resource_spec: { min_scale: 1, cpu: 1, memory_mb: 1024 } },
    source_revision_config: { image_uri: "ghcr.io/acme/agent:1.0" },
    secrets: [{ name: "TOKEN", value: "${env:STARTUP_TOKEN}" }],
  }),
);
const dryRun = ["deploy", "create", "--dry-run", "-f", deploymentFile];

// What a run loads: every ES module file, recorded by a module hook (node:module register;
// its own machinery runs on a thread of its own), and, at exit, the builtins the process
// loaded and how many functions were made from text at run time (new Function: code compiled
// anew in every process).
const hooks = join(work, "hooks.mjs");
writeFileSync(
  hooks,
  `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  if (url.startsWith("file:")) appendFileSync(process.env.LOADS_OUT + ".files", url + "\\n");
  return next(url, context);
}\n`,
);
const register = join(work, "register.mjs");
writeFileSync(
  register,
  `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
);
const atExit = join(work, "at-exit.cjs");
writeFileSync(
  atExit,
  `let compiled = 0;
globalThis.Function = new Proxy(Function, { construct(target, args) { compiled++; return Reflect.construct(target, args); } });
process.on("exit", () => require("node:fs").writeFileSync(process.env.LOADS_OUT, JSON.stringify({
  builtins: process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13)),
  compiled,
})));\n`,
);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** node [nodeArgs] SCRIPT args, with only the environment given (and PATH), stdout a pipe. */
async function node(
  script: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; nodeArgs?: string[] } = {},
): Promise<Run> {
  const result = await execa(process.execPath, [...(options.nodeArgs ?? []), script, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: freshDir("home"), ...options.env },
    extendEnv: false,
    cwd: options.cwd ?? freshDir("cwd"),
    reject: false,
    stripFinalNewline: false,
    timeout: 20_000,
  });
  return { code: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/**
 * What a run of bin/cpctl.cjs loaded: the dist/ files, the sources their source maps name,
 * and Node's builtins (those the module hook itself loads, stream and worker_threads among
 * them, are not looked at by these tests).
 */
async function loadsOf(args: string[], env: Record<string, string> = {}, cwd?: string, code = 0) {
  const out = join(freshDir("loads"), "loads.json");
  const run = await node(bin, args, {
    env: { ...env, LOADS_OUT: out },
    nodeArgs: ["--import", pathToFileURL(register).href, "--require", atExit],
    cwd,
  });
  expect(run.code, run.stderr).toBe(code);
  const { builtins, compiled } = JSON.parse(readFileSync(out, "utf8")) as {
    builtins: string[];
    compiled: number;
  };
  const distFiles = [
    ...new Set(
      readFileSync(`${out}.files`, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((url) => fileURLToPath(url))
        .filter((file) => file.startsWith(dist)),
    ),
  ];
  const sources = distFiles.flatMap(sourcesOf);
  return { run, distFiles, sources, builtins, compiled };
}

/** The files a dist/ file was built from (its source map's sources). */
function sourcesOf(file: string): string[] {
  return (JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] }).sources;
}

/** Every .js file of dist/. */
function distJs(): string[] {
  return readdirSync(dist, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".js"))
    .map((name) => join(dist, name));
}

/** Creates an internal_source deployment named `name` through bin/cpctl.cjs; its ID. */
async function createUploadTarget(name: string, env: Record<string, string>): Promise<string> {
  const created = await node(
    bin,
    [
      ...["deploy", "create", "--name", name, "--source", "internal_source"],
      ...["--agent-config-path", "agent.json", "-o", "id"],
    ],
    { env },
  );
  expect(created.code, created.stderr).toBe(0);
  return created.stdout.trim();
}

/** `cpctl --help` rendered by commander from the sources, in this process, as on a pipe. */
async function helpFromSources(): Promise<string> {
  // Commander takes the width from process.stdout (80 columns when it is not a terminal).
  const saved = Object.getOwnPropertyDescriptor(process.stdout, "isTTY");
  Object.defineProperty(process.stdout, "isTTY", { value: false, configurable: true, writable: true });
  try {
    const result = await runCli(["--help"]);
    expect(result.code).toBe(0);
    return result.stdout;
  } finally {
    if (saved) Object.defineProperty(process.stdout, "isTTY", saved);
    else delete (process.stdout as { isTTY?: boolean }).isTTY;
  }
}

function onTerminal(columns: number, args: string[]): string {
  const result = spawnSync(
    "python3",
    [ptyProxy, String(columns), "40", "--", process.execPath, bin, ...args],
    {
      env: { PATH: process.env.PATH ?? "", HOME: freshDir("home") },
      encoding: "utf8",
      input: "",
      timeout: 20_000,
    },
  );
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.replace(/\r\n/g, "\n");
}
const python3 = spawnSync("python3", ["-c", "import pty"], { stdio: "ignore" }).status === 0;

let emulator: SpawnedEmulator;
let emulatorUrl = "";

beforeAll(async () => {
  emulator = await spawnEmulator(bin, ["--stage-ms", "5"], {
    PATH: process.env.PATH ?? "",
    HOME: freshDir("home"),
  });
  expect(emulator.firstLine).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
  emulatorUrl = emulator.url;
});

afterAll(async () => {
  await emulator?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("bin/cpctl.cjs", () => {
  test('package.json "bin" names it', () => {
    expect(pkg.bin).toEqual({ cpctl: "bin/cpctl.cjs" });
  });

  test("--version and -V print package.json's version without the bundle; the bundle says the same", async () => {
    for (const flag of ["--version", "-V"]) {
      const { run, distFiles } = await loadsOf([flag]);
      expect(run).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
      expect(distFiles, flag).toEqual([]);
    }
    // The bundle's own answer (commander, with its build-time constant), for any other
    // spelling: the same version; a stale dist/ would differ.
    expect(await node(bin, ["--no-color", "--version"])).toEqual({
      code: 0,
      stdout: `${pkg.version}\n`,
      stderr: "",
    });
  });

  test("--help and -h print what commander prints from the sources", async () => {
    const fromSources = await helpFromSources();
    for (const flag of ["--help", "-h"]) {
      const result = await node(bin, [flag]);
      expect(result).toEqual({ code: 0, stdout: fromSources, stderr: "" });
    }
    const group = await node(bin, ["deploy", "--help"]);
    expect(group.code).toBe(0);
    expect(group.stdout).toMatch(/^Usage: cpctl deploy /);
  });

  test.skipIf(!python3)("on a terminal, the help is laid out for the terminal's width", async () => {
    const onPipe = (await node(bin, ["--help"])).stdout;
    // 80 columns is commander's width on a pipe: the same text.
    expect(onTerminal(80, ["--help"])).toBe(onPipe);
    const narrow = onTerminal(60, ["--help"]);
    expect(narrow).toMatch(/^Usage: cpctl /);
    expect(narrow).toContain("Manage agent-server deployments through the deployment\ncontrol plane API.");
    expect(narrow).not.toBe(onPipe);
  });

  test("Node's compile cache: nothing written on Node 20, which has none", async () => {
    // Node 22 and later write it (test/e2e/node-versions.test.ts).
    const cache = freshDir("compile-cache");
    const run = await node(bin, dryRun, { env: { STARTUP_TOKEN: "t", NODE_COMPILE_CACHE: cache } });
    expect(run.code, run.stderr).toBe(0);
    if (Number(process.versions.node.split(".")[0]) < 22) expect(readdirSync(cache)).toEqual([]);
  });
});

describe("the bundle", () => {
  test("holds one YAML parser, and no dependency is read from node_modules at run time", () => {
    const bundled = new Set(
      distJs()
        .flatMap(sourcesOf)
        .map((source) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1])
        .filter((name) => name !== undefined),
    );
    expect(bundled).toContain("yaml");
    for (const other of ["js-yaml", "cosmiconfig"]) expect(bundled, other).not.toContain(other);
    // Bare imports are Node's builtins only (the build checks it too).
    for (const file of distJs()) {
      const text = readFileSync(file, "utf8");
      for (const [, specifier] of text.matchAll(/\b(?:from|import\()\s*"([@a-z][\w@/.:-]*)"/g))
        expect(specifier, file).toMatch(/^node:/);
    }
  });
});

describe("what the common commands load", () => {
  const libraries = (sources: string[], names: string[]) =>
    names.filter((name) => sources.some((s) => s.includes(`node_modules/${name}/`)));

  test("deploy list -o json: the node:http transport, and no zod, YAML, prompts, spinner, undici, colours or https", async () => {
    const env = { CPCTL_BASE_URL: emulatorUrl, CPCTL_API_KEY: "startup-key" };
    const { run, sources, builtins } = await loadsOf(["deploy", "list", "-o", "json"], env);
    expect(JSON.parse(run.stdout)).toEqual([]);
    expect(libraries(sources, ["zod", "yaml", "@inquirer", "ora", "undici", "picocolors"])).toEqual([]);
    expect(sources.some((s) => s.endsWith("src/api/transport.ts"))).toBe(true);
    expect(sources.filter((s) => s.endsWith("src/api/proxy-transport.ts"))).toEqual([]);
    expect(builtins).toContain("http");
    for (const module of ["https", "tls", "v8", "perf_hooks"]) expect(builtins, module).not.toContain(module);
  });

  test("deploy upload DIR: zlib for packing, crypto only for the digest, no node:fs/promises, perf_hooks or v8", async () => {
    // A key of its own: the emulator keeps each key's deployments apart (the lists above are empty).
    const env = { CPCTL_BASE_URL: emulatorUrl, CPCTL_API_KEY: "upload-loads-key" };
    const id = await createUploadTarget("upload-loads", env);
    const source = freshDir("source");
    writeFileSync(join(source, "agent.json"), "{}\n");
    const { run, builtins } = await loadsOf(["deploy", "upload", id, source], env);
    expect(run.stdout).toMatch(/^uploads\//);
    for (const module of ["zlib", "crypto", "http"]) expect(builtins, module).toContain(module);
    for (const module of ["fs/promises", "perf_hooks", "v8"]) expect(builtins, module).not.toContain(module);

    // A small tarball's digest is computed when first shown (after the upload), so node:crypto
    // is not on the way to the upload: a run that never shows it never loads it.
    const unknown = await loadsOf(
      ["deploy", "upload", "00000000-0000-4000-8000-000000000000", source],
      env,
      undefined,
      4,
    );
    expect(unknown.run.stderr).toContain("Packed 1 file");
    expect(unknown.builtins).toContain("zlib");
    expect(unknown.builtins).not.toContain("crypto");
  });

  test("deploy list with a project .cpctlrc.yaml: the YAML library, and no node:crypto", async () => {
    const cwd = freshDir("project");
    writeFileSync(
      join(cwd, ".cpctlrc.yaml"),
      `defaultProfile: here\nprofiles:\n  here:\n    baseUrl: ${emulatorUrl}\n    apiKey: startup-key\n`,
      { mode: 0o600 },
    );
    const { run, sources, builtins } = await loadsOf(["deploy", "list", "-o", "json"], {}, cwd);
    expect(JSON.parse(run.stdout)).toEqual([]);
    expect(libraries(sources, ["yaml", "zod"])).toEqual(["yaml"]);
    expect(builtins).not.toContain("crypto");
  });

  test("deploy create --dry-run -f FILE.json: zod, but no HTTP, no YAML parser, no colours", async () => {
    const { run, sources, builtins, compiled } = await loadsOf(dryRun, { STARTUP_TOKEN: "t" });
    expect(JSON.parse(run.stdout).name).toBe("startup-test");
    // Nothing made from text at run time: zod/mini parses without classic zod's new Function
    // fast path, which would be compiled anew in every process.
    expect(compiled).toBe(0);
    expect(run.stderr).toContain("dry run: the request is valid");
    expect(libraries(sources, ["zod", "yaml", "picocolors"])).toEqual(["zod"]);
    expect(sources.filter((s) => s.endsWith("src/api/transport.ts"))).toEqual([]);
    // (node:net comes with node:child_process, which commander loads as it loads.)
    for (const module of ["http", "https", "tty", "perf_hooks", "fs/promises", "v8", "timers/promises"])
      expect(builtins, module).not.toContain(module);
    // The response schemas are for the tests; a command validates only what it sends. The
    // sending half of create (confirmation, endpoints, views) and the prompts load when used,
    // and so does the pager (with its retries), which comes with the API client.
    for (const module of [
      "src/model/responses.ts",
      "src/api/endpoints.ts",
      "src/api/pages.ts",
      "src/api/retry.ts",
      "src/operations/confirm.ts",
      "src/output/views.ts",
      "src/prompt/prompter.ts",
      "src/prompt/ask-create.ts",
    ])
      expect(sources.filter((s) => s.endsWith(module))).toEqual([]);
  });

  test("a usage error: no command module, no zod and no API client", async () => {
    const { run, sources } = await loadsOf(["deploy", "lsit"], {}, undefined, 2);
    expect(run.stderr).toContain("list");
    expect(libraries(sources, ["zod", "yaml", "undici", "ora", "@inquirer"])).toEqual([]);
    expect(sources.filter((s) => /src\/(commands\/deploy\/|api\/client\.ts)/.test(s))).toEqual([]);
  });

  test("a cpctl.config.mjs project file (loaded with import()) works, and so do its errors", async () => {
    const cwd = freshDir("project");
    // The user config trusts the directory: a cpctl.config.mjs runs nowhere else.
    const configHome = freshDir("xdg");
    mkdirSync(join(configHome, "cpctl"));
    writeFileSync(join(configHome, "cpctl", "config.yaml"), `trustedDirectories: [${JSON.stringify(cwd)}]\n`);
    const env = { XDG_CONFIG_HOME: configHome };
    writeFileSync(
      join(cwd, "cpctl.config.mjs"),
      'export default { profiles: { prod: { baseUrl: "https://prod.example.com" } } };\n',
    );
    const result = await node(bin, ["config", "get", "baseUrl", "--profile", "prod"], { env, cwd });
    expect(result).toEqual({ code: 0, stdout: "https://prod.example.com\n", stderr: "" });
    writeFileSync(join(cwd, "cpctl.config.mjs"), "export default { profiles: { prod: ;\n");
    const broken = await node(bin, ["config", "get", "baseUrl", "--profile", "prod"], { env, cwd });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("cannot read this config file");
  });
});
