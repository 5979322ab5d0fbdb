// Secrets from flags: `--secret NAME` (value from the environment variable NAME),
// `--secret NAME=VALUE`, `--secrets-file FILE` (dotenv), `--secret-ref NAME=SECRET_NAME:KEY`.
import { UsageError } from "../errors.js";

interface SecretValue {
  name: string;
  value: string;
}

interface SecretRef {
  name: string;
  secret_name: string;
  secret_key: string;
}

export function secretFromFlag(text: string, env: Readonly<Record<string, string | undefined>>): SecretValue {
  const eq = text.indexOf("=");
  if (eq === 0)
    throw new UsageError(`--secret '=...': the secret needs a name, e.g. --secret OPENAI_API_KEY`);
  if (eq > 0) return { name: text.slice(0, eq), value: text.slice(eq + 1) };
  // Not a variable name: likely the value itself, given without NAME= (never quoted back).
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(text))
    throw new UsageError(
      "--secret: expected NAME (an environment variable holding the value) or NAME=VALUE; the argument given is neither, and is not shown in case it is a secret",
    );
  const value = env[text];
  if (value === undefined) {
    throw new UsageError(
      `--secret ${text}: the environment variable ${text} is not set; export it, or give --secret ${text}=VALUE`,
    );
  }
  return { name: text, value };
}

export function secretRefFromFlag(text: string): SecretRef {
  const match = /^([^=]+)=([^:]+):(.+)$/.exec(text);
  if (!match) {
    throw new UsageError(
      `--secret-ref '${text}': expected NAME=SECRET_NAME:KEY, e.g. --secret-ref DB_URL=db-credentials:url`,
    );
  }
  return { name: match[1]!, secret_name: match[2]!, secret_key: match[3]! };
}

/**
 * dotenv: `NAME=value` lines, `#` comments, blank lines, an optional `export `, values in
 * single quotes (literal) or double quotes (with \n, \t, \\ and \" escapes). Unquoted values
 * end at ` #`. Errors name the line, never the value.
 */
export function parseDotenv(text: string, fileName: string): (SecretValue & { line: number })[] {
  const result: (SecretValue & { line: number })[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) {
      throw new UsageError(
        `${fileName}:${i + 1}: expected NAME=VALUE (names: letters, digits and _, not starting with a digit)`,
      );
    }
    result.push({ name: match[1]!, value: dotenvValue(match[2]!, `${fileName}:${i + 1}`), line: i + 1 });
  }
  return result;
}

function dotenvValue(raw: string, where: string): string {
  if (raw.startsWith("'")) {
    const end = raw.indexOf("'", 1);
    if (end < 0) throw new UsageError(`${where}: the single-quoted value is not closed`);
    return raw.slice(1, end);
  }
  if (raw.startsWith('"')) {
    let value = "";
    for (let i = 1; i < raw.length; i++) {
      const ch = raw[i]!;
      if (ch === '"') return value;
      if (ch === "\\" && i + 1 < raw.length) {
        const next = raw[++i]!;
        value += next === "n" ? "\n" : next === "t" ? "\t" : next === "r" ? "\r" : next;
      } else value += ch;
    }
    throw new UsageError(`${where}: the double-quoted value is not closed`);
  }
  const comment = raw.search(/\s#/);
  return (comment >= 0 ? raw.slice(0, comment) : raw).trim();
}

/**
 * Later entries replace earlier ones of the same name, keeping the first one's position.
 * `base` comes from a file or `--set` and may hold anything (null, a string...): such entries
 * are kept as they are, for validation to report with their path.
 */
export function mergeByName<T extends { name: string }>(
  base: readonly unknown[],
  overrides: readonly T[],
): unknown[] {
  const result = [...base];
  // Where each name is, found once: searching the list for every override made a large
  // --secrets-file take seconds (quadratic).
  const positions = new Map<string, number>();
  result.forEach((existing, at) => {
    const name =
      typeof existing === "object" && existing !== null ? (existing as { name?: unknown }).name : null;
    if (typeof name === "string" && !positions.has(name)) positions.set(name, at);
  });
  for (const item of overrides) {
    const at = positions.get(item.name);
    if (at !== undefined) result[at] = item;
    else {
      positions.set(item.name, result.length);
      result.push(item);
    }
  }
  return result;
}
