// Text that came from a server or a file (names, image URIs, messages, file names) is shown
// on a terminal only once every character a terminal would act on is made visible: an escape
// sequence in a deployment name must not recolour, retitle, clear or rewrite the screen, a
// carriage return must not overwrite what was printed before it, and a bidirectional override
// must not reorder what the user reads. Machine formats keep the exact value (output/encode.ts).
//
// It is also the one way text for a person is written (stderr, and stdout on a terminal):
// `writeText` escapes a plain string; what the program styles itself (colours, a line redrawn
// with \r) is `Styled`, made by `styled` and a paint (`painted`), which escape every piece of
// data they are given. Results go through output/printer.ts, which writes with it too; a
// document cpctl makes whole (a completion script, the schema) through writeText itself.
// src/output/safe-text.test.ts fails when a module writes to stderr or stdout around them.
// No imports but types: main.ts's error reporter uses it on every run.
import type { OutStream } from "../io.js";

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

/**
 * Text the program styled itself: colour codes or a redraw (`\r`, erase line) of its own, every
 * piece of data in it escaped when it was made. Only this module makes one (`styled`, `painted`).
 */
class StyledText {
  constructor(readonly text: string) {}

  /** Put in a plain string by mistake: shown escaped, colour codes and all, never acted on. */
  toString(): string {
    return visibleLines(this.text);
  }
}

export type Styled = StyledText;

/** A value put into styled text: a string is escaped (line feeds and tabs kept), styled text kept. */
function escaped(value: string | number | Styled): string {
  return value instanceof StyledText ? value.text : visibleLines(String(value));
}

/**
 * A tag for template literals: the literal parts are the program's own (they may hold `\r` and
 * escape sequences), every value is escaped unless it is styled already:
 * styled`${paint.bold("1.")} packed ${name}\n`.
 */
export function styled(parts: TemplateStringsArray, ...values: (string | number | Styled)[]): Styled {
  let text = parts[0] ?? "";
  for (let i = 0; i < values.length; i++) text += escaped(values[i]!) + (parts[i + 1] ?? "");
  return new StyledText(text);
}

/** Lines (styled or plain, plain ones escaped) joined by line feeds. */
export function joinLines(lines: readonly (string | Styled)[]): Styled {
  return new StyledText(lines.map(escaped).join("\n"));
}

/** A colour of the program's: what it is given is escaped first (unless styled already), then coloured. */
export function painted(colour: (text: string) => string): (text: string | Styled) => Styled {
  return (text) => new StyledText(colour(escaped(text)));
}

/** The program's colours: each escapes what it is given, then colours it (log.ts's paintFor). */
export interface Paint {
  yellow(text: string | Styled): Styled;
  red(text: string | Styled): Styled;
  dim(text: string | Styled): Styled;
  bold(text: string | Styled): Styled;
  green(text: string | Styled): Styled;
}

const uncoloured = painted((text) => text);
/** No colour: every text escaped, nothing added. */
export const NO_PAINT: Paint = {
  yellow: uncoloured,
  red: uncoloured,
  dim: uncoloured,
  bold: uncoloured,
  green: uncoloured,
};

/**
 * Writes text for a person: a plain string with every character a terminal acts on shown
 * escaped (line feeds and tabs kept), styled text as it was made. The caller ends the line.
 */
export function writeText(out: OutStream, text: string | Styled): void {
  out.write(escaped(text));
}
