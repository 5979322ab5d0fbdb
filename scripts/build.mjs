// Bundles the CLI into dist/, in two passes:
//
// 1. esbuild, ES modules with code splitting (into a staging directory), so that a command
//    loads only the chunks it needs: prompts, spinners, YAML, the zod model, the HTTP
//    client come in when used;
// 2. each file of pass 1 turned into a CommonJS module, one for one, in dist/ (with
//    dist/package.json saying so). esbuild splits only ES modules, but Node loads CommonJS
//    much faster: its ES module loader costs about 6 ms to start and 0.5 ms per module, where
//    require() costs about 0.1 ms per module; and bin/cpctl.cjs can give CommonJS code a V8
//    code cache, which Node 20 has no way to do for ES modules.
// Then dist/modules.pack: the same modules in one file, which bin/cpctl.cjs reads them from
// (the package ships it instead of dist/*.js; see writeModulePack); dist/help.txt: `cpctl
// --help`, rendered by the CLI just built, which bin/cpctl.cjs prints without loading the
// bundle; and dist/THIRD-PARTY-NOTICES.txt: the licences of the libraries the bundle inlines.
//
// Start-up choices, each measured (docs/performance.md):
// - Dynamic imports of our own chunks become require() in a resolved promise (see
//   rewriteStagedImports); nothing in dist/ may load anything but Node builtins (checked).
// - dist/cli.js imports nothing statically but esbuild's helpers, so a run that loads it
//   reads little: esbuild adds a bare import of its helper chunk to every entry
//   point (evanw/esbuild#1892); it is blanked when that chunk holds only esbuild's helpers.
// - node:fs/promises, which most commands never use, is loaded on first use (node:https is,
//   by src/api/transport.ts itself); picocolors does not create process.stdout to ask whether
//   it is a terminal.
// - yaml is bundled from its ES module build: the CommonJS one, loaded by `import("yaml")`
//   in a split chunk, exposes only `default`, so named imports came out undefined.
// - commander loads node:child_process (with net and dgram, ~4 ms) only for executable
//   subcommands, which cpctl does not use: that one require is made lazy.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { build } from "esbuild";
import { writeThirdPartyNotices } from "./third-party-notices.mjs";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
// For profiling (docs/performance.md): CPCTL_BUILD_OUTDIR=/tmp/x builds elsewhere (the help
// is then rendered by that build), CPCTL_BUILD_MINIFY=0 keeps names readable.
const outdir = process.env.CPCTL_BUILD_OUTDIR ? resolve(process.env.CPCTL_BUILD_OUTDIR) : join(root, "dist");
const minify = process.env.CPCTL_BUILD_MINIFY !== "0";
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const requireHere = createRequire(import.meta.url);

const yamlAsEsm = {
  name: "yaml-esm",
  setup(b) {
    const esm = join(dirname(requireHere.resolve("yaml/package.json")), "browser", "index.js");
    if (!existsSync(esm))
      throw new Error(`build: ${esm} not found (yaml changed): update the yaml-esm plugin`);
    b.onResolve({ filter: /^yaml$/ }, () => ({ path: esm }));
  },
};

/**
 * An esbuild plugin that makes same-text edits to one dependency file as it is bundled. A
 * patch that silently stops applying is a start-up regression nobody sees: a `from` text the
 * file no longer holds fails the build.
 */
function patchDependency(name, file, edits) {
  return {
    name,
    setup(b) {
      b.onLoad({ filter: file }, (args) => {
        let source = readFileSync(args.path, "utf8");
        for (const [from, to] of edits) {
          if (!source.includes(from)) {
            throw new Error(
              `build: ${relative(root, args.path)} no longer holds \`${from}\` (its package changed): update the ${name} patch`,
            );
          }
          source = source.replace(from, to);
        }
        return { contents: source, loader: "js" };
      });
    },
  };
}

// commander loads node:child_process only for executable subcommands, which cpctl has none of.
const lazyChildProcess = patchDependency(
  "commander-lazy-child-process",
  /[\\/]commander[\\/]lib[\\/]command\.js$/,
  [
    [
      "const childProcess = require('node:child_process');",
      "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
    ],
  ],
);

// picocolors decides at load time whether its default instance colours, and asks
// process.stdout (creating the stream: about 2 ms on a file, 4 ms on a pipe) whether it is a
// terminal. cpctl never uses that default: it calls createColors(enabled) with its own
// decision (output/format.ts), so the probe is dropped. (Should code ever use the default
// instance, it would not colour a terminal: visible, and harmless.)
const picocolorsNoProbe = patchDependency(
  "picocolors-no-stdout-probe",
  /[\\/]picocolors[\\/]picocolors\.js$/,
  [['((p.stdout || {}).isTTY && env.TERM !== "dumb")', "false"]],
);

// node:fs/promises costs start-up time (about 4 ms with its first call) and most commands
// never use it, so our own imports of it are bound on first use. (The files users name, `-f
// FILE`, --secrets-file and --api-key-file, are read synchronously when they are regular
// files: src/io.ts.)
// readFile goes through fs.readFile, the callback API of the already loaded node:fs (about
// 2 ms less; the same errors; paths and file descriptors, not FileHandles, which cpctl never
// passes). A named import gets a function that forwards the call; anything else (a class or a
// constant) fails the build, not the CLI.
const LAZY_BUILTINS = {
  "node:fs/promises": {
    names: [
      "writeFile",
      "stat",
      "readdir",
      "lstat",
      "mkdir",
      "rename",
      "rm",
      "open",
      "chmod",
      "unlink",
      "realpath",
      "access",
      "copyFile",
      "appendFile",
    ],
    extra:
      'export const readFile=(path,options)=>new Promise((resolve,reject)=>process.getBuiltinModule("node:fs").readFile(path,options,(error,data)=>error?reject(error):resolve(data)));',
  },
};
const lazyBuiltins = {
  name: "lazy-builtins",
  setup(b) {
    b.onResolve({ filter: /^(node:)?fs\/promises$/ }, (args) => {
      // Our own imports only: a library's may use the module in ways these stand-ins do not
      // cover.
      if (!args.importer.startsWith(join(root, "src"))) return undefined;
      const id = args.path.startsWith("node:") ? args.path : `node:${args.path}`;
      return LAZY_BUILTINS[id] ? { path: id, namespace: "lazy-builtin" } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => {
      const spec = LAZY_BUILTINS[args.path];
      const load = `let m;const load=()=>m??=process.getBuiltinModule(${JSON.stringify(args.path)});`;
      const wrappers = spec.names.map((name) => `export const ${name}=(...a)=>load().${name}(...a);`);
      return { contents: load + wrappers.join("") + (spec.extra ?? ""), loader: "js" };
    });
  },
};

// Loads a chunk the way import() did, as a CommonJS module; see rewriteStagedImports. Other
// import() calls (a cpctl.config.mjs file) stay import(): require() cannot load ES modules.
const IMPORT_CHUNK = "const __imp=(p)=>Promise.resolve().then(()=>require(p));";

/** dist/help.txt: `cpctl --help` as commander prints it on a pipe, for bin/cpctl.cjs. */
const HELP_FILE = "help.txt";

/** The modules dist/cli.js always imports (src/cli.ts, main()): see startupModules. */
const ALWAYS_IMPORTED = ["src/main.ts", "src/clock.ts"];
/** dist/modules.pack: every module of dist/ in one file, for bin/cpctl.cjs (writeModulePack). */
const PACK_FILE = "modules.pack";

/** The licences of the libraries the bundle inlines (scripts/third-party-notices.mjs). */
const NOTICES_FILE = "THIRD-PARTY-NOTICES.txt";

// Pass 1: an ES module build with code splitting, into a staging directory.
const stage = mkdtempSync(join(tmpdir(), "cpctl-build-"));
try {
  const esm = await build({
    absWorkingDir: root,
    entryPoints: { cli: "src/cli.ts" },
    outdir: stage,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    minify,
    sourcemap: "linked",
    chunkNames: "chunks/[name]-[hash]",
    define: { __CPCTL_VERSION__: JSON.stringify(pkg.version) },
    banner: { js: IMPORT_CHUNK },
    plugins: [yamlAsEsm, lazyChildProcess, picocolorsNoProbe, lazyBuiltins],
    metafile: true,
    logLevel: "warning",
  });
  assertBuiltinsOnly(esm.metafile);
  rewriteStagedImports(esm.metafile);

  // Pass 2: every file of pass 1 turned into a CommonJS module, one for one, in dist/.
  const staged = Object.keys(esm.metafile.outputs).filter((output) => output.endsWith(".js"));
  const cjs = await build({
    absWorkingDir: root,
    entryPoints: staged.map((output) => join(root, output)),
    outbase: stage,
    outdir,
    bundle: false,
    format: "cjs",
    platform: "node",
    target: "node20",
    minify,
    sourcemap: "linked",
    banner: { js: '"use strict";' },
    metafile: true,
    logLevel: "warning",
  });
  writeFileSync(join(outdir, "package.json"), '{\n  "type": "commonjs"\n}\n');
  pruneStaleOutputs(cjs.metafile, ["package.json", HELP_FILE, PACK_FILE, NOTICES_FILE]);
  writeModulePack(cjs.metafile, startupModules(esm.metafile, stage));
  writeThirdPartyNotices(esm.metafile, root, join(outdir, NOTICES_FILE));
  if (process.env.CPCTL_BUILD_META) writeFileSync(process.env.CPCTL_BUILD_META, JSON.stringify(esm.metafile));
} finally {
  rmSync(stage, { recursive: true, force: true });
}

writeRootHelp();

/**
 * The bundle may load nothing from outside itself but Node builtins (the package has no
 * runtime dependencies, and bin/cpctl.cjs resolves bare names to builtins only).
 */
function assertBuiltinsOnly(metafile) {
  // Builtins newer than Node 20 that a library asks for only where they exist: undici (the
  // proxy transport) probes node:sqlite for its optional cache store.
  const newerBuiltins = ["node:sqlite"];
  const builtins = new Set([...builtinModules.flatMap((name) => [name, `node:${name}`]), ...newerBuiltins]);
  const foreign = Object.entries(metafile.outputs).flatMap(([output, info]) =>
    info.imports
      .filter((imported) => imported.external && !builtins.has(imported.path))
      .map((imported) => `${imported.path} (${imported.kind}, ${relative(stage, join(root, output))})`),
  );
  if (foreign.length) throw new Error(`build: the bundle loads from outside itself: ${foreign.join(", ")}`);
}

/**
 * Two same-length edits (so that the source maps still line up) to the files of pass 1:
 * - each dynamic import of one of our chunks or of a Node builtin, `import("./chunks/x.js")`,
 *   becomes `__imp ("./chunks/x.js")`: the same module through require() once pass 2 has
 *   made it CommonJS (import() would start Node's ES module loader, about 6 ms, and bypass
 *   bin/cpctl.cjs's compile cache);
 * - the bare import of esbuild's helper chunk that every entry point gets (evanw/esbuild#1892)
 *   is blanked when that chunk holds only esbuild's helpers, so dist/cli.js loads nothing else.
 */
function rewriteStagedImports(metafile) {
  for (const [output, info] of Object.entries(metafile.outputs)) {
    if (!output.endsWith(".js")) continue;
    const file = join(root, output);
    let text = readFileSync(file, "utf8");
    const specifier = (imported) =>
      `./${relative(dirname(file), join(root, imported.path)).split("\\").join("/")}`;
    for (const imported of info.imports) {
      const builtin = imported.external && imported.path.startsWith("node:");
      if (imported.external && !builtin) continue;
      if (imported.kind === "dynamic-import") {
        const call = `import("${builtin ? imported.path : specifier(imported)}")`;
        const replacement = `__imp (${call.slice("import(".length)}`;
        // (The metafile lists an import once per call site; replaceAll did them all.)
        if (!text.includes(call) && !text.includes(replacement)) {
          throw new Error(`build: ${output}: ${call} not found`);
        }
        text = text.replaceAll(call, replacement);
        continue;
      }
      if (builtin || !info.entryPoint || imported.kind !== "import-statement") continue;
      // Only esbuild's own helpers (no input file of ours or of a dependency) are safe to drop.
      if (Object.keys(metafile.outputs[imported.path]?.inputs ?? { x: 1 }).length > 0) continue;
      const statement = `import"${specifier(imported)}";`;
      if (text.includes(statement)) text = text.replace(statement, " ".repeat(statement.length));
    }
    writeFileSync(file, text);
  }
}

/** Removes files of earlier builds (chunk names carry a hash), so that `npm pack` ships only these. */
function pruneStaleOutputs(metafile, keep) {
  const current = new Set(Object.keys(metafile.outputs).map((output) => join(root, output)));
  for (const name of keep) current.add(join(outdir, name));
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!current.has(path)) rmSync(path, { force: true });
    }
  };
  walk(outdir);
}

/**
 * The modules every command loads, by their names in dist/: the chunks of src/main.ts and
 * src/clock.ts, which dist/cli.js always imports, and all they import statically, from pass
 * 1's metafile (whose outputs pass 2 turns into dist/'s one for one). bin/cpctl.cjs compiles
 * them as one script, with one code cache: a script and a cache file each cost about 0.05
 * ms, 1.5 ms for the 26 of them. A module that calls import() is compiled by Node (see
 * bin/cpctl.cjs) and stays out.
 */
function startupModules(metafile, staged) {
  const nameOf = (output) => relative(staged, join(root, output)).split("\\").join("/");
  const outputs = new Map(
    Object.entries(metafile.outputs)
      .filter(([output]) => output.endsWith(".js"))
      .map(([output, info]) => [nameOf(output), info]),
  );
  const roots = [...outputs].filter(([, info]) => ALWAYS_IMPORTED.includes(info.entryPoint));
  if (roots.length !== ALWAYS_IMPORTED.length)
    throw new Error(`build: the chunks of ${ALWAYS_IMPORTED.join(" and ")} not found`);
  const group = new Set();
  const visit = (name) => {
    if (group.has(name)) return;
    group.add(name);
    for (const imported of outputs.get(name).imports)
      if (imported.kind === "import-statement" && !imported.external) visit(nameOf(imported.path));
  };
  for (const [name] of roots) visit(name);
  return [...group].filter((name) => !readFileSync(join(outdir, name), "utf8").includes("import(")).sort();
}

/**
 * dist/modules.pack: the modules of pass 2 (dist/cli.js and dist/chunks/*.js) in one file, which
 * bin/cpctl.cjs reads them from, and which the package ships in their stead (package.json
 * "files"). A first `npx cpctl` unpacks the tarball four times (npm reads a tarball's
 * package.json by unpacking all of it, three times over, before it installs it), and what
 * that costs goes with the number of files far more than with their size: 100 chunks made
 * the cold npx 1.8 times that of an empty package (the git history of docs/performance.md). The chunks stay
 * as they are, each loaded only when needed; only where their text is read from changes.
 *
 * The format: one line of JSON, { "cli.js": [offset, length], "chunks/x.js": [...], ...,
 * "#startup": ["chunks/x.js", ...] } (byte offsets from the end of that line, keys relative
 * to dist/ with "/"; "#startup": startupModules), then the modules' texts: dist/cli.js, the
 * startup modules (one read takes them all), the others. The texts are those of the files
 * without the closing `//# sourceMappingURL=` comment (the maps stay in dist/ for
 * development, and are not shipped); `node --enable-source-maps` in a development tree loads
 * the files themselves.
 */
function writeModulePack(metafile, startup) {
  const rank = (file) => (file === "cli.js" ? 0 : startup.includes(file) ? 1 : 2);
  const files = Object.keys(metafile.outputs)
    .filter((output) => output.endsWith(".js"))
    .map((output) => relative(outdir, join(root, output)).split("\\").join("/"))
    .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  if (files[0] !== "cli.js") throw new Error("build: dist/cli.js is not among the outputs");
  const missing = startup.filter((name) => !files.includes(name));
  if (missing.length > 0) throw new Error(`build: startup modules not built: ${missing.join(", ")}`);
  const index = {};
  const texts = [];
  let offset = 0;
  for (const file of files) {
    const text = Buffer.from(
      readFileSync(join(outdir, file), "utf8").replace(/\n\/\/# sourceMappingURL=[^\n]*\n?$/, "\n"),
    );
    index[file] = [offset, text.length];
    texts.push(text);
    offset += text.length;
  }
  index["#startup"] = startup;
  writeFileSync(
    join(outdir, PACK_FILE),
    Buffer.concat([Buffer.from(`${JSON.stringify(index)}\n`), ...texts]),
  );
}

/**
 * Renders `cpctl --help` with the CLI just built, on a pipe (so commander's width is its
 * default, 80 columns), and writes it to dist/help.txt. bin/cpctl.cjs prints this file for
 * exactly `--help` or `-h` when stdout is not a terminal; anything else runs commander.
 * test/e2e/startup.test.ts checks that the two agree with the sources.
 */
function writeRootHelp() {
  const file = join(outdir, HELP_FILE);
  rmSync(file, { force: true });
  const env = { PATH: process.env.PATH ?? "", HOME: tmpdir() };
  // argv[1] stands for the script, as when bin/cpctl.cjs runs dist/cli.js.
  const run = `require(${JSON.stringify(join(outdir, "cli.js"))}).main()`;
  const text = execFileSync(process.execPath, ["-e", run, "cpctl", "--help"], {
    cwd: tmpdir(),
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30_000,
  });
  if (!text.startsWith("Usage: cpctl"))
    throw new Error(`build: unexpected --help output: ${text.slice(0, 200)}`);
  writeFileSync(file, text);
}
