// How a change to a deployment is shown: `deploy diff`, and the preview every mutation writes
// on stderr before it sends. One line a field or secret: `+` added, `~` changed, `-` removed,
// `!` a field fixed at creation. Secret values are masked unless --show-secrets; an empty
// secret shows as empty, so that blanking one never reads as "**** -> ****". Every piece of
// data is made visible (output/safe-text.ts) before the lines are coloured.
import type { Change } from "../model/changes.js";
import { MASK } from "../secrets.js";
import { jsonText } from "./encode.js";
import { type Paint, type Styled, visible } from "./safe-text.js";

export interface ChangeStyle {
  showSecrets: boolean;
  paint: Paint;
}

/** The value as shown in JSON (diff -o json, the JSON preview): masked, never dropped. */
function shownValue(change: Change, value: unknown, showSecrets: boolean): unknown {
  if (!change.secret || showSecrets || value == null || value === "") return value;
  return MASK;
}

/** The change as JSON: diff's `changes[]` items and the preview's. */
export function changeAsJson(change: Change, showSecrets: boolean): Change {
  return {
    ...change,
    current: shownValue(change, change.current, showSecrets),
    desired: shownValue(change, change.desired, showSecrets),
  };
}

/** The lines of the changes, every piece of data escaped, coloured by the style's paint. */
export function changeLines(changes: readonly Change[], style: ChangeStyle): Styled[] {
  const { paint } = style;
  const text = (change: Change, value: unknown) => {
    const shown = shownValue(change, value, style.showSecrets);
    if (change.secret && shown === "") return "(empty)";
    if (change.secret && shown === MASK) return MASK;
    return visible(jsonText(shown ?? null));
  };
  return changes.map((change) => {
    // Paths carry names from the server or a file (a label key, a secret's name): made visible.
    const c = { ...change, path: visible(change.path) };
    if (c.immutable)
      return paint.red(`! ${c.path}: ${text(c, c.current)} -> ${text(c, c.desired)} (fixed at creation)`);
    if (c.kind === "add") return paint.green(`+ ${c.path}: ${text(c, c.desired)}`);
    if (c.kind === "remove") return paint.red(`- ${c.path}: ${text(c, c.current)} (removed)`);
    return paint.yellow(`~ ${c.path}: ${text(c, c.current)} -> ${text(c, c.desired)}`);
  });
}

/** "3 fields and 1 secret (1 removed)": a headline's count. */
export function countChanges(changes: readonly Change[]): string {
  const secrets = changes.filter((c) => c.path.startsWith("secrets.")).length;
  const fields = changes.length - secrets;
  const removed = changes.filter((c) => c.kind === "remove").length;
  const parts = [
    fields ? `${fields} field${fields === 1 ? "" : "s"}` : "",
    secrets ? `${secrets} secret${secrets === 1 ? "" : "s"}` : "",
  ].filter(Boolean);
  return `${parts.join(" and ") || "nothing"}${removed ? ` (${removed} removed)` : ""}`;
}
