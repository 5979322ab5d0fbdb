// dist/THIRD-PARTY-NOTICES.txt: the licences of the libraries the bundle inlines. The package
// has no runtime dependencies because the build copies commander, zod, yaml, undici and the
// rest into dist/; their licences (MIT, ISC, BSD, Apache-2.0...) ask that their copyright and
// permission notices go with every copy, so the build writes them beside the bundle, from the
// bundle's own inputs (esbuild's metafile): a library that joins or leaves the bundle joins or
// leaves this file. test/e2e/licence.test.ts checks it against the source maps.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

/** A package's own licence files: LICENSE, LICENCE, COPYING, NOTICE (any case, .md or .txt). */
const LICENCE_FILE = /^(licen[cs]e|copying|notice)(\.(md|txt|markdown))?$/i;

/** The node_modules folder of the package an input file belongs to, or null for our own files. */
function packageDirOf(input) {
  const at = input.lastIndexOf("node_modules/");
  if (at < 0) return null;
  const [first, second] = input.slice(at + "node_modules/".length).split("/");
  return `${input.slice(0, at)}node_modules/${first.startsWith("@") ? `${first}/${second}` : first}`;
}

/** The notices text for the packages whose files are among the metafile's inputs. */
export function thirdPartyNotices(metafile, root) {
  const dirs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const dir = packageDirOf(input);
    if (dir !== null) dirs.add(dir);
  }
  const entries = [...dirs].map((dir) => {
    const path = join(root, dir);
    const info = JSON.parse(readFileSync(join(path, "package.json"), "utf8"));
    const files = readdirSync(path)
      .filter((name) => LICENCE_FILE.test(name))
      .sort();
    const texts = files.map((file) => readFileSync(join(path, file), "utf8").trim());
    if (texts.length === 0) {
      // A few packages state their licence only in package.json: its name and the author, who
      // holds the copyright, are the notice there is.
      const author = typeof info.author === "string" ? info.author : info.author?.name;
      texts.push(
        `${relative(root, path)} has no licence file; its package.json says "license": "${info.license}"${author ? `, "author": "${author}"` : ""}.`,
      );
    }
    return { heading: `${info.name} ${info.version} (${info.license})`, name: info.name, texts };
  });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rule = "-".repeat(78);
  return [
    "cpctl bundles the following libraries into dist/. Each is distributed under its own",
    "licence, reproduced below as the library ships it. cpctl itself is under the MIT licence",
    "in LICENSE.",
    "",
    ...entries.map((entry) => entry.heading),
    "",
    ...entries.flatMap((entry) => [rule, entry.heading, "", ...entry.texts.flatMap((text) => [text, ""])]),
  ].join("\n");
}

export function writeThirdPartyNotices(metafile, root, file) {
  writeFileSync(file, thirdPartyNotices(metafile, root));
}
