// The links between README.md, RELIABILITY.md and docs/*.md lead somewhere: every relative
// link names a file that exists and, with a #fragment, a heading of that file (as GitHub
// makes its anchors); and in the package npm publishes, every such link of a markdown file it
// ships leads to a file it ships (the README on the registry's page links to docs/).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { expect, test } from "vitest";
import { markdownFiles, ROOT } from "./collect.js";

const files = [...markdownFiles(), "docs/commands.md"];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
function anchorOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(join(ROOT, file), "utf8").split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = anchorOf(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

function links(file: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  let fenced = false;
  readFileSync(join(ROOT, file), "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (/^\s*```/.test(line)) fenced = !fenced;
      if (fenced) return;
      for (const match of line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!/^[a-z]+:/i.test(match[1]!)) found.push({ target: match[1]!, line: i + 1 });
      }
    });
  return found;
}

test.each(files)("the links of %s lead somewhere", (file) => {
  const broken: string[] = [];
  for (const { target, line } of links(file)) {
    const [path = "", fragment] = target.split("#");
    const resolved = path === "" ? file : normalize(join(dirname(file), path));
    if (!existsSync(join(ROOT, resolved))) broken.push(`${file}:${line}: ${target} (no file ${resolved})`);
    else if (fragment !== undefined && resolved.endsWith(".md") && !anchors(resolved).has(fragment)) {
      broken.push(`${file}:${line}: ${target} (no heading #${fragment} in ${resolved})`);
    }
  }
  expect(broken).toEqual([]);
});

test("anchors are GitHub's", () => {
  expect(anchorOf("`${env:NAME}`: values from the environment")).toBe("envname-values-from-the-environment");
  expect(anchorOf("Uploading source (`internal_source` deployments)")).toBe(
    "uploading-source-internal_source-deployments",
  );
  expect(anchorOf("Confirmation: `confirm: true`")).toBe("confirmation-confirm-true");
});

test("the package ships every file its markdown files link to", () => {
  const packed = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, npm_config_loglevel: "error" },
  });
  const shipped = new Set(
    (JSON.parse(packed) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path),
  );
  const broken: string[] = [];
  for (const file of [...shipped].filter((path) => path.endsWith(".md"))) {
    for (const { target, line } of links(file)) {
      const path = target.split("#")[0]!;
      if (path === "") continue;
      const resolved = normalize(join(dirname(file), path)).replace(/\/$/, "");
      const found = shipped.has(resolved) || [...shipped].some((f) => f.startsWith(`${resolved}/`));
      if (!found) broken.push(`${file}:${line}: ${target} (${resolved} is not in the package)`);
    }
  }
  expect(broken).toEqual([]);
}, 60_000);
