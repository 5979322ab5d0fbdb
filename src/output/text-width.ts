// How many terminal columns a piece of text takes, and how to shorten it to fit, for the
// terminal table (table.ts). The text has already been through safe-text.ts's `visible`, so
// it holds no control characters: only printable characters, some of them wide (CJK, most
// emoji take two columns) and some of no width (combining marks, joiners, variation
// selectors). Counted a code point at a time: an emoji sequence joined by U+200D counts as
// its parts (a little too wide, never too narrow, so a line still fits).

/** Printable ASCII only: one column a character, the common case, measured by its length. */
const ASCII = /^[\x20-\x7e]*$/;

/**
 * Code points of no width: combining marks (variation selectors among them: they are Mn),
 * the zero-width space, joiners and the word joiner.
 */
const ZERO_WIDTH = /^(?:\p{Mn}|\p{Me}|[\u200b-\u200d]|\u2060)$/u;

/** Code points of two columns: East Asian wide and fullwidth ranges, emoji shown as emoji. */
const WIDE =
  /^[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{1b000}-\u{1b2ff}\u{1f200}-\u{1f2ff}\u{20000}-\u{2fffd}\u{30000}-\u{3fffd}\p{Emoji_Presentation}]$/u;

export const ELLIPSIS = "…";

function codePointWidth(char: string): number {
  if (ZERO_WIDTH.test(char)) return 0;
  return WIDE.test(char) ? 2 : 1;
}

/** Terminal columns `text` takes. */
export function displayWidth(text: string): number {
  if (ASCII.test(text)) return text.length;
  let width = 0;
  for (const char of text) width += codePointWidth(char);
  return width;
}

/**
 * `text` in at most `width` columns: as it is when it fits, else its beginning and an
 * ellipsis. Never splits a surrogate pair (it walks code points).
 */
export function shorten(text: string, width: number): string {
  if (width <= 0) return "";
  if (ASCII.test(text)) return text.length <= width ? text : `${text.slice(0, width - 1)}${ELLIPSIS}`;
  if (displayWidth(text) <= width) return text;
  let kept = "";
  let used = 0;
  for (const char of text) {
    const w = codePointWidth(char);
    if (used + w > width - 1) break;
    kept += char;
    used += w;
  }
  return `${kept}${ELLIPSIS}`;
}

/** `text` followed by spaces up to `width` columns (nothing added when it is that wide already). */
export function padEnd(text: string, width: number): string {
  const missing = width - displayWidth(text);
  return missing > 0 ? text + " ".repeat(missing) : text;
}
