// Writes docs/commands.md, the command reference, from the command definitions themselves
// (`npm run docs:commands`): scripts/command-reference/render.ts renders the commander tree
// that src/program.ts builds with every command module loaded, as the completion scripts
// are. Node cannot run TypeScript here, so esbuild bundles the two into one ES module under
// node_modules/.cache (where the packages it leaves out resolve) and this script imports it.
// With --check, writes nothing and exits 1 when the file is stale. The test that keeps the
// file current: test/docs/command-reference.test.ts.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const check = process.argv.includes("--check");

const cache = join(root, "node_modules", ".cache", "cpctl-docs");
mkdirSync(cache, { recursive: true });
const outfile = join(cache, `command-reference-${process.pid}.mjs`);
await build({
  absWorkingDir: root,
  stdin: {
    contents: [
      'import { commandTree } from "./src/program.ts";',
      'import { REFERENCE_FILE, renderCommandReference } from "./scripts/command-reference/render.ts";',
      "export const file = REFERENCE_FILE;",
      "export const render = async () => renderCommandReference(await commandTree());",
    ].join("\n"),
    resolveDir: root,
    loader: "ts",
  },
  outfile,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  define: { __CPCTL_VERSION__: JSON.stringify(pkg.version) },
  logLevel: "warning",
});
let file;
let text;
try {
  const reference = await import(pathToFileURL(outfile).href);
  file = reference.file;
  text = await reference.render();
} finally {
  rmSync(outfile, { force: true });
}
const path = join(root, file);
let current = null;
try {
  current = readFileSync(path, "utf8");
} catch {}
if (current === text) {
  console.error(`${file} is current`);
} else if (check) {
  console.error(`${file} is stale: run npm run docs:commands`);
  process.exitCode = 1;
} else {
  writeFileSync(path, text);
  console.error(`wrote ${file}`);
}
