// The README lists every command with its summary, and the
// completion install lines name the files the scripts are checked in as.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { COMMANDS } from "../../src/commands/registry.js";
import { COMPLETION_FILES } from "../../src/completion/index.js";

const doc = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

test.each(COMMANDS.map((entry) => [entry.path.join(" "), entry.summary]))(
  "the README lists `cpctl %s` with its summary",
  (name, summary) => {
    const row = doc.split("\n").find((line) => line.startsWith(`| \`cpctl ${name}`));
    expect(row, `a table row for cpctl ${name}`).toBeDefined();
    expect(row).toContain(`| ${summary} |`);
  },
);

test("the completion section installs each shell's script", () => {
  for (const shell of ["bash", "zsh", "fish"]) expect(doc).toContain(`cpctl completion ${shell} >`);
  expect(doc).toContain(`/${COMPLETION_FILES.zsh}`);
  expect(doc).toContain(COMPLETION_FILES.fish);
});
