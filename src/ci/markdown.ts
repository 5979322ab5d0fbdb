// Text from a server or a file, made safe for the GitHub step summary (GitHub-flavoured
// Markdown): a deployment name or a custom_url holding `|`, a backtick, `](`, `<` or a line
// break must not break out of its table cell, start a link or an HTML tag, or close a code
// block; and no escape sequence or bidirectional control reaches the file, where a reader's
// terminal or the rendered page would act on it (output/safe-text.ts shows them as escapes).
import { visible, visibleLines } from "../output/safe-text.js";

/**
 * Inline text (never at the start of a line): control characters shown as escapes, and every
 * mark that means something inside a line of GitHub's Markdown backslash-escaped: code,
 * emphasis, links and images, HTML and entities, table cells, strikethrough, math.
 */
export function text(value: string): string {
  return visible(value).replace(/[\\`*_[\]<>|~&$]/g, (mark) => `\\${mark}`);
}

/** An ID or a plain name as code (`my-agent`); anything with other characters as text. */
export function code(value: string): string {
  return /^[\w.:@/-]+$/.test(value) ? `\`${value}\`` : text(value);
}

/** A link to an http(s) URL, its text escaped and its target percent-encoded; anything else as text. */
export function link(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return text(value);
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || visible(value) !== value) return text(value);
  const target = url.href.replace(
    /[()<>\s|`\\]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `[${text(value)}](${target})`;
}

/**
 * A fenced code block: its lines with control characters shown as escapes, inside a fence
 * longer than any run of backticks in them (CommonMark), which nothing in the block can close.
 */
export function codeBlock(language: string, lines: readonly string[]): string[] {
  const body = lines.map((line) => visibleLines(line).replace(/\n/g, "\\n"));
  const longest = Math.max(
    0,
    ...body.map((line) => Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length))),
  );
  const fence = "`".repeat(Math.max(3, longest + 1));
  return [`${fence}${language}`, ...body, fence];
}
