// One problem with a request body, and how the place of a field is written in messages:
// `source_config.secrets[0].value`, the leading "body" of a 422 `loc` left out. The CLI's own
// checks, the server's 422 answers (the emulator's among them) and the manifest's origins all
// say it this way. No zod here: the API client loads it on every request.

/** One problem found by validation, in the API's own 422 shape. */
export interface FieldIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** ["secrets", 0, "value"] -> "secrets[0].value". */
export function formatPath(path: readonly unknown[]): string {
  return path.reduce<string>((shown, part) => {
    if (typeof part === "number") return `${shown}[${part}]`;
    return shown ? `${shown}.${String(part)}` : String(part);
  }, "");
}

/** The field a 422 `loc` names: ["body", "secrets", 0] -> ["secrets", 0] (the "body" says nothing). */
export function pathOfLoc<T>(loc: readonly T[]): T[] {
  return loc[0] === "body" ? loc.slice(1) : [...loc];
}

/** A 422 `loc` as a path: ["body", "secrets", 0, "value"] -> "secrets[0].value". */
export function formatLoc(loc: readonly unknown[]): string {
  return formatPath(pathOfLoc(loc));
}

/** One line a problem: `source_config.build_on_push: <message>`, or the message alone for the whole body. */
export function issueLine(loc: readonly unknown[], msg: string): string {
  const where = formatLoc(loc);
  return where ? `${where}: ${msg}` : msg;
}
