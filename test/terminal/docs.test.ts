// The README lists every command: a row of its own with its summary, or a row of its group's
// (`cpctl secrets list\|set\|unset\|import ...`) naming it among the others; and the
// completion install lines name the files the scripts are checked in as.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { COMMANDS } from "../../src/commands/registry.js";
import { COMPLETION_FILES } from "../../src/completion/index.js";

const doc = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const rows = doc.split("\n").filter((line) => line.startsWith("| `cpctl "));

/** A row's command words, each alternative of a `a\|b\|c` word one of them. */
function commandsOf(row: string): { words: string[][]; grouped: boolean } {
  const cell = /^\| `cpctl ([^`]*)`/.exec(row)?.[1] ?? "";
  const words = cell.split(" ").map((word) => word.split("\\|"));
  const grouped = words.some((choices, i) => choices.length > 1 && !/[<[]/.test(cell.split(" ")[i]!));
  return { words, grouped };
}

test.each(COMMANDS.map((entry) => [entry.path.join(" "), entry]))(
  "the README lists `cpctl %s`",
  (_name, entry) => {
    const row = rows.find((line) => {
      const { words } = commandsOf(line);
      return entry.path.every((word, i) => words[i]?.includes(word));
    });
    expect(row, `a table row for cpctl ${entry.path.join(" ")}`).toBeDefined();
    // A row of its own says what the command does in the words of `cpctl --help`.
    if (!commandsOf(row!).grouped || entry.path.length === 1) expect(row).toContain(`| ${entry.summary} |`);
  },
);

test("the completion section installs each shell's script", () => {
  for (const shell of ["bash", "zsh", "fish"]) expect(doc).toContain(`cpctl completion ${shell} >`);
  expect(doc).toContain(`/${COMPLETION_FILES.zsh}`);
  expect(doc).toContain(COMPLETION_FILES.fish);
});
