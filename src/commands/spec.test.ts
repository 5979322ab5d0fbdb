// optionsAre: `npm run typecheck` fails when a command's flags and its operation's input differ.
// Each `@ts-expect-error` below is itself checked: were the check to let the mismatch through,
// the directive would be unused, and that is a type error too.
import { describe, expect, it } from "vitest";
import { defineCommand, optionsAre } from "./spec.js";

type Input = { name?: string; force?: boolean };

const matching = defineCommand({
  configure: (command) => command.option("--name <name>").option("--force"),
  run: async () => {},
});
const extraFlag = defineCommand({
  configure: (command) => command.option("--name <name>").option("--force").option("--tag <tag>"),
  run: async () => {},
});
const missingFlag = defineCommand({
  configure: (command) => command.option("--name <name>"),
  run: async () => {},
});
const wrongType = defineCommand({
  configure: (command) => command.option("--name <name>").option("--force <n>", "", Number),
  run: async () => {},
});

describe("optionsAre", () => {
  it("takes a command whose flags parse to exactly the input, and only such a one", () => {
    expect(optionsAre<Input>()(matching)).toBe(matching);
    // @ts-expect-error a flag (--tag) the input does not read
    optionsAre<Input>()(extraFlag);
    // @ts-expect-error an input field (force) no flag gives
    optionsAre<Input>()(missingFlag);
    // @ts-expect-error --force parses to a number, the input reads a boolean
    optionsAre<Input>()(wrongType);
  });
});
