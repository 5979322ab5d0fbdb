// What `cpctl --help` and every command's help say beyond commander's own rendering: the
// root lists every command under its heading from the registry alone (no command module is
// loaded), then the environment, examples and exit codes. And how help is laid out at the
// terminal's width: option descriptions beside or under their option (HELP_LAYOUT), the text
// after them wrapped between words (fitHelpText).
import { Command, Help } from "@commander-js/extra-typings";
import { COMMANDS, type CommandEntry, GROUPS, HEADINGS, type Heading } from "./commands/registry.js";

/** After each command's own help text and examples. */
export const GLOBAL_OPTIONS_HINT =
  "\nGlobal options (-o/--output, --json, --profile, --base-url, --no-input, -y, --debug, ...): see `cpctl --help`.";

/** The heading each command is listed under in `cpctl --help`: its top-level group's or command's. */
export function helpHeading(entry: CommandEntry): Heading {
  const root = entry.path[0];
  const heading =
    GROUPS.find((group) => group.name === root)?.heading ??
    COMMANDS.find((command) => command.path.length === 1 && command.path[0] === root)?.heading;
  if (!heading)
    throw new Error(`registry: no heading for ${entry.path.join(" ")}: give its top-level command one`);
  return heading;
}

/**
 * `cpctl --help` lists every command by its full name under its heading, from the registry
 * alone (no command module is loaded). These commands exist only to be listed. (The root's
 * help configuration is its own: commands added with addCommand do not inherit it.)
 */
export function rootHelpCommands(): Command[] {
  const rank = (entry: CommandEntry) => HEADINGS.indexOf(helpHeading(entry));
  // A stable sort: the registry's order within each heading.
  return [...COMMANDS]
    .sort((a, b) => rank(a) - rank(b))
    .map((entry) =>
      new Command(entry.path.join(" ")).description(entry.summary).helpGroup(`${helpHeading(entry)}:`),
    );
}

/**
 * After the root's command list. Written a logical line at a time: fitHelpText wraps it to the
 * terminal (or to 80 columns off one), a two-column line under its description column.
 */
export function rootHelpFooter(): string {
  const variables: [string, string][] = [
    ["CPCTL_API_KEY", "API key, sent as X-Api-Key (no flag: keep keys out of argv)"],
    ["CPCTL_BEARER_TOKEN", "bearer token, sent as Authorization: Bearer (no flag)"],
    ["CPCTL_BASE_URL, CPCTL_PROFILE", "as --base-url, --profile"],
    ["CPCTL_TENANT_ID, CPCTL_OUTPUT", "as --tenant-id, --output"],
    [
      "CPCTL_TENANT_HEADER",
      "header for the tenant ID (default X-Tenant-Id; not one HTTP or cpctl sets, e.g. Authorization or Host)",
    ],
    ["CPCTL_DEBUG=1", "as --debug"],
    ["NO_COLOR, TERM=dumb", "as --no-color"],
    ["FORCE_COLOR", "1/2/3/true: colour even to a pipe; 0/false: none (--no-color still wins)"],
    ["CI", "as --no-input; also no spinner"],
  ];
  const column = Math.max(...variables.map(([name]) => name.length)) + 2;
  return [
    "",
    "Environment:",
    ...variables.map(([name, meaning]) => `  ${name.padEnd(column)}${meaning}`),
    "",
    "Precedence: flag > environment > project config > user config > default. A project file's baseUrl gets none of your credentials unless your user config trusts the host (trustedHosts); its cpctl.config.mjs runs only in trustedDirectories.",
    "",
    "Control characters from a server or a file show as escapes (\\x1b) in table and text output; json and yaml keep the exact value, escaped. Read limits: -f FILE (or stdin) and --secrets-file 4 MiB each, --api-key-file 8 KiB; beyond them exit 2. SIGTERM, like Ctrl-C, ends a run at once (130), a read included.",
    "",
    "Examples:",
    "  cpctl emulator &                                  # a local control plane on 127.0.0.1:8124",
    "  export CPCTL_PROFILE=local                        # the built-in profile for it",
    "  cpctl deploy create -f deployment.yaml --wait",
    "  cpctl deploy list -o json | jq '.[].name'",
    "",
    "Exit codes: 0 ok, 1 failure, 2 usage or validation, 3 auth refused, 4 not found, 5 revision failed, 6 wait timed out, 7 deployed but unverified (--verify, status --check), 130 interrupted.",
    "",
    "Run `cpctl <command> --help` (e.g. `cpctl deploy create --help`) for its flags and examples.",
  ].join("\n");
}

/** The width of help off a terminal: commander's default. */
export const HELP_WIDTH = 80;

/** Narrower than this, an option's description goes under it instead of beside it. */
const MIN_DESCRIPTION_WIDTH = 28;
/** Where a description under its option starts. */
const STACKED_INDENT = 6;

/**
 * The help configuration of every command: commander wraps descriptions beside their options
 * at the terminal's width, and, where that column would be too narrow to read (or, by
 * commander's own rule, left unwrapped for the terminal to break mid-word), puts the
 * description under its option, wrapped to the width.
 */
export const HELP_LAYOUT = {
  minWidthToWrap: 20,
  formatItem(term: string, termWidth: number, description: string, helper: Help): string {
    const width = helper.helpWidth ?? 80;
    const beside = width - termWidth - 4;
    if (!description || fitsBeside(description, beside) || helper.preformatted(description))
      return Help.prototype.formatItem.call(helper, term, termWidth, description, helper);
    const indent = " ".repeat(STACKED_INDENT);
    const wrapped = helper.boxWrap(description, Math.max(helper.minWidthToWrap, width - STACKED_INDENT));
    return `  ${term}\n${wrapped.replace(/^/gm, indent)}`;
  },
};

/**
 * Whether a description reads well in a column `width` wide beside its option: the column is
 * wide enough, and so for each of its words (a `--set` path of 41 characters beside a wide
 * option would stick out past the terminal's edge, where under the option it fits).
 */
function fitsBeside(description: string, width: number): boolean {
  return width >= MIN_DESCRIPTION_WIDTH && description.split(/\s+/).every((word) => word.length <= width);
}

/**
 * Help text for a terminal `width` columns wide, as commander writes it (its option lists are
 * already wrapped by HELP_LAYOUT) with the text commands add after it: a paragraph with a line
 * wider than the terminal is wrapped at the width, between words; an indented line that is too
 * wide is wrapped under its own indentation (under its description in a two-column list), and
 * an example continues on the next line after a ` \`, so that it stays a command to copy.
 */
export function fitHelpText(text: string, width: number): string {
  if (width <= 0) return text;
  const lines = text.split("\n");
  const out: string[] = [];
  let inExamples = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "" || /^\s/.test(line)) {
      out.push(...(line.length > width ? wrapIndented(line, width, inExamples) : [line]));
      continue;
    }
    inExamples = line === "Examples:";
    // A paragraph: this line and the unindented lines after it, up to a heading (`Examples:`).
    let end = i + 1;
    const joins = (next: string) => next.trim() !== "" && !/^\s/.test(next) && !HEADING.test(next);
    if (!HEADING.test(line)) while (end < lines.length && joins(lines[end]!)) end++;
    const paragraph = lines.slice(i, end);
    out.push(
      ...(paragraph.some((l) => l.length > width) ? wrapWords(paragraph.join(" "), width, "") : paragraph),
    );
    i = end - 1;
  }
  return out.join("\n");
}

/** A line that heads what follows it: `Examples:`, `Options:`, `Environment:`. */
const HEADING = /^[A-Z][A-Za-z ]*:$/;

/** Words filling lines of at most `width` columns, each line after the first starting with `indent`. */
function wrapWords(
  text: string,
  width: number,
  indent: string,
  first = "",
  words = text.trim().split(/\s+/),
): string[] {
  const lines: string[] = [];
  let current = first;
  for (const word of words) {
    const start = lines.length === 0 ? first : indent;
    if (current.length > start.length && current.length + 1 + word.length > width) {
      lines.push(current);
      current = indent + word;
    } else current += (current.length > start.length ? " " : "") + word;
  }
  lines.push(current);
  return lines;
}

function wrapIndented(line: string, width: number, example: boolean): string[] {
  const indent = /^\s*/.exec(line)![0];
  if (example) {
    // A comment goes on a line of its own above its command; the command continues after ` \`
    // (an example starts two columns in, its continuation lines six).
    const comment = /^(.*?\S)\s+(# .*)$/.exec(line);
    if (comment) {
      const command = comment[1]!;
      return [
        `${indent}${comment[2]}`,
        ...(command.length > width ? wrapIndented(command, width, true) : [command]),
      ];
    }
    // Broken before an option, so that a flag stays with its value.
    const options = line
      .trim()
      .split(/ +(?=--?[A-Za-z])/)
      .flatMap((option) => (option.length > width - 8 ? option.split(/\s+/) : [option]));
    const continued = wrapWords(
      line,
      width - 2,
      indent.length >= 6 ? indent : `${indent}    `,
      indent,
      options,
    );
    return continued.map((part, i) => (i < continued.length - 1 ? `${part} \\` : part));
  }
  // Two columns (`  NAME      what it is`): the description wraps in its column, or under the
  // name when that column is too narrow.
  const columns = /^(\s+)(\S.*?)(\s{2,})(\S.*)$/.exec(line);
  if (columns) {
    const [, lead, term, gap, description] = columns as unknown as [string, string, string, string, string];
    const column = lead.length + term.length + gap.length;
    if (fitsBeside(description, width - column))
      return wrapWords(description, width, " ".repeat(column), lead + term + gap);
    const under = `${lead}    `;
    return [lead + term, ...wrapWords(description, width, under, under)];
  }
  // A continuation line of a column that no longer fits: under its item instead.
  const at = indent.length > width / 2 ? "      " : indent;
  return wrapWords(line, width, `${at}  `, at);
}
