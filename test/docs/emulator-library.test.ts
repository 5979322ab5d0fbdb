// docs/emulator.md, "Use it from your own tests", is held to the code: its vitest example is
// test/docs/emulator-example.test.ts word for word (which the suite runs), and it names every
// option, member and exported name of src/emulator/public.ts, the module users import.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "./collect.js";

const DOC = "docs/emulator.md";
const EXAMPLE = "test/docs/emulator-example.test.ts";

function section(): string {
  const text = readFileSync(join(ROOT, DOC), "utf8");
  const start = text.indexOf("## Use it from your own tests");
  expect(start, `${DOC} has a "Use it from your own tests" section`).toBeGreaterThan(-1);
  const rest = text.slice(start + 1);
  const end = rest.search(/\n## /);
  return end === -1 ? rest : rest.slice(0, end);
}

test(`the vitest example of ${DOC} is ${EXAMPLE}, which the suite runs`, () => {
  const blocks = [...section().matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map(([, code]) => code);
  expect(blocks).toEqual([readFileSync(join(ROOT, EXAMPLE), "utf8")]);
});

test(`${DOC} names every option, member and export of src/emulator/public.ts`, () => {
  const source = readFileSync(join(ROOT, "src/emulator/public.ts"), "utf8");
  const interfaces = [...source.matchAll(/^export interface \w+ \{\n([\s\S]*?)^\}/gm)].map(
    ([, body]) => body!,
  );
  const members = interfaces.flatMap((body) =>
    [...body.matchAll(/^ {2}(?:readonly )?(\w+)\??[(:]/gm)].map(([, name]) => name!),
  );
  const exported = [
    ...source.matchAll(/^export (?:async function|function|interface|const) (\w+)/gm),
    ...[...source.matchAll(/^export type \{([^}]*)\}/gm)].flatMap(([, names]) =>
      names!.split(",").map((name) => [name, name.trim()]),
    ),
  ].map(([, name]) => name!);
  expect(members).toEqual(expect.arrayContaining(["stageMs", "url", "controls", "failNext", "advance"]));
  const text = section();
  const unnamed = [...members, ...exported].filter((name) => !new RegExp(`\`[^\`]*\\b${name}\\b`).test(text));
  expect(unnamed, `named in src/emulator/public.ts, missing from ${DOC}`).toEqual([]);
});
