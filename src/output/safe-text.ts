// Text that came from a server or a file is shown to a person only once every character a
// terminal would act on is made visible: util/visible-text.ts says which and how (`visible`,
// `visibleLines`, re-exported here). Machine formats keep the exact value (output/encode.ts).
//
// It is also the one way text for a person is written (stderr, and stdout on a terminal):
// `writeText` escapes a plain string; what the program styles itself (colours, a line redrawn
// with \r) is `Styled`, made by `styled` and a paint (`painted`), which escape every piece of
// data they are given. Results go through output/printer.ts, which writes with it too; a
// document cpctl makes whole (a completion script, the schema) through writeText itself.
// src/output/safe-text.test.ts fails when a module writes to stderr or stdout around them.
// No imports but types and the escaping rule: main.ts's error reporter uses it on every run.
import type { OutStream } from "../io.js";
import { visibleLines } from "../util/visible-text.js";

export { visible, visibleLines } from "../util/visible-text.js";

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
