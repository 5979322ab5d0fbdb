// Bundles cpctl into dist/ with one esbuild build: ES modules, split into chunks, so that a
// command loads only what it uses. Every dynamic import() in src/ is a place where the bundle
// splits: a command's module, prompts, spinners, YAML, zod, undici and the proxy transport come
// in when they are first needed (test/e2e/startup.test.ts checks what the common commands
// load). Also written: dist/THIRD-PARTY-NOTICES.txt, the licences of the libraries the bundle
// inlines. bin/cpctl.cjs loads dist/cli.js; docs/development.md ("Building") says why split.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, resolve } from "node:path";
import { build } from "esbuild";
import { writeThirdPartyNotices } from "./third-party-notices.mjs";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
// For profiling (docs/performance.md): CPCTL_BUILD_OUTDIR=/tmp/x builds elsewhere,
// CPCTL_BUILD_MINIFY=0 keeps names readable.
const outdir = process.env.CPCTL_BUILD_OUTDIR ? resolve(process.env.CPCTL_BUILD_OUTDIR) : join(root, "dist");
const minify = process.env.CPCTL_BUILD_MINIFY !== "0";
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** The bundle's entry points: dist/NAME.js for each (package.json "bin" runs dist/cli.js). */
const ENTRY_POINTS = {
  cli: "src/cli.ts",
};

/** The licences of the libraries the bundle inlines (scripts/third-party-notices.mjs). */
const NOTICES_FILE = "THIRD-PARTY-NOTICES.txt";

// The CommonJS libraries in the bundle (commander, undici, ora's) require() Node builtins, and
// nothing else (assertBuiltinsOnly): in an ES module their require is process.getBuiltinModule,
// which esbuild's require shim calls when a `require` is in scope.
const REQUIRE_BANNER = "const require=process.getBuiltinModule;";

// yaml's package maps Node to its CommonJS build, of which a split chunk can export only
// `default` (esbuild cannot list a CommonJS module's names), so `import("yaml")` came out with
// no parseDocument: the bundle takes the same library's ES module build.
const ALIASES = { yaml: "./node_modules/yaml/browser/index.js" };

const result = await build({
  absWorkingDir: root,
  entryPoints: ENTRY_POINTS,
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  minify,
  sourcemap: "linked",
  chunkNames: "chunks/[name]-[hash]",
  define: { __CPCTL_VERSION__: JSON.stringify(pkg.version) },
  alias: ALIASES,
  banner: { js: REQUIRE_BANNER },
  metafile: true,
  logLevel: "warning",
});
assertBuiltinsOnly(result.metafile);
pruneStaleOutputs(result.metafile);
writeThirdPartyNotices(result.metafile, root, join(outdir, NOTICES_FILE));
await (await import("./build-emulator.mjs")).buildEmulator({ root, outdir });

/**
 * The bundle may load nothing from outside itself but Node builtins: the package has no
 * runtime dependencies.
 */
function assertBuiltinsOnly(metafile) {
  // Builtins newer than Node 20 that a library asks for only where they exist: undici (the
  // proxy transport) probes node:sqlite for its optional cache store.
  const newerBuiltins = ["node:sqlite"];
  const builtins = new Set([...builtinModules.flatMap((name) => [name, `node:${name}`]), ...newerBuiltins]);
  const foreign = Object.entries(metafile.outputs).flatMap(([output, info]) =>
    info.imports
      .filter((imported) => imported.external && !builtins.has(imported.path))
      .map((imported) => `${imported.path} (${imported.kind}, ${output})`),
  );
  if (foreign.length) throw new Error(`build: the bundle loads from outside itself: ${foreign.join(", ")}`);
}

/** Removes files of earlier builds (chunk names carry a hash), so that `npm pack` ships only these. */
function pruneStaleOutputs(metafile) {
  const current = new Set(Object.keys(metafile.outputs).map((output) => join(root, output)));
  current.add(join(outdir, NOTICES_FILE));
  for (const entry of readdirSync(outdir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath ?? entry.path, entry.name);
    if (entry.isFile() && !current.has(path)) rmSync(path, { force: true });
  }
}
