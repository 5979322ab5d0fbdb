// Secrets from flags: `--secret NAME` (value from the environment variable NAME),
// `--secret NAME=VALUE`, `--secrets-file FILE` (dotenv), `--secret-ref NAME=SECRET_NAME:KEY`.
import { resolve } from "node:path";
import { CliError, UsageError } from "../errors.js";
import { readAll, readTextFile, SECRETS_FILE_LIMIT, unreadableFile } from "../io.js";
import type { RunContext } from "../run-context.js";

/**
 * How messages name where a secret came from: the flags of `deploy create`/`patch`, or the
 * arguments of `cpctl secrets set` and `import`, which have no flag. Never a value.
 */
export interface SecretNaming {
  /** Written before a `--secret` value in messages and suggestions: "--secret " (the flag), "" (an argument). */
  secret: string;
  /** Written before a `--secret` value to say where a secret came from: "--secret ", "argument ". */
  secretOrigin: string;
  /** What a `--secret` value is called where its text is not shown. */
  secretWhole: string;
  /** Written before a `--secrets-file` path: "--secrets-file " (the flag), "" (an argument). */
  secretsFile: string;
  /** Where the list of secrets given came from, for a problem with one of them (a bad name). */
  list(secretsFile: string | undefined): string;
}

export const SECRET_FLAGS: SecretNaming = {
  secret: "--secret ",
  secretOrigin: "--secret ",
  secretWhole: "--secret",
  secretsFile: "--secrets-file ",
  list: (secretsFile) => (secretsFile ? "--secrets-file/--secret" : "--secret"),
};

export const SECRET_ARGUMENTS: SecretNaming = {
  secret: "",
  secretOrigin: "argument ",
  secretWhole: "a NAME[=VALUE] argument",
  secretsFile: "",
  list: (secretsFile) =>
    secretsFile ? `the secrets of ${secretsFile === "-" ? "stdin" : secretsFile}` : "NAME[=VALUE]",
};

interface SecretValue {
  name: string;
  value: string;
}

interface SecretRef {
  name: string;
  secret_name: string;
  secret_key: string;
}

export function secretFromFlag(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  naming: SecretNaming = SECRET_FLAGS,
): SecretValue {
  const { secret: flag } = naming;
  const eq = text.indexOf("=");
  if (eq === 0) throw new UsageError(`${flag}'=...': the secret needs a name, e.g. ${flag}OPENAI_API_KEY`);
  if (eq > 0) return { name: text.slice(0, eq), value: text.slice(eq + 1) };
  // Not a variable name: likely the value itself, given without NAME= (never quoted back).
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(text))
    throw new UsageError(
      `${naming.secretWhole}: expected NAME (an environment variable holding the value) or NAME=VALUE; the argument given is neither, and is not shown in case it is a secret`,
    );
  const value = env[text];
  if (value === undefined) {
    throw new UsageError(
      `${flag}${text}: the environment variable ${text} is not set; export it, or give ${flag}${text}=VALUE`,
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

/** `--secrets-file FILE` (`-`: stdin), read (bounded) and parsed: each secret with its line. */
export async function readSecretsFile(
  path: string,
  ctx: Pick<RunContext, "cwd" | "signal" | "io">,
  naming: SecretNaming = SECRET_FLAGS,
): Promise<(SecretValue & { line: number })[]> {
  const stdin = path === "-";
  const label = `${naming.secretsFile}${stdin ? "- (stdin)" : path}`;
  let text: string;
  try {
    const options = { limit: SECRETS_FILE_LIMIT, label, signal: ctx.signal };
    text = stdin ? await readAll(ctx.io.stdin, options) : await readTextFile(resolve(ctx.cwd, path), options);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw unreadableFile(label, error, "give a dotenv file (NAME=VALUE lines), or - for stdin");
  }
  return parseDotenv(text, stdin ? "stdin" : path);
}

/**
 * A dotenv file (`--secrets-file`), read as dotenv and Node's util.parseEnv read it, where the
 * two agree, and refused, naming the line, where they do not or where they would quietly send
 * something else than what was written. Errors never quote a value.
 *
 * - `NAME=VALUE` lines, an optional `export `, blank lines and `#` comment lines; white space
 *   around the name and the value is dropped; a later entry of a name wins.
 * - A value in single quotes, double quotes or backticks is taken as written, and may span
 *   lines (a PEM key), up to its closing quote, after which only a `# comment` may follow. In
 *   double quotes `\n` is a line break, and nothing else is an escape: `\"` is refused, as the
 *   two readers end the value at different places (use single quotes).
 * - A bare value ends at a `#` that starts it or follows white space: the rest is a comment,
 *   so `TOKEN= # from vault` and `TOKEN=#x` are empty values, which cpctl then refuses as it
 *   refuses any empty secret (CI systems write a missing secret as an empty one). A `#` glued
 *   to the text (`pa#ss`) is refused: both readers would send `pa`. Quote the value to keep it.
 */
export function parseDotenv(text: string, fileName: string): (SecretValue & { line: number })[] {
  const result: (SecretValue & { line: number })[] = [];
  // Each line with the break that ends it (CRLF files keep theirs inside a quoted value, as
  // util.parseEnv does; a lone CR ends a line too).
  const lines = text.match(/[^\r\n]*(\r\n|\r|\n|$)/g)!.slice(0, -1);
  for (let i = 0; i < lines.length; i++) {
    const lineNumber = i + 1;
    const where = `${fileName}:${lineNumber}`;
    const line = lines[i]!.replace(/(\r\n|\r|\n)$/, "");
    if (line.trim() === "" || line.trim().startsWith("#")) continue;
    const start = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*/.exec(line);
    if (!start) {
      throw new UsageError(
        `${where}: expected NAME=VALUE (names: letters, digits and _, not starting with a digit)`,
      );
    }
    const name = start[1]!;
    const raw = line.slice(start[0].length).trimEnd();
    const quote = raw[0];
    if (quote === "'" || quote === '"' || quote === "`") {
      // The value runs to the next quote of its kind, on this line or a later one.
      let rest = lines[i]!.slice(start[0].length + 1);
      let value = "";
      let close = rest.indexOf(quote);
      while (close < 0 && i + 1 < lines.length) {
        value += rest;
        rest = lines[++i]!;
        close = rest.indexOf(quote);
      }
      if (close < 0) {
        throw new UsageError(`${where}: the ${QUOTE_NAMES[quote]}-quoted value of ${name} is not closed`);
      }
      value += rest.slice(0, close);
      if (quote === '"' && value.endsWith("\\")) {
        throw new UsageError(
          `${where}: ${name}'s double-quoted value holds \\", which dotenv and Node read differently: put the value in single quotes`,
        );
      }
      const after = rest.slice(close + 1).replace(/(\r\n|\r|\n)$/, "");
      if (!/^\s*(#.*)?$/.test(after)) {
        throw new UsageError(
          `${fileName}:${i + 1}: unexpected text after the closing quote of ${name}'s value (only a # comment may follow it)`,
        );
      }
      result.push({ name, value: quote === '"' ? value.replace(/\\n/g, "\n") : value, line: lineNumber });
      continue;
    }
    const hash = raw.indexOf("#");
    if (hash > 0 && !/\s/.test(raw[hash - 1]!)) {
      throw new UsageError(
        `${where}: the value of ${name} holds '#' after other characters, where dotenv and Node end it (the rest reads as a comment): quote the value ('...') to keep the '#', or put a space before a comment`,
      );
    }
    result.push({ name, value: (hash >= 0 ? raw.slice(0, hash) : raw).trim(), line: lineNumber });
  }
  return result;
}

const QUOTE_NAMES = { "'": "single", '"': "double", "`": "backtick" } as const;

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
