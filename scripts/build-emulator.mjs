// `cpctl/emulator` (docs/emulator.md, "Use it from your own tests"): src/emulator/public.ts as
// one ES module, dist/emulator/index.mjs, with its type declarations beside it: index.d.mts and
// those of the modules its types name (model/emulator-controls, model/enums), as package.json
// "exports" names them. scripts/build.mjs calls buildEmulator once the CLI is built.
//
// - The bundle holds all it runs (the emulator, the model, zod): the package has no runtime
//   dependencies. It loads nothing but Node's builtins (checked), and the licences of the
//   libraries it inlines must be in dist/THIRD-PARTY-NOTICES.txt, which the CLI's build wrote.
// - The declarations come from TypeScript's declaration emitter, file by file
//   (transpileDeclaration: each export states its type, as under isolatedDeclarations), from
//   public.ts and then whatever its declarations import. They must stand alone: a declaration
//   that imports a package (zod, node:http) fails the build, as a user's project may have none.
//   .mjs and .d.mts say they are ES modules whatever package.json is nearest.
// - Loading TypeScript costs about half a second of CPU and the test suite builds on every run,
//   so the declarations are kept with the SHA-256 of each source they came from
//   (node_modules/.cache/cpctl/emulator-types.json) and emitted again only when one changed.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ENTRY = "src/emulator/public.ts";
const NOTICES_FILE = "THIRD-PARTY-NOTICES.txt";

/** Builds dist/emulator/ (under `outdir`) from the sources under `root`. */
export async function buildEmulator({ root, outdir }) {
  const dir = join(outdir, "emulator");
  rmSync(dir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: [ENTRY],
    outfile: join(dir, "index.mjs"),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Readable: users step into it from their own tests.
    minify: false,
    metafile: true,
    logLevel: "warning",
  });
  checkImports(result.metafile);
  checkNotices(result.metafile, join(outdir, NOTICES_FILE));
  for (const [name, text] of Object.entries(declarations(root))) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

function checkImports(metafile) {
  const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
  const foreign = Object.values(metafile.outputs).flatMap((output) =>
    output.imports.filter((imported) => imported.external && !builtins.has(imported.path)),
  );
  if (foreign.length > 0) {
    throw new Error(
      `build: cpctl/emulator loads from outside itself: ${foreign.map((imported) => imported.path).join(", ")}`,
    );
  }
}

function checkNotices(metafile, noticesPath) {
  const notices = readFileSync(noticesPath, "utf8");
  const packages = new Set(
    Object.keys(metafile.inputs)
      .map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1])
      .filter((name) => name !== undefined),
  );
  const missing = [...packages].filter((name) => !notices.includes(name));
  if (missing.length > 0) {
    throw new Error(
      `build: cpctl/emulator inlines ${missing.join(", ")}, whose licence ${NOTICES_FILE} lacks (scripts/third-party-notices.mjs)`,
    );
  }
}

/** name in dist/emulator/ -> text, for the declarations of ENTRY and every module they import. */
function declarations(root) {
  const cacheFile = join(root, "node_modules", ".cache", "cpctl", "emulator-types.json");
  const key = hash(
    readFileSync(fileURLToPath(import.meta.url), "utf8") +
      readFileSync(join(root, "node_modules", "typescript", "package.json"), "utf8"),
  );
  const cached = existsSync(cacheFile) ? JSON.parse(readFileSync(cacheFile, "utf8")) : null;
  const fresh = (sources) =>
    Object.entries(sources).every(
      ([file, sha]) => existsSync(join(root, file)) && hash(readFileSync(join(root, file), "utf8")) === sha,
    );
  if (cached?.key === key && fresh(cached.sources)) return cached.outputs;

  const ts = createRequire(import.meta.url)("typescript");
  const sources = {};
  const outputs = {};
  const queue = [ENTRY];
  for (const file of queue) {
    const text = readFileSync(join(root, file), "utf8");
    sources[file] = hash(text);
    const emitted = ts.transpileDeclaration(text, {
      fileName: file,
      reportDiagnostics: true,
      compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true },
    });
    if (emitted.diagnostics.length > 0) {
      const problems = emitted.diagnostics.map((diagnostic) => {
        const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
        return `${file}:${line + 1}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")}`;
      });
      throw new Error(
        `build: the type declarations of cpctl/emulator include ${file}, whose exports must state their types:\n${problems.join("\n")}`,
      );
    }
    let dts = emitted.outputText;
    // Rewritten from the last to the first, so that the positions still hold.
    const imports = ts.preProcessFile(dts, true, true).importedFiles.sort((a, b) => b.pos - a.pos);
    for (const { fileName: spec, pos } of imports) {
      if (!spec.startsWith(".")) {
        throw new Error(
          `build: the type declarations of cpctl/emulator would import ${spec} (from ${file}): a user's project may not have it; name only plain types in public.ts's signatures`,
        );
      }
      const target = relative(root, resolve(root, dirname(file), spec)).replace(/\.js$/, ".ts");
      if (!queue.includes(target)) queue.push(target);
      let path = relative(dirname(outputName(file)), outputName(target)).replace(/\.d\.mts$/, ".mjs");
      if (!path.startsWith(".")) path = `./${path}`;
      // (`pos` is that of the quote before the specifier, in TypeScript 5.9.)
      const at = dts.indexOf(spec, pos);
      dts = dts.slice(0, at) + path + dts.slice(at + spec.length);
    }
    outputs[outputName(file)] = dts;
  }
  mkdirSync(dirname(cacheFile), { recursive: true });
  writeFileSync(cacheFile, JSON.stringify({ key, sources, outputs }));
  return outputs;
}

/** src/emulator/public.ts -> index.d.mts; src/model/enums.ts -> model/enums.d.mts. */
function outputName(file) {
  return file === ENTRY ? "index.d.mts" : relative("src", file).replace(/\.ts$/, ".d.mts");
}

function hash(text) {
  return createHash("sha256").update(text).digest("hex");
}
