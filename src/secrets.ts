// Secret values never reach what cpctl prints: one statement of what counts as a secret value
// and how it is hidden, shared by the output, the error reporter and the `--debug` trace.
// No imports, so that any module (main.ts included) can use it without start-up cost.

/** What a secret value is shown as in output. */
export const MASK = "****";
/** What a credential found in free text is replaced with in the trace. */
export const REDACTED = "[redacted]";

/**
 * Whether a secret value is one a server (or cpctl) shows in place of the real one: nothing
 * (null, empty), only `*` or bullets (`****`, `********`), a run of three or more of them
 * around a few characters (`sk-****abcd`), a bracketed word such as `[REDACTED]`, `<hidden>`
 * or `(masked)`, or a few characters around `...` or `…` (`sk-...abcd`). Such a value is
 * never sent as if it were the real one: kept from a deployment, it would overwrite the real
 * value with the mask (model/merge.ts refuses); given by the user, it is almost surely a copy
 * of one (manifest/build.ts refuses). A real secret of these shapes is very unlikely; one
 * that has one can still be set with the whole set given (`--replace-secrets`).
 */
export function looksMasked(value: unknown): boolean {
  if (value === null || value === undefined || value === "") return true;
  if (typeof value !== "string") return false;
  const text = value.trim();
  return (
    text === "" ||
    /^[*•●]+$/.test(text) ||
    (text.length <= 64 && /[*•●]{3}/.test(text) && !/\s/.test(text)) ||
    /^[[<({]\s*[*•●_-]*\s*(redacted|hidden|masked|secret|sensitive|filtered|removed|obfuscated|censored|omitted)\s*[*•●_-]*\s*[\]>)}]$/i.test(
      text,
    ) ||
    /^\*+\s*(redacted|hidden|masked)\s*\*+$/i.test(text) ||
    /^[^\s.…]{0,12}(\.{3,}|…)[^\s.…]{0,12}$/.test(text)
  );
}

/**
 * The JSON value with every secret value replaced by `****`: any `value` key (at any depth)
 * inside an array named `secrets`, the string values of an object named `secrets` used as a
 * name -> value map, and the `input` a 422 item echoes back when its `loc` points into
 * `secrets`. `null` stays `null` (it says "no value"). Every other string goes through
 * `otherStrings` (the trace uses it to redact signed URLs and known credentials).
 *
 * Objects and arrays with nothing to change are returned as they are, not copied (a long
 * list prints each item through here, and copying every object was most of what it
 * allocated): the result shares them with the input, so treat both as read-only.
 */
export function maskSecretValues<T>(json: T, otherStrings: (text: string) => string = (text) => text): T {
  return maskNode(json, false, otherStrings) as T;
}

function maskNode(node: unknown, insideSecrets: boolean, otherStrings: (text: string) => string): unknown {
  if (typeof node === "string") return otherStrings(node);
  if (node === null || typeof node !== "object") return node;
  if (Array.isArray(node)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < node.length; i++) {
      const masked = maskNode(node[i], insideSecrets, otherStrings);
      if (masked !== node[i] && copy === null) copy = node.slice(0, i);
      copy?.push(masked);
    }
    return copy ?? node;
  }
  const record = node as Record<string, unknown>;
  const echoesSecret = Array.isArray(record.loc) && record.loc.includes("secrets");
  let copy: Record<string, unknown> | null = null;
  for (const key of Object.keys(record)) {
    const value = record[key];
    let masked: unknown;
    if (echoesSecret && key === "input") masked = MASK;
    else if (insideSecrets && key === "value" && value !== null) masked = MASK;
    else if (key === "secrets" && isPlainObject(value)) masked = maskMap(value, otherStrings);
    else masked = maskNode(value, insideSecrets || (key === "secrets" && Array.isArray(value)), otherStrings);
    if (masked !== value && copy === null) copy = { ...record };
    if (copy !== null) setOwn(copy, key, masked);
  }
  return copy ?? record;
}

function maskMap(
  map: Record<string, unknown>,
  otherStrings: (text: string) => string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(map)) {
    const value = map[key];
    setOwn(out, key, typeof value === "string" ? MASK : maskNode(value, true, otherStrings));
  }
  return out;
}

/** `target[key] = value` as JSON.parse does it: a key "__proto__" is a key, not the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Below this length a "secret" is not searched for in the trace's free text: a key such as
 * "k" or "dev" (fine against the local emulator) would turn every "k" or "dev" of every
 * line into `[redacted]`, and so short a string protects nothing anyway. Headers are
 * redacted by name whatever the length of their value.
 */
export const MIN_SECRET_LENGTH = 8;

/**
 * Shorter values are not masked in free text. Lower than the trace's MIN_SECRET_LENGTH: what
 * is masked here (log lines, error messages, CI summaries) is a person's reading, where a
 * user's own short secret still counts, and few enough words are garbled.
 */
export const MIN_MASKED_LENGTH = 4;

/**
 * A function that shows every occurrence of a known secret value in free text as `****`: the
 * one mask of what reaches a person as text (a log line, an error message, a CI summary).
 */
export function createMasker(secrets: Iterable<string | undefined | null>): (text: string) => string {
  return createRedactor(secrets, { marker: MASK, minLength: MIN_MASKED_LENGTH });
}

/** The secret values a deployment (as the server answered it) carries, for createMasker. */
export function secretValuesOf(deployment: { secrets?: unknown }): string[] {
  const { secrets } = deployment;
  if (!Array.isArray(secrets)) return [];
  const values: string[] = [];
  for (const secret of secrets) {
    const value = (secret as { value?: unknown } | null)?.value;
    if (typeof value === "string" && !looksMasked(value)) values.push(value);
  }
  return values;
}

interface ReplaceOptions {
  /** What a secret is replaced with (default `[redacted]`). */
  marker?: string;
  /** Shorter strings are not searched for (default MIN_SECRET_LENGTH). */
  minLength?: number;
}

/** Replaces every occurrence of each known secret string in `text`. */
export function redactText(
  text: string,
  secrets: Iterable<string | undefined | null>,
  options: ReplaceOptions = {},
): string {
  return createRedactor(secrets, options)(text);
}

/**
 * A function that replaces every occurrence of each known secret string, for many texts: the
 * secrets are indexed once, by their first characters (as many as the shortest has), and each
 * text is scanned once, trying at each position only the secrets that start there, longest
 * first (so a secret that contains another is replaced whole). Replacing one secret after the
 * other, as before, took time in the number of secrets times the length of the text: an error
 * listing thousands of problems of a large --secrets-file took half a minute.
 */
export function createRedactor(
  secrets: Iterable<string | undefined | null>,
  { marker = REDACTED, minLength = MIN_SECRET_LENGTH }: ReplaceOptions = {},
): (text: string) => string {
  const known = [...new Set(secrets)].filter(
    (s): s is string => typeof s === "string" && s.length >= minLength,
  );
  if (known.length === 0) return (text) => text;
  const keyLength = known.reduce(
    (shortest, secret) => Math.min(shortest, secret.length),
    Number.POSITIVE_INFINITY,
  );
  const byStart = new Map<string, string[]>();
  for (const secret of known) {
    const key = secret.slice(0, keyLength);
    const bucket = byStart.get(key);
    if (bucket) bucket.push(secret);
    else byStart.set(key, [secret]);
  }
  for (const bucket of byStart.values()) bucket.sort((a, b) => b.length - a.length);
  return (text) => {
    let out = "";
    let copied = 0;
    for (let at = 0; at + keyLength <= text.length; ) {
      const found = byStart
        .get(text.slice(at, at + keyLength))
        ?.find((secret) => text.startsWith(secret, at));
      if (found === undefined) {
        at++;
        continue;
      }
      out += text.slice(copied, at) + marker;
      at += found.length;
      copied = at;
    }
    return copied === 0 ? text : out + text.slice(copied);
  };
}
