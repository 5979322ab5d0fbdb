// Every example runs: each command line in the Examples section of `cpctl --help` and of every
// command's --help, and each shell block of README.md, RELIABILITY.md and docs/*.md, against a
// fresh in-process emulator holding what the examples name (test/docs/run-example.ts says how;
// test/docs/collect.ts where the examples come from and how a block is marked not-run).
import { describe, expect, test } from "vitest";
import { type Example, helpExamples, markdownExamples, markdownFiles } from "./collect.js";
import { runExample } from "./run-example.js";

const fromHelp = await helpExamples();
const fromDocs = markdownFiles().flatMap((file) => markdownExamples(file));

const cases = (examples: Example[]) =>
  examples.map((example) => [`${example.where}: ${example.script.split("\n")[0]}`, example] as const);

describe("the examples in --help", () => {
  test("every command's help has examples", () => {
    expect(fromHelp.length).toBeGreaterThan(50);
  });
  test.each(cases(fromHelp))("%s", async (_name, example) => {
    expect(await runExample(example)).toEqual([]);
  });
});

describe("the examples in the README and docs/", () => {
  test("the README has examples to run", () => {
    expect(fromDocs.filter((example) => example.where.startsWith("README.md")).length).toBeGreaterThan(3);
  });
  test.each(cases(fromDocs))("%s", async (_name, example) => {
    expect(await runExample(example)).toEqual([]);
  });
});
