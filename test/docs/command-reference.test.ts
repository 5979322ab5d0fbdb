// docs/commands.md is the command reference generated from the commander tree: a test fails
// when the checked-in file is not what the generator writes now (as completions/ are kept).
import { readFileSync } from "node:fs";
import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import { expect, test } from "vitest";
import {
  REFERENCE_FILE,
  REGENERATE,
  renderCommandReference,
} from "../../scripts/command-reference/render.js";
import { COMMANDS } from "../../src/commands/registry.js";
import { commandTree } from "../../src/program.js";

const rendered = renderCommandReference(await commandTree());

test(`${REFERENCE_FILE} is what the generator writes (regenerate: ${REGENERATE})`, () => {
  const checkedIn = readFileSync(new URL(`../../${REFERENCE_FILE}`, import.meta.url), "utf8");
  if (checkedIn !== rendered) {
    expect.fail(
      `${REFERENCE_FILE} is stale: regenerate it with \`${REGENERATE}\` (node scripts/command-reference.mjs) and commit it`,
    );
  }
});

test("it has a section for every command, with every option of it", async () => {
  const program = await commandTree();
  for (const entry of COMMANDS) {
    const heading = `### cpctl ${entry.path.join(" ")}\n\n${entry.summary}\n`;
    expect(rendered).toContain(heading);
    let command: CommandUnknownOpts = program;
    for (const word of entry.path) command = command.commands.find((c) => c.name() === word)!;
    const section = rendered.slice(rendered.indexOf(heading)).split("\n### ")[0]!;
    for (const option of command.options) expect(section).toContain(`| \`${option.flags}\` |`);
  }
});
