// The imports of src/ go one way. Read as arrows between rooms (a folder of src/, or a file at
// its top), they draw no circle but through the arrows that docs/development.md lists under
// "Arrows that run back up", each with its reason; and no two files of src/ import each other,
// however indirectly; below the commands and operations, no file imports context.ts. An import
// that closes a circle fails here until it is removed or listed. And the emulator stands on its
// own (users import it: `cpctl/emulator`): it, and all it imports, stays within src/emulator,
// src/model and src/util, loading nothing but Node's builtins and zod.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { expect, test } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;
const DOC = "docs/development.md";

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** file -> the files of src/ it imports: static, type-only, re-exported and import() alike. */
function importsOf(files: readonly string[]): Map<string, Set<string>> {
  const known = new Set(files);
  const graph = new Map<string, Set<string>>();
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm;
  for (const file of files) {
    const targets = new Set<string>();
    for (const [, spec] of readFileSync(join(ROOT, file), "utf8").matchAll(pattern)) {
      const target = relative(ROOT, resolve(ROOT, dirname(file), spec!)).replace(/\.js$/, ".ts");
      if (known.has(target)) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The packages a file imports (bare specifiers: `node:fs`, `zod/mini`), static or import(). */
function packagesOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const pattern =
    /(?:^\s*(?:import|export)\b[^;]*?\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"'.][^"']*)["']/gm;
  return [...text.matchAll(pattern)].map(([, spec]) => spec!);
}

/** The groups of nodes that reach each other (Tarjan), those of two nodes or more. */
function circles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      group.push(member);
    } while (member !== node);
    if (group.length > 1) found.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const roomOf = (file: string) => {
  const parts = file.split("/");
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : file;
};

/** `A` -> `B` arrows listed in the doc's section, as "A -> B". */
function listedArrows(): string[] {
  const text = readFileSync(join(ROOT, DOC), "utf8");
  const start = text.indexOf("### Arrows that run back up");
  if (start === -1) throw new Error(`${DOC} has no "Arrows that run back up" section`);
  const rest = text.slice(start + 1);
  const end = rest.search(/\n#{2,3} /);
  const section = end === -1 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^- `([^`]+)` -> `([^`]+)`/gm)].map(([, from, to]) => `${from} -> ${to}`);
}

const files = sourceFiles("src");
const fileGraph = importsOf(files);

test("no two files of src/ import each other, however indirectly", () => {
  expect(files.length).toBeGreaterThan(100);
  expect(circles(fileGraph)).toEqual([]);
});

test("below the commands and operations, nothing takes the whole context (context.ts)", () => {
  const above = /^src\/(commands|operations)\/|^src\/(main|program|report|context-factory)\.ts$/;
  const takers = files.filter((file) => !above.test(file) && fileGraph.get(file)!.has("src/context.ts"));
  expect(takers, "take the members of RunContext (run-context.ts) they use instead").toEqual([]);
});

test(`between the rooms of src/, no circle but through the arrows ${DOC} lists`, () => {
  const listed = listedArrows();
  const rooms = new Map<string, Set<string>>();
  const arrows = new Set<string>();
  for (const [file, targets] of fileGraph) {
    const from = roomOf(file);
    if (!rooms.has(from)) rooms.set(from, new Set());
    for (const target of targets) {
      const to = roomOf(target);
      if (to === from) continue;
      arrows.add(`${from} -> ${to}`);
      if (!listed.includes(`${from} -> ${to}`)) rooms.get(from)!.add(to);
    }
  }
  expect(
    listed.filter((arrow) => !arrows.has(arrow)),
    `listed in ${DOC} but no longer in the code`,
  ).toEqual([]);
  expect(circles(rooms), `circles of rooms: list the arrow that runs back up, or remove it`).toEqual([]);
});

test("src/emulator, and all it imports, stays within src/emulator, src/model and src/util (Node and zod aside)", () => {
  const within = /^src\/(emulator|model|util)\//;
  const libraries = /^(node:[a-z_/]+|zod(\/mini)?)$/;
  const emulator = files.filter((file) => file.startsWith("src/emulator/"));
  expect(emulator.length).toBeGreaterThan(50);
  const reached = new Set(emulator);
  const outside: string[] = [];
  for (const file of reached) {
    for (const target of fileGraph.get(file)!) {
      if (!within.test(target)) outside.push(`${file} -> ${target}`);
      else reached.add(target);
    }
    for (const spec of packagesOf(file)) if (!libraries.test(spec)) outside.push(`${file} -> ${spec}`);
  }
  expect(
    outside,
    "the emulator imports only src/emulator, src/model, src/util, Node and zod: move what it shares with the CLI there",
  ).toEqual([]);
  expect([...reached].some((file) => file.startsWith("src/model/"))).toBe(true);
});
