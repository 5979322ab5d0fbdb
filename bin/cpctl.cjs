#!/usr/bin/env node
// The command users run (package.json "bin"). CommonJS, as dist/ is: Node's ES module loader
// never starts (docs/performance.md has the measurements behind each choice here).
//
// Two answers need no bundle at all:
// - exactly `--version` or `-V`: the version from package.json (commander, in the bundle,
//   answers any other spelling with the version the bundle was built with: the same, which
//   test/e2e/startup.test.ts checks);
// - exactly `--help` or `-h` with stdout not a terminal: dist/help.txt, which the build
//   renders with commander on a pipe (test/e2e/startup.test.ts checks it against commander).
//   On a terminal commander renders the help itself, for the terminal's width.
// Everything else runs dist/cli.js, read from dist/modules.pack and loaded with a V8 code cache
// (see loadDist).
//
// First of all, the Node.js version: an older Node gets one line naming the Node cpctl needs
// and exit 1, not a stack trace from the bundle (Node 18, and 20 before 20.16, have no
// process.getBuiltinModule). This file stays in syntax that such Nodes parse, for a file that
// does not parse never runs this check.
"use strict";

if (!isSupportedNode(process.versions.node)) {
  require("node:fs").writeSync(
    2,
    `cpctl needs Node.js 22 (22.12 or later), 24 or 26, or 20 (20.19 or later); this is Node.js ${process.version}\n`,
  );
  process.exit(1);
}

const fs = require("node:fs");
const path = require("node:path");

const argv = process.argv;
const only = argv.length === 3 ? argv[2] : undefined;
let text;
if (only === "--version" || only === "-V") {
  text = `${packageVersion()}\n`;
} else if ((only === "--help" || only === "-h") && !isTerminal(1)) {
  try {
    text = fs.readFileSync(path.join(__dirname, "..", "dist", "help.txt"), "utf8");
  } catch {
    // No rendered help (a partial build): commander prints it.
  }
}
if (text === undefined) loadDist().main();
else writeStdout(text);

/**
 * The Nodes package.json "engines" allows ("^20.19.0 || ^22.12.0 || ^24.0.0 || ^26.0.0"), and
 * the odd majors after 22 and any later major, which npm warns about but which run cpctl: only
 * a Node below what engines allows is refused. README.md, "Node.js versions", says why 20 is
 * still among them.
 */
function isSupportedNode(version) {
  const parts = version.split(".");
  const major = Number(parts[0]);
  const minor = Number(parts[1]);
  if (major === 20) return minor >= 19;
  if (major === 22) return minor >= 12;
  return major > 22;
}

function packageVersion() {
  return JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8")).version;
}

/**
 * isatty(fd), without loading node:tty (and node:net with it, about 3 ms) when fstat already
 * tells: a pipe, a file or /dev/null is not a terminal. src/cli.ts has the same for the
 * bundle, which cannot load this file (nothing outside dist/): src/cli.test.ts holds the two
 * to the same answers.
 */
function isTerminal(fd) {
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isCharacterDevice()) return false;
    if (process.platform !== "win32" && stat.rdev === fs.statSync("/dev/null").rdev) return false;
  } catch {
    // A closed descriptor: tty says no.
  }
  return require("node:tty").isatty(fd);
}

/** Straight to fd 1, without creating the process.stdout stream (about 3 ms). */
function writeStdout(out) {
  const bytes = Buffer.from(out);
  let written = 0;
  try {
    written = fs.writeSync(1, bytes);
  } catch (error) {
    // A closed reader (`| true`) is not worth an error; a non-blocking pipe that is full
    // (EAGAIN) gets the ordinary, buffered stream below.
    if (error.code === "EPIPE") return;
    if (error.code !== "EAGAIN") throw error;
  }
  if (written < bytes.length) process.stdout.write(bytes.subarray(written));
}

/**
 * dist/cli.js and the chunks it requires, read from dist/modules.pack and compiled with a V8
 * code cache.
 *
 * The modules' texts come from dist/modules.pack, one file that holds them all (the build
 * writes it; the package ships it instead of dist/*.js, because a first `npx cpctl` pays for
 * every file of the tarball several times over: scripts/build.mjs, writeModulePack). Each module runs only
 * when something requires it; it is read and compiled then too, but for the modules every
 * command loads (the pack's "#startup"), which are read at once and compiled as one script.
 *
 * Most of a command's start-up is V8 parsing and compiling the bundle's code; Node 20 has no
 * compile cache for user code (Node 22 added module.enableCompileCache), so this does what
 * it does: each dist/ file is compiled with vm.Script and the code V8 produced is saved, at
 * exit, in a per-user cache directory; the next run hands it back to V8 and skips the
 * compilation. V8 checks that the data matches its version, its flags and the source, and
 * rejects anything else (the file is then compiled as usual and the cache rewritten).
 *
 * The modules are ordinary CommonJS modules in require.cache, under the names of the dist/
 * files they were built as. A file that contains import() (the one that loads a
 * cpctl.config.mjs, cosmiconfig) is compiled by Node, which import() needs, with its
 * require() served from the pack too. Bare names resolve to Node builtins only. The first run
 * of a command writes the cache (tens of ms, once); later runs of any command reuse what it
 * has. No cache with CPCTL_COMPILE_CACHE=0, without a home directory, or with
 * --enable-source-maps; with that flag a development tree (dist/ with its source maps) loads
 * the files themselves through Node's require(), for Node maps stack traces only for the
 * modules it compiles from their files.
 */
function loadDist() {
  const dist = path.join(__dirname, "..", "dist");
  if (process.sourceMapsEnabled && fs.existsSync(path.join(dist, "cli.js.map")))
    return require(path.join(dist, "cli.js"));
  const pack = openPack(dist);
  const cacheDir = process.sourceMapsEnabled ? null : compileCacheDir();

  const Module = require("node:module");
  const vm = require("node:vm");
  /** Every cached chunk this run compiled: { name, script, miss }. */
  const compiled = [];

  // The modules every command loads (the build lists them: pack.startup) are compiled as one
  // script, with one cache file, when the first of them is required: one read of the pack, of
  // the cache and one compilation, where each module would cost its own. The script only
  // defines them; each still runs when it is first required.
  let startup = null;
  const startupModule = (key) => {
    if (!pack.startup.has(key)) return undefined;
    if (startup === null) {
      startup = new Map();
      let text = "(function (define) {\n";
      for (const [member, source] of pack.readStartup())
        text += `define(${JSON.stringify(member)}, ${wrapped(source)});\n`;
      const cacheName = cacheDir === null ? null : `startup+${fnv1a([...pack.startup].join("\n"))}.cache`;
      compile(`${text}})`, `${dist}${path.sep}startup.js`, cacheName).runInThisContext()((member, body) =>
        startup.set(member, body),
      );
    }
    return startup.get(key);
  };

  // (String paths built by hand: path.join and path.basename, run a hundred times while
  // they are still interpreted, cost about 2 ms.)
  const load = (dir, name, parent) => {
    const filename = `${dir}${path.sep}${name}`;
    const cached = Module._cache[filename];
    if (cached) return cached.exports;
    const key = filename.slice(dist.length + 1);
    const defined = startupModule(key);
    const source = defined === undefined ? pack.read(key) : "";
    const module = new Module(filename, parent);
    module.filename = filename;
    // Bare names resolve to Node builtins only: the bundle needs nothing from node_modules.
    module.paths = [];
    Module._cache[filename] = module;
    const require = (id) => {
      if (id.startsWith("./") && id.indexOf("/", 2) === -1) return load(dir, id.slice(2), module);
      if (id.startsWith("./") || id.startsWith("../")) {
        const target = path.resolve(dir, id);
        return load(path.dirname(target), path.basename(target), module);
      }
      return Module.prototype.require.call(module, id);
    };
    let loaded = false;
    try {
      if (defined !== undefined) {
        defined.call(module.exports, module.exports, require, module, filename, dir);
      } else if (source.includes("import(")) {
        // Node's own require() for this module (it calls module.require) would look for the
        // chunk files, which the package does not have.
        module.require = require;
        module._compile(source, filename);
      } else {
        // Chunk names carry a hash of their content, which the cache file's name repeats (V8
        // checks the source's length, not its text); dist/cli.js, a few lines, is not cached.
        const cacheName = cacheDir !== null && /-[A-Z0-9]{8}\.js$/.test(name) ? `chunks+${name}.cache` : null;
        const script = compile(wrapped(source), filename, cacheName);
        script.runInThisContext().call(module.exports, module.exports, require, module, filename, dir);
      }
      loaded = true;
    } finally {
      if (!loaded) delete Module._cache[filename];
    }
    module.loaded = true;
    return module.exports;
  };

  /** A module's text as the function CommonJS runs it in. */
  const wrapped = (source) => `(function (exports, require, module, __filename, __dirname) {${source}\n})`;

  const compile = (code, filename, cacheName) => {
    let cachedData;
    if (cacheName !== null) {
      try {
        cachedData = fs.readFileSync(`${cacheDir}${path.sep}${cacheName}`);
      } catch {
        // Not cached yet.
      }
    }
    const script = new vm.Script(code, { filename, cachedData });
    if (cacheName !== null) {
      compiled.push({ name: cacheName, script, miss: cachedData === undefined || script.cachedDataRejected });
    }
    return script;
  };

  // Written at exit, so that the functions compiled while the command ran are in it too.
  if (cacheDir !== null) process.once("exit", () => saveCompileCache(cacheDir, pack, compiled));
  return load(dist, "cli.js", null);
}

/**
 * dist/modules.pack (scripts/build.mjs writes it): a line of JSON, { "cli.js": [offset,
 * length], "chunks/x.js": [...], ... } with byte offsets from the end of that line, then the
 * modules' texts, dist/cli.js first. One read takes the index with dist/cli.js and the
 * smaller chunks after it; any other module is one more read at its offset. The descriptor
 * stays open for the modules loaded later (it is not inherited by child processes).
 */
function openPack(dist) {
  const fd = fs.openSync(`${dist}${path.sep}modules.pack`, "r");
  let head = Buffer.allocUnsafe(65536);
  let headLength = fs.readSync(fd, head, 0, head.length, 0);
  let newline = head.indexOf(10);
  if (newline === -1 || newline >= headLength) {
    // An index longer than the first read (never, with some hundred modules): read it all.
    head = fs.readFileSync(fd);
    headLength = head.length;
    newline = head.indexOf(10);
  }
  const index = JSON.parse(head.toString("utf8", 0, newline));
  const startup = new Set(index["#startup"] ?? []);
  delete index["#startup"];
  const base = newline + 1;
  return {
    has: (key) => Object.hasOwn(index, key),
    /** The modules every command loads (scripts/build.mjs, startupModules). */
    startup,
    /** [key, text] of each of them, in one read: they follow dist/cli.js in the pack. */
    readStartup() {
      const entries = [...startup].map((key) => [key, index[key]]);
      const from = base + Math.min(...entries.map(([, [offset]]) => offset));
      const to = base + Math.max(...entries.map(([, [offset, length]]) => offset + length));
      let bytes = head;
      let start = 0;
      if (to > headLength) {
        bytes = Buffer.allocUnsafe(to - from);
        readFully(bytes, from);
        start = from;
      }
      return entries.map(([key, [offset, length]]) => [
        key,
        bytes.toString("utf8", base + offset - start, base + offset + length - start),
      ]);
    },
    /** The text of dist/KEY ("/" or the platform's separator). */
    read(key) {
      const entry = index[path.sep === "/" ? key : key.split(path.sep).join("/")];
      if (entry === undefined) {
        const error = new Error(
          `Cannot find module '${path.join(dist, key)}' in ${path.join(dist, "modules.pack")}`,
        );
        error.code = "MODULE_NOT_FOUND";
        throw error;
      }
      const start = base + entry[0];
      const end = start + entry[1];
      if (end <= headLength) return head.toString("utf8", start, end);
      const bytes = Buffer.allocUnsafe(entry[1]);
      readFully(bytes, start);
      return bytes.toString("utf8");
    },
  };

  function readFully(bytes, position) {
    let done = 0;
    while (done < bytes.length) {
      const n = fs.readSync(fd, bytes, done, bytes.length - done, position + done);
      if (n === 0)
        throw new Error(`${path.join(dist, "modules.pack")}: cut short (rebuild or reinstall cpctl)`);
      done += n;
    }
  }
}

/** FNV-1a of `text`'s UTF-16 code units, as 8 hex digits: a short name for a set of names. */
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/**
 * $CPCTL_CACHE_DIR, else the platform's per-user cache directory, + compile-cache/ + one
 * directory per cpctl version, Node version and architecture; null when there is none.
 */
function compileCacheDir() {
  const env = process.env;
  if (env.CPCTL_COMPILE_CACHE === "0") return null;
  let root = env.CPCTL_CACHE_DIR;
  if (!root) {
    const home = env.HOME || (process.platform === "win32" ? env.USERPROFILE : "");
    if (env.XDG_CACHE_HOME) root = path.join(env.XDG_CACHE_HOME, "cpctl");
    else if (process.platform === "win32" && env.LOCALAPPDATA)
      root = path.join(env.LOCALAPPDATA, "cpctl", "Cache");
    else if (!home) return null;
    else if (process.platform === "darwin") root = path.join(home, "Library", "Caches", "cpctl");
    else root = path.join(home, ".cache", "cpctl");
  }
  if (!path.isAbsolute(root)) return null;
  return path.join(root, "compile-cache", `${packageVersion()}-node${process.version}-${process.arch}`);
}

/**
 * Writes, at exit, the code V8 has for the chunks this run compiled: those that had no
 * usable cache, and all of them when this run loaded a set of chunks not seen before (the
 * first `deploy create` after a `deploy list` runs functions of the shared chunks that the
 * list did not: their cache is written again, now with both). The sets seen are recorded,
 * as hashes, in a file `runs` beside the cache. Each file is written through a temporary
 * name and a rename, so that a concurrent run never reads half a file. When anything is
 * written, what belongs to other builds goes: files of chunks that this dist/ no longer has
 * (not in its modules.pack), another set of startup modules' file, and the directories of
 * other cpctl versions for this Node. Failures are ignored: it is a
 * cache.
 */
function saveCompileCache(cacheDir, pack, compiled) {
  if (compiled.length === 0) return;
  try {
    const runsFile = path.join(cacheDir, "runs");
    const names = compiled.map((chunk) => chunk.name).sort();
    const key = fnv1a(names.join("\n"));
    let runs = "";
    try {
      runs = fs.readFileSync(runsFile, "utf8");
    } catch {
      // No run recorded yet.
    }
    const seen = runs.split("\n").includes(key);
    const toWrite = seen ? compiled.filter((chunk) => chunk.miss) : compiled;
    if (toWrite.length === 0) return;

    const created = fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    const write = (file, data) => {
      const temporary = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, data);
      fs.renameSync(temporary, file);
    };
    for (const { name, script } of toWrite) write(path.join(cacheDir, name), script.createCachedData());
    // The most recent sets, so that the file stays small.
    if (!seen) write(runsFile, `${[...runs.split("\n").filter(Boolean).slice(-199), key].join("\n")}\n`);

    const current = new Set(names);
    for (const name of fs.readdirSync(cacheDir)) {
      if (current.has(name) || !name.endsWith(".cache")) continue;
      if (!pack.has(`chunks/${name.replace(/^chunks\+/, "").replace(/\.cache$/, "")}`))
        fs.rmSync(path.join(cacheDir, name), { force: true });
    }
    if (created !== undefined) {
      const own = path.basename(cacheDir);
      const suffix = own.slice(own.lastIndexOf("-node"));
      const parent = path.dirname(cacheDir);
      for (const name of fs.readdirSync(parent)) {
        if (name !== own && name.endsWith(suffix))
          fs.rmSync(path.join(parent, name), { recursive: true, force: true });
      }
    }
  } catch {
    // A read-only or full disk: run without a cache.
  }
}
