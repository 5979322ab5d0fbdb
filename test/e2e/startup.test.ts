// bin/cpctl.cjs, the command package.json names, as users run it (the build is made by the
// global setup): the two answers it gives without loading the bundle (--version, and
// --help on a pipe, which must be exactly what commander prints), the compile cache it
// loads dist/ with, and what the common commands load (docs/performance.md).
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { type SpawnedEmulator, spawnEmulator } from "../helpers/spawn-emulator.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(root, "bin", "cpctl.cjs");
/** Runs dist/cli.js straight away: commander answers everything. */
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

/**
 * Records, at exit, the modules and builtins the process loaded (LOADS_OUT names the file),
 * and how many functions were made from text at run time (new Function: code that no cache
 * can hold, compiled anew in every process).
 */
const loadsHook = join(work, "loads-hook.cjs");
writeFileSync(
  loadsHook,
  `let compiled = 0;
globalThis.Function = new Proxy(Function, { construct(target, args) { compiled++; return Reflect.construct(target, args); } });
process.on("exit", () => require("node:fs").writeFileSync(process.env.LOADS_OUT, JSON.stringify({
  modules: Object.keys(require.cache),
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

/** What a run loaded: dist/ files (with the sources their source maps name) and builtins. */
async function loadsOf(args: string[], env: Record<string, string> = {}, cwd?: string, code = 0) {
  const out = join(freshDir("loads"), "loads.json");
  const run = await node(bin, args, {
    env: { ...env, LOADS_OUT: out },
    nodeArgs: ["--require", loadsHook],
    cwd,
  });
  expect(run.code, run.stderr).toBe(code);
  const { modules, builtins, compiled } = JSON.parse(readFileSync(out, "utf8")) as {
    modules: string[];
    builtins: string[];
    compiled: number;
  };
  const distFiles = modules.filter((m) => m.startsWith(dist));
  const sources = distFiles.flatMap(
    (file) => (JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] }).sources,
  );
  return { run, distFiles, sources, builtins, compiled };
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

describe("bin/cpctl.cjs answers without the bundle", () => {
  test('package.json "bin" names it', () => {
    expect(pkg.bin).toEqual({ cpctl: "bin/cpctl.cjs" });
  });

  test("--version and -V print package.json's version, which the bundle was built with", async () => {
    for (const flag of ["--version", "-V"]) {
      const result = await node(bin, [flag]);
      expect(result).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
    }
    // The bundle's own answer (commander, with its build-time constant), for any other
    // spelling: the same version; a stale dist/ would differ.
    expect(await node(bin, ["--no-color", "--version"])).toEqual({
      code: 0,
      stdout: `${pkg.version}\n`,
      stderr: "",
    });
  });

  test("--help and -h on a pipe print exactly what commander prints, from the sources and from the bundle", async () => {
    const fromFile = readFileSync(join(dist, "help.txt"), "utf8");
    const fromSources = await helpFromSources();
    expect(fromFile).toBe(fromSources);
    for (const flag of ["--help", "-h"]) {
      const result = await node(bin, [flag]);
      expect(result).toEqual({ code: 0, stdout: fromSources, stderr: "" });
    }
    // The same help through commander in the built bundle: `--help` with another flag is not
    // the fast path.
    expect((await node(bin, ["--no-color", "--help"])).stdout).toBe(fromSources);
    // A command's help is commander's.
    const group = await node(bin, ["deploy", "--help"]);
    expect(group.code).toBe(0);
    expect(group.stdout).toMatch(/^Usage: cpctl deploy /);
  });

  test.skipIf(!python3)("on a terminal, commander renders the help for the terminal's width", () => {
    const fromFile = readFileSync(join(dist, "help.txt"), "utf8");
    // 80 columns is commander's width on a pipe: the same text.
    expect(onTerminal(80, ["--help"])).toBe(fromFile);
    const narrow = onTerminal(60, ["--help"]);
    expect(narrow).toMatch(/^Usage: cpctl /);
    expect(narrow).toContain("Manage agent-server deployments through the deployment\ncontrol plane API.");
    expect(narrow).not.toBe(fromFile);
  });

  test("neither answer loads anything from dist/", async () => {
    for (const args of [["--version"], ["-V"], ["--help"], ["-h"]]) {
      const { distFiles } = await loadsOf(args);
      expect(distFiles, args.join(" ")).toEqual([]);
    }
  });
});

describe("dist/modules.pack, which bin/cpctl.cjs reads the modules from", () => {
  test("holds every module of dist/, as built (without its source map comment), and nothing else", () => {
    const pack = readFileSync(join(dist, "modules.pack"));
    const newline = pack.indexOf(10);
    const { "#startup": _startup, ...index } = JSON.parse(pack.toString("utf8", 0, newline)) as Record<
      string,
      [number, number]
    >;
    const built = [
      "cli.js",
      ...readdirSync(join(dist, "chunks"))
        .filter((name) => name.endsWith(".js"))
        .map((name) => `chunks/${name}`),
    ];
    expect(Object.keys(index).sort()).toEqual(built.sort());
    for (const [name, [offset, length]] of Object.entries(index)) {
      const text = pack.toString("utf8", newline + 1 + offset, newline + 1 + offset + length);
      expect(text, name).toBe(
        readFileSync(join(dist, name), "utf8").replace(/\/\/# sourceMappingURL=.*\n$/, ""),
      );
    }
  });

  test("the modules every command loads come first, listed as #startup: what a usage error loads", async () => {
    const pack = readFileSync(join(dist, "modules.pack"));
    const newline = pack.indexOf(10);
    const { "#startup": startup, ...index } = JSON.parse(pack.toString("utf8", 0, newline)) as {
      "#startup": string[];
    } & Record<string, [number, number]>;
    // After dist/cli.js, one after another: bin/cpctl.cjs reads them at once.
    const order = Object.entries(index)
      .sort(([, a], [, b]) => a[0] - b[0])
      .map(([name]) => name);
    expect(order[0]).toBe("cli.js");
    expect(new Set(order.slice(1, startup.length + 1))).toEqual(new Set(startup));
    // Compiled as one script: nothing in them that only Node's own compile can run.
    for (const name of startup) expect(readFileSync(join(dist, name), "utf8"), name).not.toContain("import(");
    // A command that stops at its arguments loads them and nothing more.
    const { distFiles } = await loadsOf(["deploy", "no-such-command"], {}, undefined, 2);
    expect(distFiles.map((file) => file.slice(dist.length + 1)).sort()).toEqual(
      ["cli.js", ...startup].sort(),
    );
  });

  test("the modules load from it alone: a dist/ without its .js files works", async () => {
    const copy = freshDir("pack-only");
    mkdirSync(join(copy, "bin"));
    mkdirSync(join(copy, "dist"));
    writeFileSync(join(copy, "package.json"), readFileSync(join(root, "package.json")));
    writeFileSync(join(copy, "bin", "cpctl.cjs"), readFileSync(bin));
    for (const name of ["modules.pack", "help.txt"])
      writeFileSync(join(copy, "dist", name), readFileSync(join(dist, name)));
    const expected = await node(bin, dryRun, { env: { STARTUP_TOKEN: "t" } });
    expect(expected.code, expected.stderr).toBe(0);
    for (const env of [{}, { CPCTL_COMPILE_CACHE: "0" }] as Record<string, string>[]) {
      const run = await node(join(copy, "bin", "cpctl.cjs"), dryRun, { env: { ...env, STARTUP_TOKEN: "t" } });
      expect(run).toEqual(expected);
    }
    // --enable-source-maps, with no maps to use: the pack, without the cache.
    const mapped = await node(join(copy, "bin", "cpctl.cjs"), dryRun, {
      env: { STARTUP_TOKEN: "t" },
      nodeArgs: ["--enable-source-maps"],
    });
    expect(mapped).toEqual(expected);
  });
});

describe("what the common commands load", () => {
  test("deploy list -o json: no zod, no YAML parser without a config file, no https", async () => {
    const env = { CPCTL_BASE_URL: emulatorUrl, CPCTL_API_KEY: "startup-key" };
    const { run, sources, builtins } = await loadsOf(["deploy", "list", "-o", "json"], env);
    expect(JSON.parse(run.stdout)).toEqual([]);
    for (const library of ["zod", "yaml", "@inquirer", "ora", "undici"])
      expect(
        sources.filter((s) => s.includes(`node_modules/${library}/`)),
        library,
      ).toEqual([]);
    expect(sources.some((s) => s.endsWith("src/api/transport.ts"))).toBe(true);
    expect(builtins).toContain("http");
    expect(builtins).not.toContain("https");
    expect(builtins).not.toContain("tls");
    // V8's flags are loaded only by the work that sets one (packing, lists read whole).
    expect(builtins).not.toContain("v8");
    // Request deadlines use process.hrtime, not the global `performance`, which loads it.
    expect(builtins).not.toContain("perf_hooks");
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
    // The source directory is checked with a synchronous stat, as the walk after it reads.
    for (const module of ["fs/promises", "perf_hooks"]) expect(builtins, module).not.toContain(module);
    // V8's flags are set only for a project of a thousand entries or more (pack.ts).
    expect(builtins).not.toContain("v8");

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

  test("deploy list with a project .cpctlrc.yaml: the YAML library, from the compile cache, and no node:crypto", async () => {
    const cwd = freshDir("project");
    writeFileSync(
      join(cwd, ".cpctlrc.yaml"),
      `defaultProfile: here\nprofiles:\n  here:\n    baseUrl: ${emulatorUrl}\n    apiKey: startup-key\n`,
      { mode: 0o600 },
    );
    const cacheRoot = freshDir("cache");
    const { run, distFiles, sources, builtins } = await loadsOf(
      ["deploy", "list", "-o", "json"],
      { CPCTL_CACHE_DIR: cacheRoot },
      cwd,
    );
    expect(JSON.parse(run.stdout)).toEqual([]);
    expect(sources.some((s) => s.includes("node_modules/yaml/"))).toBe(true);
    expect(sources.some((s) => /node_modules\/(cosmiconfig|js-yaml)\//.test(s))).toBe(false);
    const yaml = distFiles.filter((file) =>
      (JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] }).sources.some((s) =>
        s.includes("node_modules/yaml/"),
      ),
    );
    expect(yaml.length).toBeGreaterThan(0);
    const cache = join(cacheRoot, "compile-cache", `${pkg.version}-node${process.version}-${process.arch}`);
    for (const file of yaml) expect(readdirSync(cache)).toContain(`chunks+${basename(file)}.cache`);
    expect(builtins).not.toContain("crypto");
  });

  test("deploy create --dry-run -f FILE.json: zod, but no HTTP, no YAML parser, no stream for stdout or stderr", async () => {
    const { run, sources, builtins, compiled } = await loadsOf(dryRun, { STARTUP_TOKEN: "t" });
    expect(JSON.parse(run.stdout).name).toBe("startup-test");
    // Nothing made from text at run time: zod/mini parses without classic zod's new Function
    // fast path, which would be compiled anew in every process, outside the code cache.
    expect(compiled).toBe(0);
    expect(run.stderr).toContain("dry run: the request is valid");
    expect(sources.some((s) => s.includes("node_modules/zod/"))).toBe(true);
    expect(sources.filter((s) => s.includes("node_modules/yaml/"))).toEqual([]);
    expect(sources.filter((s) => s.endsWith("src/api/transport.ts"))).toEqual([]);
    for (const module of [
      "http",
      "https",
      "net",
      "tty",
      "perf_hooks",
      "fs/promises",
      "v8",
      "timers/promises",
    ])
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
});

describe("the compile cache", () => {
  const cacheOf = (cacheRoot: string) =>
    join(cacheRoot, "compile-cache", `${pkg.version}-node${process.version}-${process.arch}`);
  const listing = (dir: string) =>
    readdirSync(dir)
      .sort()
      .map((name) => [name, statSync(join(dir, name)).mtimeMs] as const);

  test("the first run writes it, later runs read it, and the output is the same", async () => {
    const cacheRoot = freshDir("cache");
    const env = { CPCTL_CACHE_DIR: cacheRoot, STARTUP_TOKEN: "t" };
    const uncached = await node(bin, dryRun, { env: { ...env, CPCTL_COMPILE_CACHE: "0" } });
    expect(uncached.code, uncached.stderr).toBe(0);
    expect(existsSync(join(cacheRoot, "compile-cache"))).toBe(false);

    const first = await node(bin, dryRun, { env });
    expect(first).toEqual(uncached);
    const written = listing(cacheOf(cacheRoot));
    expect(written.length).toBeGreaterThan(5);
    for (const [name] of written)
      expect(name).toMatch(/^(chunks\+.+-[A-Z0-9]{8}\.js\.cache|startup\+[0-9a-f]{8}\.cache|runs)$/);
    expect(written.filter(([name]) => name.startsWith("startup+"))).toHaveLength(1);

    const second = await node(bin, dryRun, { env });
    expect(second).toEqual(uncached);
    expect(listing(cacheOf(cacheRoot))).toEqual(written);
  });

  test("deploy upload of a directory and list --all, which tune V8 while they work, leave a cache the next run reads", async () => {
    // V8 stamps its flags into a cache and refuses one stamped with others: a flag left set
    // while chunks load or at exit made every run compile afresh and write its cache again.
    // The young generation is tuned only from a project's 1,000th entry (upload/pack.ts).
    const cacheRoot = freshDir("cache");
    const source = freshDir("source");
    for (let i = 0; i < 1000; i++) writeFileSync(join(source, `file-${i}.txt`), `content ${i}\n`.repeat(5));
    const env = { CPCTL_CACHE_DIR: cacheRoot, CPCTL_BASE_URL: emulatorUrl, CPCTL_API_KEY: "cache-key" };
    const id = await createUploadTarget("cache-test", { ...env, CPCTL_COMPILE_CACHE: "0" });
    for (const args of [
      ["deploy", "upload", id, source],
      ["deploy", "list", "--all", "-o", "ndjson"],
    ]) {
      for (let run = 0; run < 2; run++) expect((await node(bin, args, { env })).code).toBe(0);
      const settled = listing(cacheOf(cacheRoot));
      const again = await node(bin, args, { env });
      expect(again.code, again.stderr).toBe(0);
      expect(listing(cacheOf(cacheRoot)), args.join(" ")).toEqual(settled);
    }
  });

  test("a run that loads a new set of chunks writes the shared chunks again, with its functions too", async () => {
    const cacheRoot = freshDir("cache");
    const dir = cacheOf(cacheRoot);
    const env = { CPCTL_CACHE_DIR: cacheRoot, STARTUP_TOKEN: "t" };
    expect((await node(bin, ["schema"], { env })).code).toBe(0);
    const afterSchema = new Map(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name))]));
    expect((await node(bin, dryRun, { env })).code).toBe(0);
    const grown = [...afterSchema].filter(
      ([name, data]) => name !== "runs" && readFileSync(join(dir, name)).length > data.length,
    );
    // The entry chunk of the program (main.ts) serves both; the dry run ran more of it.
    expect(grown.length).toBeGreaterThan(0);
    expect(readFileSync(join(dir, "runs"), "utf8").trim().split("\n")).toHaveLength(2);
  });

  test("a damaged file is refused by V8 and rewritten; stale entries go", async () => {
    const cacheRoot = freshDir("cache");
    const dir = cacheOf(cacheRoot);
    const env = { CPCTL_CACHE_DIR: cacheRoot, STARTUP_TOKEN: "t" };
    const expected = await node(bin, dryRun, { env });
    expect(expected.code, expected.stderr).toBe(0);
    const [damaged] = readdirSync(dir)
      .filter((name) => name.endsWith(".cache"))
      .sort();
    const startup = readdirSync(dir).find((name) => name.startsWith("startup+"));
    writeFileSync(join(dir, damaged!), "not V8 code");
    writeFileSync(join(dir, startup!), "not V8 code either");
    writeFileSync(join(dir, "chunks+gone-ABCDEFGH.js.cache"), "an earlier build's chunk");
    writeFileSync(join(dir, "startup+0badc0de.cache"), "an earlier build's startup modules");
    const otherVersion = join(dir, "..", `0.0.0-node${process.version}-${process.arch}`);
    mkdirSync(otherVersion);

    expect(await node(bin, dryRun, { env })).toEqual(expected);
    expect(readFileSync(join(dir, damaged!), "utf8")).not.toBe("not V8 code");
    expect(readFileSync(join(dir, startup!), "utf8")).not.toBe("not V8 code either");
    expect(existsSync(join(dir, "chunks+gone-ABCDEFGH.js.cache"))).toBe(false);
    expect(existsSync(join(dir, "startup+0badc0de.cache"))).toBe(false);
    // Other versions' directories go when a version's directory is created.
    rmSync(dir, { recursive: true });
    expect(await node(bin, dryRun, { env })).toEqual(expected);
    expect(existsSync(otherVersion)).toBe(false);
  });

  test("it lives in XDG_CACHE_HOME, else ~/.cache", async () => {
    const xdg = freshDir("xdg");
    expect((await node(bin, dryRun, { env: { XDG_CACHE_HOME: xdg, STARTUP_TOKEN: "t" } })).code).toBe(0);
    expect(readdirSync(cacheOf(join(xdg, "cpctl"))).length).toBeGreaterThan(0);
    const home = freshDir("home");
    expect((await node(bin, dryRun, { env: { HOME: home, STARTUP_TOKEN: "t" } })).code).toBe(0);
    expect(readdirSync(cacheOf(join(home, ".cache", "cpctl"))).length).toBeGreaterThan(0);
    // A cache that cannot be written (a file where the directory would go): it runs without.
    const blocked = freshDir("home");
    writeFileSync(join(blocked, ".cache"), "a file, not a directory");
    const run = await node(bin, dryRun, { env: { HOME: blocked, STARTUP_TOKEN: "t" } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/dry run: the request is valid; nothing was sent\n$/);
    expect(run.stderr).not.toMatch(/warning|error/i);
  });

  test("errors keep their exit codes and messages, cached or not", async () => {
    const bad = join(freshDir("bad"), "bad.json");
    writeFileSync(bad, JSON.stringify({ name: "Not A Name", source: "external_container" }));
    const env = { CPCTL_CACHE_DIR: freshDir("cache") };
    const runs = [
      await node(bin, ["deploy", "create", "--dry-run", "-f", bad], { env }),
      await node(bin, ["deploy", "create", "--dry-run", "-f", bad], { env }),
      await node(bin, ["deploy", "create", "--dry-run", "-f", bad], {
        env: { ...env, CPCTL_COMPILE_CACHE: "0" },
      }),
    ];
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^error: /);
      expect(run.stderr).not.toContain("internal error");
    }
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).toEqual(runs[0]);
    const unknown = await node(bin, ["deploy", "lsit"], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("list");
  });

  test("a cpctl.config.mjs project file (loaded with import(), outside the cache) works, and so do its errors", async () => {
    const cwd = freshDir("project");
    // The user config trusts the directory: a cpctl.config.mjs runs nowhere else.
    const configHome = freshDir("xdg");
    mkdirSync(join(configHome, "cpctl"));
    writeFileSync(join(configHome, "cpctl", "config.yaml"), `trustedDirectories: [${JSON.stringify(cwd)}]\n`);
    const env = { CPCTL_CACHE_DIR: freshDir("cache"), XDG_CONFIG_HOME: configHome };
    writeFileSync(
      join(cwd, "cpctl.config.mjs"),
      'export default { profiles: { prod: { baseUrl: "https://prod.example.com" } } };\n',
    );
    for (let i = 0; i < 2; i++) {
      const result = await node(bin, ["config", "get", "baseUrl", "--profile", "prod"], { env, cwd });
      expect(result).toEqual({ code: 0, stdout: "https://prod.example.com\n", stderr: "" });
    }
    writeFileSync(join(cwd, "cpctl.config.mjs"), "export default { profiles: { prod: ;\n");
    const broken = await node(bin, ["config", "get", "baseUrl", "--profile", "prod"], { env, cwd });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("cannot read this config file");
  });
});
