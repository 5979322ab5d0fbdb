// The deployment a pull request's preview runs in (CLI.md "Releases"): `NAME-pr-N`, N the pull
// request's number in plain decimal digits. `deploy push --preview` ships there; `deploy prune
// --previews-of NAME` deletes only names of exactly that form. One statement of the form, for
// both, so that what push creates is what prune finds.
import { DEPLOYMENT_NAME_MAX } from "./enums.js";

const INFIX = "-pr-";

/** A pull request's number as text: 1 or more, decimal, no sign, no leading zero, a safe integer. */
export function parsePullRequestNumber(text: string): number | null {
  if (!/^[1-9]\d{0,15}$/.test(text)) return null;
  const number = Number(text);
  return Number.isSafeInteger(number) ? number : null;
}

/** `NAME-pr-N`. */
export function previewName(name: string, number: number): string {
  return `${name}${INFIX}${number}`;
}

/** What every preview of NAME starts with: the name_contains a listing asks for. */
export function previewPrefix(name: string): string {
  return `${name}${INFIX}`;
}

/**
 * Whether `candidate` is a preview of `name`: exactly `NAME-pr-` and one or more ASCII digits,
 * nothing before or after (`NAME-pr-`, `NAME-pr-1x`, `xNAME-pr-1` and NAME itself are not).
 */
export function isPreviewOf(name: string, candidate: string): boolean {
  const prefix = previewPrefix(name);
  return candidate.startsWith(prefix) && /^[0-9]+$/.test(candidate.slice(prefix.length));
}

/**
 * Why NAME-pr-N cannot be a deployment's name, or null: it would be longer than
 * DEPLOYMENT_NAME_MAX. (The rest of the name rules hold for it when they hold for NAME: the
 * suffix adds no white space or control character, and `-pr-` is never part of a UUID.)
 */
export function previewNameProblem(name: string, number: number): string | null {
  const preview = previewName(name, number);
  if (preview.length <= DEPLOYMENT_NAME_MAX) return null;
  const shown = preview.length > 60 ? `${preview.slice(0, 30)}…${preview.slice(-20)}` : preview;
  const room = DEPLOYMENT_NAME_MAX - (preview.length - name.length);
  return `the preview's name ${JSON.stringify(shown)} would be ${preview.length} characters, more than the ${DEPLOYMENT_NAME_MAX} a deployment name may have: NAME may have at most ${room} characters here (it has ${name.length})`;
}
