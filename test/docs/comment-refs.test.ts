// A comment that sends the reader to a section of the docs (`docs/emulator.md, "Emulator
// controls"`, `docs/output.md ("In CI")`, `docs/deployments.md#waiting`) names one that exists:
// a section renamed or folded away leaves no comment pointing at nothing.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const REFERENCE = /docs\/([a-z0-9-]+\.md)(?:(?:,\s*(?:\/\/\s*)?|\s*\(\s*)"([^"]+)"|#([a-z0-9-]+))/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path);
    return /\.(ts|mjs|cjs)$/.test(entry.name) && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, "")
    .replace(/ /g, "-");

function headings(file: string): string[] {
  return readFileSync(join(ROOT, "docs", file), "utf8")
    .split("\n")
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => line.replace(/^#+ /, "").trim());
}

describe("comments that point into the docs", () => {
  it("name a file and a section that exist", () => {
    const broken: string[] = [];
    let seen = 0;
    for (const path of [
      ...sourceFiles(join(ROOT, "src")),
      ...sourceFiles(join(ROOT, "scripts")),
      join(ROOT, "bin", "cpctl.cjs"),
    ]) {
      if (!existsSync(path)) continue;
      // Comments wrap: a reference may run over `//` and a line break.
      const text = readFileSync(path, "utf8").replace(/\n\s*(?:\/\/|\*)\s*/g, " ");
      for (const match of text.matchAll(REFERENCE)) {
        seen++;
        const [, file, section, anchor] = match;
        const where = `${relative(ROOT, path)}: docs/${file}${section ? ` "${section}"` : ""}${anchor ? `#${anchor}` : ""}`;
        if (!existsSync(join(ROOT, "docs", file!))) {
          broken.push(`${where}: no such file`);
          continue;
        }
        const known = headings(file!);
        if (
          section &&
          !known.some(
            (heading) =>
              heading === section || heading.startsWith(`${section} `) || heading.startsWith(`${section}:`),
          )
        )
          broken.push(`${where}: no such section`);
        if (anchor && !known.map(anchorOf).includes(anchor)) broken.push(`${where}: no such anchor`);
      }
    }
    expect(broken).toEqual([]);
    expect(seen).toBeGreaterThan(5);
  });
});
