// Bundles the CLI into dist/ with code splitting, so that a command loads only the
// chunks it needs (prompts, spinners, YAML and the schema model come in lazily).
//
// Start-up choices, each measured (docs/performance.md):
// - No `createRequire` banner: bundled CommonJS code gets a `require` that only returns
//   Node builtins, through process.getBuiltinModule (Node >= 20.16); importing node:module
//   on every start is not needed, and nothing can be loaded from node_modules at run time.
// - dist/cli.js imports nothing statically, so `--version` reads one file: esbuild adds a
//   bare import of its helper chunk to every entry point (evanw/esbuild#1892); it is blanked
//   here when that chunk holds only esbuild's helpers and the entry uses none of them.
// - yaml is bundled from its ES module build: the CommonJS one, loaded by `import("yaml")`
//   in a split chunk, exposes only `default`, so named imports came out undefined.
// - commander loads node:child_process (with net and dgram, ~4 ms) only for executable
//   subcommands, which cpctl does not use: that one require is made lazy.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { build } from "esbuild";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const outdir = join(root, "dist");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const requireHere = createRequire(import.meta.url);

/** `require` for the bundle's CommonJS parts: Node builtins only. */
const BANNER =
  "const require=(id)=>{const m=process.getBuiltinModule(id);if(m)return m;" +
  "const e=new Error(`Cannot find module '${id}' (cpctl bundles its dependencies)`);e.code='MODULE_NOT_FOUND';throw e};";

const yamlAsEsm = {
  name: "yaml-esm",
  setup(b) {
    const esm = join(dirname(requireHere.resolve("yaml/package.json")), "browser", "index.js");
    if (!existsSync(esm)) {
      console.warn(`build: ${esm} not found; yaml is bundled from its CommonJS build`);
      return;
    }
    b.onResolve({ filter: /^yaml$/ }, () => ({ path: esm }));
  },
};

const CHILD_PROCESS_REQUIRE = "const childProcess = require('node:child_process');";
const lazyChildProcess = {
  name: "commander-lazy-child-process",
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      if (!source.includes(CHILD_PROCESS_REQUIRE)) {
        console.warn(`build: ${relative(root, args.path)} changed; node:child_process stays eager`);
        return undefined;
      }
      const lazy =
        "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
      return { contents: source.replace(CHILD_PROCESS_REQUIRE, lazy), loader: "js" };
    });
  },
};

// cosmiconfig can load `.ts` config files and so imports the TypeScript compiler (3.5 MB
// minified, 22 MB unpacked with its source map). cpctl reads only the files config/paths.ts
// finds (.cpctlrc*, cpctl.config.mjs, package.json), never a .ts one: bundle a stub instead.
const noTypeScript = {
  name: "no-typescript",
  setup(b) {
    b.onResolve({ filter: /^typescript$/ }, () => ({ path: "typescript", namespace: "no-typescript" }));
    b.onLoad({ filter: /.*/, namespace: "no-typescript" }, () => ({
      contents:
        'throw new Error("TypeScript config files are not supported by cpctl: use .cpctlrc.yaml, .cpctlrc.json or cpctl.config.mjs");',
      loader: "js",
    }));
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: { cli: "src/cli.ts" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  minify: true,
  sourcemap: "linked",
  chunkNames: "chunks/[name]-[hash]",
  define: { __CPCTL_VERSION__: JSON.stringify(pkg.version) },
  banner: { js: BANNER },
  plugins: [yamlAsEsm, lazyChildProcess, noTypeScript],
  metafile: true,
  logLevel: "warning",
});

blankHelperImports(result.metafile);
pruneStaleOutputs(result.metafile);

/** Blanks (same length, so the source map still lines up) the entry's bare helper import. */
function blankHelperImports(metafile) {
  for (const [output, info] of Object.entries(metafile.outputs)) {
    if (!info.entryPoint) continue;
    const file = join(root, output);
    let text = readFileSync(file, "utf8");
    for (const imported of info.imports) {
      if (imported.kind !== "import-statement" || imported.external) continue;
      // Only esbuild's own helpers (no input file of ours or of a dependency) are safe to drop.
      if (Object.keys(metafile.outputs[imported.path]?.inputs ?? { x: 1 }).length > 0) continue;
      const specifier = `./${relative(dirname(file), join(root, imported.path)).split("\\").join("/")}`;
      const statement = `import"${specifier}";`;
      if (text.includes(statement)) text = text.replace(statement, " ".repeat(statement.length));
    }
    writeFileSync(file, text);
  }
}

/** Removes files of earlier builds (chunk names carry a hash), so that `npm pack` ships only these. */
function pruneStaleOutputs(metafile) {
  const current = new Set(Object.keys(metafile.outputs).map((output) => join(root, output)));
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!current.has(path)) rmSync(path, { force: true });
    }
  };
  walk(outdir);
}
