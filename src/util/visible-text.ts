// Text that came from a server or a file (names, image URIs, messages, file names) is shown
// on a terminal only once every character a terminal would act on is made visible: an escape
// sequence in a deployment name must not recolour, retitle, clear or rewrite the screen, a
// carriage return must not overwrite what was printed before it, and a bidirectional override
// must not reorder what the user reads. The rule of what is shown, and how, for the CLI's
// output (output/safe-text.ts writes every text for a person with it) and the emulator's lines
// for its operator alike. No imports: both load it on every run.

/**
 * C0 controls (tab and line feed among them), DEL, C1 controls (U+0080-U+009F: some terminals
 * read U+009B as CSI), the bidirectional marks and overrides, and UTF-16 surrogates that are
 * not part of a pair (no UTF-8 form).
 */
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** As UNSAFE, but a line feed and a tab are text layout, left as they are. */
const UNSAFE_IN_LINES =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * How one such character is shown: `\x1b` for the 8-bit ones, `\u202e` for the others, as a
 * programmer would write it; a lone surrogate becomes U+FFFD, the replacement character.
 */
function shown(char: string): string {
  const code = char.charCodeAt(0);
  if (code >= 0xd800 && code <= 0xdfff) return "\ufffd";
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** One line (a table cell, an ID): every control character shown as an escape, line feeds too. */
export function visible(text: string): string {
  return text.replace(UNSAFE, shown);
}

/** A message of one or more lines: as `visible`, but line feeds and tabs stay. */
export function visibleLines(text: string): string {
  return text.replace(UNSAFE_IN_LINES, shown);
}
