// Deployment files: YAML or JSON (`-` for stdin) in the request body's own shape, with
// `${env:NAME}` interpolation in any string. Errors point at the file line and field.
import { resolve } from "node:path";
import { CliError, UsageError } from "../errors.js";
import type { Env } from "../io.js";
import { DEPLOYMENT_FILE_LIMIT, type InStream, readAll, readTextFile, unreadableFile } from "../io.js";
import { formatPath } from "../model/issue-path.js";
import { formatBytes } from "../util/bytes.js";
import { interpolateEnv, malformedReferenceMessage } from "../util/env-references.js";
import { PROTO_KEY, PROTO_KEY_REFUSED } from "../util/object-path.js";
import { jsonSyntaxProblem, yamlProblem } from "../util/syntax-error.js";
import { type ReadOnlyFields, takeReadOnly } from "./read-only.js";

type Path = (string | number)[];

export interface DeploymentFile {
  /** As shown in messages: the path given, or "stdin". */
  name: string;
  data: Record<string, unknown>;
  /** The line where a field (or its nearest present parent) is written, 1-based. */
  lineOf(path: readonly (string | number)[]): Promise<number | undefined>;
  /** The environment variables a string value was made from (`${env:NAME}`), if any. */
  variablesAt(path: readonly (string | number)[]): string[];
  /** The fields of `deploy get` output that no request sets, taken out of `data` (read-only.ts). */
  readOnly: ReadOnlyFields;
}

export async function loadDeploymentFile(
  ref: string,
  io: { stdin: InStream },
  env: Env,
  cwd: string,
  /** Ctrl-C or SIGTERM stops a read that waits (stdin, a FIFO). */
  signal?: AbortSignal,
): Promise<DeploymentFile> {
  const name = ref === "-" ? "stdin" : ref;
  let text: string;
  try {
    const options = {
      limit: DEPLOYMENT_FILE_LIMIT,
      label: ref === "-" ? "-f - (stdin)" : `-f ${ref}`,
      signal,
    };
    text = ref === "-" ? await readAll(io.stdin, options) : await readTextFile(resolve(cwd, ref), options);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw unreadableFile(`-f ${ref}`, error, "give a deployment file, YAML or JSON (- for stdin)");
  }
  const data = await parse(text, name);
  const readOnly = takeReadOnly(data);
  const lines = lineFinder(text);
  const variablesAt = new Map<string, string[]>();
  const interpolated = await interpolate(
    data,
    env,
    async (path, what) => {
      const line = await lines(path);
      const where = `${name}${line ? `:${line}` : ""}: ${formatPath(path)}`;
      return new UsageError(
        "unset" in what
          ? `${where}: the environment variable ${what.unset} is not set (used as \${env:${what.unset}}); export it or change the file`
          : `${where}: ${malformedReferenceMessage(what.malformed)}`,
      );
    },
    (path, variables) => variablesAt.set(formatPath(path), variables),
  );
  return {
    name,
    data: interpolated as Record<string, unknown>,
    lineOf: lines,
    variablesAt: (path) => variablesAt.get(formatPath(path)) ?? [],
    readOnly,
  };
}

async function parse(text: string, name: string): Promise<Record<string, unknown>> {
  let data: unknown;
  if (/^\s*\{/.test(text)) {
    // JSON is the common machine-written case and needs no YAML parser.
    try {
      data = JSON.parse(text);
    } catch (error) {
      const { line, column, reason } = jsonSyntaxProblem(text, error as Error);
      throw new UsageError(`${name}:${line}: not valid JSON (column ${column}: ${reason})`);
    }
  } else {
    data = await parseYaml(text, name);
  }
  checkShape(data, name);
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new UsageError(
      `${name}: expected a mapping of request fields (name, source, source_config, ...) at the top level`,
    );
  }
  // Editors find the schema through a `$schema` key in the file (see `cpctl schema`); it is not a field.
  const { $schema: _schema, ...fields } = data as Record<string, unknown>;
  return fields;
}

/** The one document of `text`, by the `yaml` library, with its errors as usage errors. */
async function parseYaml(text: string, name: string): Promise<unknown> {
  const yaml = await import("yaml");
  const lineCounter = new yaml.LineCounter();
  // The library's own check for repeated keys scans a mapping's keys for every key (seconds
  // for a large file): duplicateKey below does it in one pass.
  const documents = yaml.parseAllDocuments(text, { prettyErrors: true, uniqueKeys: false, lineCounter });
  if (!Array.isArray(documents) || documents.length !== 1) {
    throw new UsageError(
      `${name}: expected exactly one YAML document, found ${Array.isArray(documents) ? documents.length : 0}`,
    );
  }
  const document = documents[0]!;
  const problem = document.errors[0];
  if (problem) {
    // The library reports an unclosed [ or { where the text after it stops fitting (as bad
    // indentation): say where the bracket opens.
    const opened = unclosedBracket(document, text, yaml);
    if (opened) {
      const at = lineCounter.linePos(opened.offset);
      throw new UsageError(
        `${name}:${at.line}: not valid YAML (column ${at.col}: a ${opened.bracket} that is never closed with ${opened.bracket === "[" ? "]" : "}"})`,
      );
    }
    const at = problem.linePos?.[0];
    throw new UsageError(
      `${name}${at ? `:${at.line}` : ""}: not valid YAML (${at ? `column ${at.col}: ` : ""}${yamlProblem(problem.code)})`,
    );
  }
  const repeated = duplicateKey(document.contents, yaml);
  if (repeated !== undefined)
    throw new UsageError(
      `${name}:${lineCounter.linePos(repeated).line}: not valid YAML (Map keys must be unique)`,
    );
  try {
    return document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // An alias without its anchor, or too many aliases (a "billion laughs" file). The
    // library's message names the alias: words of the file, which may be a secret's.
    const excessive = (error as Error).message.startsWith("Excessive alias count");
    throw new UsageError(
      `${name}: not a usable YAML document (${excessive ? "too many aliases" : "an alias refers to an anchor that is not set before it"})`,
    );
  }
}

/** The innermost `[...]` or `{...}` of the document that its text never closes, if any. */
function unclosedBracket(
  document: import("yaml").Document,
  text: string,
  yaml: typeof import("yaml"),
): { bracket: "[" | "{"; offset: number } | undefined {
  let found: { bracket: "[" | "{"; offset: number } | undefined;
  yaml.visit(document, {
    Collection(_, node) {
      if (!node.flow || !node.range) return;
      const [start, end] = node.range;
      const bracket = text[start];
      if (bracket !== "[" && bracket !== "{") return;
      const closed = text
        .slice(start, end)
        .trimEnd()
        .endsWith(bracket === "[" ? "]" : "}");
      if (!closed && (found === undefined || start > found.offset)) found = { bracket, offset: start };
    },
  });
  return found;
}

/**
 * Where the first key repeated in its own mapping starts (keys compared as the library does:
 * scalar values), or undefined. Iterative: the depth check comes later, on the data.
 */
function duplicateKey(root: unknown, yaml: typeof import("yaml")): number | undefined {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (yaml.isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = yaml.isScalar(pair.key) ? pair.key.value : pair.key;
        if (seen.has(key)) return (yaml.isNode(pair.key) ? pair.key.range?.[0] : undefined) ?? 0;
        seen.add(key);
        pending.push(pair.key, pair.value);
      }
    } else if (yaml.isSeq(node)) for (const item of node.items) pending.push(item);
  }
  return undefined;
}

/** Deeper than any request body: a file nested further is a mistake or an attack. */
const MAX_DEPTH = 64;

/**
 * Refuses self-referencing (a YAML alias inside its own anchor), absurdly deep data, a key
 * named `__proto__` (it would be dropped on the way: util/object-path.ts), and data that
 * expands past the file limit. A YAML alias stands for a copy of its anchor: the parsed
 * value shares it, but every use of the value (the request body, the preview, -o json) writes
 * each copy out. The `yaml` library's maxAliasCount bounds how many aliases there are, not
 * what they add up to: a 4 MB file with 99 aliases of one large anchor is 390 MB of output.
 * So the walk counts what the data would take written out (as JSON, roughly), every copy
 * included, and stops as soon as that passes the file limit: it never costs more than that.
 */
function checkShape(data: unknown, name: string): void {
  const ancestors = new Set<object>();
  let size = 0;
  const grow = (bytes: number): void => {
    size += bytes;
    if (size > DEPLOYMENT_FILE_LIMIT.maxBytes)
      throw new UsageError(
        `${name}: expands to more than ${formatBytes(DEPLOYMENT_FILE_LIMIT.maxBytes)} once its YAML aliases are repeated (each alias stands for a copy of its anchor), the most cpctl reads from ${DEPLOYMENT_FILE_LIMIT.what}; nothing was sent`,
      );
  };
  const path: Path = [];
  const visit = (value: unknown, depth: number): void => {
    if (value === null || typeof value !== "object") {
      grow(typeof value === "string" ? value.length + 2 : 8);
      return;
    }
    if (depth > MAX_DEPTH)
      throw new UsageError(
        `${name}: nested more than ${MAX_DEPTH} levels deep; a deployment file is far flatter`,
      );
    if (ancestors.has(value))
      throw new UsageError(`${name}: a value contains itself (a YAML alias inside its own anchor)`);
    ancestors.add(value);
    grow(2);
    for (const [key, child] of Object.entries(value)) {
      path.push(Array.isArray(value) ? Number(key) : key);
      if (key === PROTO_KEY && !Array.isArray(value))
        throw new UsageError(`${name}: ${formatPath(path)}: ${PROTO_KEY_REFUSED}`);
      grow(key.length + 4);
      visit(child, depth + 1);
      path.pop();
    }
    ancestors.delete(value);
  };
  visit(data, 0);
}

/** Where each value of the document starts, and the same for its children (by key or index). */
interface Located {
  offset: number | undefined;
  children: Map<string | number, Located>;
}

/**
 * Finds the line of a path by parsing the text as YAML (JSON is YAML), only when asked. The
 * document is indexed once, in one pass: looking each path up in the YAML tree instead scans
 * a mapping's keys at every step, and a file with thousands of unknown keys (one problem, one
 * look-up each) took seconds, growing with the square of its size.
 */
function lineFinder(text: string) {
  let index: Promise<(path: Path) => number | undefined> | undefined;
  const load = async () => {
    const yaml = await import("yaml");
    const counter = new yaml.LineCounter();
    const doc = yaml.parseDocument(text, {
      lineCounter: counter,
      keepSourceTokens: false,
      uniqueKeys: false,
    });
    const root = locate(doc.contents, yaml);
    return (path: Path) => {
      let node: Located | undefined = root;
      let offset = root.offset;
      for (const part of path) {
        node = node.children.get(part);
        if (!node) break;
        offset = node.offset ?? offset;
      }
      return offset === undefined ? undefined : counter.linePos(offset).line;
    };
  };
  return async (path: readonly (string | number)[]) => {
    index ??= load();
    try {
      return (await index)([...path]);
    } catch {
      return undefined;
    }
  };
}

/** The index of one YAML node (mappings by key, sequences by position; the first of a repeated key). */
function locate(node: unknown, yaml: typeof import("yaml")): Located {
  const located: Located = {
    offset: yaml.isNode(node) && node.range ? node.range[0] : undefined,
    children: new Map(),
  };
  if (yaml.isMap(node)) {
    for (const pair of node.items) {
      const key = yaml.isScalar(pair.key) ? pair.key.value : pair.key;
      if (typeof key !== "string" && typeof key !== "number") continue;
      if (!located.children.has(String(key))) located.children.set(String(key), locate(pair.value, yaml));
    }
  } else if (yaml.isSeq(node)) {
    node.items.forEach((item, position) => {
      located.children.set(position, locate(item, yaml));
    });
  }
  return located;
}

/**
 * Replaces `${env:NAME}` in every string (not in keys), by the one rule of
 * util/env-references.ts. An unset variable or a malformed reference is the error `problem`
 * makes; `used` hears of each string that took its value from the environment.
 */
export async function interpolate(
  value: unknown,
  env: Env,
  problem: (path: Path, what: { unset: string } | { malformed: string }) => Promise<Error>,
  used: (path: Path, variables: string[]) => void = () => {},
  path: Path = [],
): Promise<unknown> {
  if (typeof value === "string") {
    const result = interpolateEnv(value, env);
    if (!result.ok) throw await problem(path, result);
    if (result.variables.length > 0) used(path, result.variables);
    return result.value;
  }
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (let i = 0; i < value.length; i++)
      items.push(await interpolate(value[i], env, problem, used, [...path, i]));
    return items;
  }
  if (value !== null && typeof value === "object") {
    const result: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value))
      result[key] = await interpolate(child, env, problem, used, [...path, key]);
    return result;
  }
  return value;
}
