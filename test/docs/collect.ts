// Where the examples come from: the Examples section of every command's --help (one example
// a line, `\` continuing it), and the fenced blocks of README.md, RELIABILITY.md and docs/*.md:
// a `sh`/`bash`/`shell` block is one script, run top to bottom; in a `console` block the
// lines after `$ ` are; in a `yaml` block, the `npx cpctl ...` lines a CI job runs. A block
// without a cpctl command is nobody's example. docs/commands.md is generated from the help,
// whose examples run one by one here, so its blocks are not read again.
//
// An HTML comment on the line before a block's opening fence says how to take it:
//   <!-- not-run: REASON -->   illustrative: each cpctl command is only parsed (its flags
//                              and arguments checked), never run
//   <!-- exit: N -->           each cpctl command in the block is meant to exit N
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS } from "../../src/commands/registry.js";
import { runCli } from "../helpers/run-cli.js";

export interface Example {
  /** Where it is written: `README.md:42`, or `cpctl deploy patch --help`. */
  where: string;
  /** The shell text. */
  script: string;
  /** From a not-run marker: the reason; the example is parsed only. */
  notRun?: string;
  /** From an exit marker. */
  exit?: number;
}

export const ROOT = new URL("../../", import.meta.url).pathname;

/** The markdown files whose examples run, relative to the repository root. */
export function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md") && name !== "commands.md")
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", "RELIABILITY.md", ...docs];
}

const SHELL_LANGS = new Set(["sh", "bash", "shell", "console", "yaml", "yml"]);
const MARKER = /^<!--\s*(not-run|exit):\s*(.*?)\s*-->$/;

export function markdownExamples(file: string, text = readFileSync(join(ROOT, file), "utf8")): Example[] {
  const lines = text.split("\n");
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const lang = open[2]!;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++;
    const body = lines.slice(i + 1, end).map((line) => line.slice(indent));
    const start = i;
    i = end;
    if (!SHELL_LANGS.has(lang)) continue;
    const script = scriptOf(lang, body);
    if (!/(^|[\s($|;&])cpctl\s/m.test(script)) continue;
    const example: Example = { where: `${file}:${start + 1}`, script };
    const marker = MARKER.exec((lines[start - 1] ?? "").trim());
    if (marker?.[1] === "not-run") example.notRun = marker[2]!;
    if (marker?.[1] === "exit") example.exit = Number(marker[2]);
    examples.push(example);
  }
  return examples;
}

function scriptOf(lang: string, body: string[]): string {
  if (lang === "console") {
    return body
      .filter((line) => line.startsWith("$ "))
      .map((line) => line.slice(2))
      .join("\n");
  }
  if (lang === "yaml" || lang === "yml") {
    return body
      .map((line) => /^\s*(?:-\s+)?(?:run:\s+)?(npx\s+(?:--\S+\s+)*cpctl\s.*)$/.exec(line)?.[1])
      .filter((line): line is string => line !== undefined)
      .join("\n");
  }
  return body.join("\n");
}

/** Every example in the Examples sections of `cpctl --help` and each command's --help. */
export async function helpExamples(): Promise<Example[]> {
  const examples: Example[] = [];
  for (const path of [[], ...COMMANDS.map((entry) => [...entry.path])]) {
    const help = await runCli([...path, "--help"]);
    if (help.code !== 0) throw new Error(`cpctl ${path.join(" ")} --help exited ${help.code}`);
    const where = `cpctl ${[...path, "--help"].join(" ")}`;
    for (const script of examplesSection(help.stdout)) {
      if (/(^|[\s($])cpctl\s/.test(script)) examples.push({ where, script });
    }
  }
  return examples;
}

/** The lines of the `Examples:` section, a line ending in `\` joined with the next. */
export function examplesSection(help: string): string[] {
  const lines = help.split("\n");
  const start = lines.indexOf("Examples:");
  if (start === -1) return [];
  const examples: string[] = [];
  let current = "";
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith("  ")) break;
    current += current ? `\n${line.slice(2)}` : line.slice(2);
    if (!line.endsWith("\\")) {
      examples.push(current);
      current = "";
    }
  }
  return examples;
}
