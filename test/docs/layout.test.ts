// docs/development.md's "Layout" is held to the tree: every path it names exists, every folder
// of src/ is named, and a folder whose rooms it lists (indented under it) has each of its
// subfolders listed. A folder added, moved or removed fails here until the layout says so.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;
const DOC = "docs/development.md";

/** The paths the layout block names, whole from the repository's root, with the folders whose rooms it lists. */
function layoutPaths(): { paths: string[]; listed: Set<string> } {
  const text = readFileSync(join(ROOT, DOC), "utf8");
  const section = text.slice(text.indexOf("## Layout"));
  const block = /```text\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error(`${DOC} has no text block under "## Layout"`);
  const paths: string[] = [];
  const listed = new Set<string>();
  let parent = "";
  for (const line of block.split("\n")) {
    // A path starts a line (a folder's room: two spaces in); a longer indent continues the line above.
    const match = /^( {2})?(\S+)/.exec(line);
    if (!match || /^ {3}/.test(line)) continue;
    const [, indent, name] = match as unknown as [string, string | undefined, string];
    if (indent) {
      paths.push(parent + name);
      listed.add(parent);
    } else {
      paths.push(name);
      if (name.endsWith("/")) parent = name;
    }
  }
  return { paths, listed };
}

function folders(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${dir}${entry.name}/`);
}

const { paths, listed } = layoutPaths();

test(`every path ${DOC}'s layout names exists`, () => {
  expect(paths.length).toBeGreaterThan(10);
  const missing = paths.filter((path) => !existsSync(join(ROOT, path)));
  expect(missing, `named in ${DOC} but not in the tree`).toEqual([]);
});

test(`every folder of src/ is in ${DOC}'s layout, and every room of a folder whose rooms it lists`, () => {
  expect(listed.size).toBeGreaterThan(0);
  const unnamed = [...folders("src/"), ...[...listed].flatMap((folder) => folders(folder))].filter(
    (folder) => !paths.includes(folder),
  );
  expect(unnamed, `folders missing from ${DOC}'s layout`).toEqual([]);
});
