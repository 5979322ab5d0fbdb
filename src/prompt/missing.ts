// Which required values a create body lacks, and the flags that give them. What a source
// requires is not restated here: it is read from the model's own rules (src/model/rules.ts)
// by validating an otherwise empty body of that source and keeping the "missing" issues.
import { FIELD_FLAGS } from "../manifest/fields.js";
import { SOURCES, type Source } from "../model/enums.js";
import { pathOfLoc } from "../model/issue-path.js";
import { validateCreateRequest } from "../model/validate.js";

export interface MissingField {
  /** Path in the request body, e.g. ["source_config", "repo_url"]. */
  path: readonly string[];
  /** The flag that sets it, e.g. "--repo-url". */
  flag: string;
  /** What to write in its place in the command to run again, e.g. "<url>". */
  placeholder: string;
}

const NAME: MissingField = { path: ["name"], flag: "--name", placeholder: "<name>" };
const SOURCE: MissingField = { path: ["source"], flag: "--source", placeholder: `<${SOURCES.join("|")}>` };

const PLACEHOLDERS: Record<string, string> = {
  "integration-id": "<integration-uuid>",
  "repo-url": "<git-url>",
  "repo-ref": "<branch>",
  "agent-config-path": "<path/to/agent.json>",
  "image-uri": "<image>",
  "listener-id": "<listener-uuid>",
};

const requiredCache = new Map<Source, MissingField[]>();

/** The source-dependent values a create of this source must carry, in the order of the field table. */
export function requiredFor(source: Source): MissingField[] {
  const cached = requiredCache.get(source);
  if (cached) return cached;
  const probe = { name: "probe", source, source_config: {}, source_revision_config: {}, secrets: [] };
  const checked = validateCreateRequest(probe);
  const paths = checked.ok
    ? []
    : checked.issues
        .filter((issue) => issue.type === "missing")
        .map((issue) => pathOfLoc(issue.loc).map(String));
  const fields = paths.map(fieldFor);
  const order = (field: MissingField) => FIELD_FLAGS.findIndex((f) => samePath(f.path, field.path));
  fields.sort((a, b) => order(a) - order(b));
  requiredCache.set(source, fields);
  return fields;
}

interface MissingValues {
  /** Every value that must be given before the body can be sent. */
  fields: MissingField[];
  /** The source, when the body names a known one. */
  source: Source | null;
}

/** What the body lacks. Without a source, only name and source can be named. */
export function missingValues(body: Record<string, unknown>): MissingValues {
  const fields: MissingField[] = [];
  if (body.name == null) fields.push(NAME);
  const source =
    typeof body.source === "string" && (SOURCES as readonly string[]).includes(body.source)
      ? (body.source as Source)
      : null;
  if (body.source == null) fields.push(SOURCE);
  if (source) fields.push(...requiredFor(source).filter((field) => valueAt(body, field.path) == null));
  return { fields, source };
}

/** The flags each source needs, for the message when the source itself is missing. */
export function requirementsBySource(): string[] {
  return SOURCES.map((source) => {
    const flags = requiredFor(source).map((field) => field.flag);
    return `${source}: ${flags.length ? flags.join(" ") : "nothing more"}`;
  });
}

function fieldFor(path: string[]): MissingField {
  const flag = FIELD_FLAGS.find((f) => samePath(f.path, path));
  if (!flag) return { path, flag: `--set ${path.join(".")}=`, placeholder: "<value>" };
  const placeholder = PLACEHOLDERS[flag.flag] ?? (flag.kind === "uuid" ? "<uuid>" : `<${flag.flag}>`);
  return { path, flag: `--${flag.flag}`, placeholder };
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}

export function valueAt(body: Record<string, unknown>, path: readonly string[]): unknown {
  let current: unknown = body;
  for (const part of path) {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

export function setValueAt(body: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let current = body;
  for (const part of path.slice(0, -1)) {
    const next = current[part];
    if (next === null || typeof next !== "object" || Array.isArray(next)) current[part] = {};
    current = current[part] as Record<string, unknown>;
  }
  current[path.at(-1)!] = value;
}

/** The command line again, quoted for a POSIX shell, with the missing flags appended as placeholders. */
export function rerunCommand(argv: readonly string[], fields: readonly MissingField[]): string {
  const end = argv.indexOf("--");
  const head = end === -1 ? [...argv] : argv.slice(0, end);
  const tail = end === -1 ? [] : argv.slice(end);
  const added = fields.flatMap((field) =>
    field.flag.endsWith("=") ? [`${field.flag}${field.placeholder}`] : [field.flag, field.placeholder],
  );
  return ["cpctl", ...head.map(shellQuote), ...added, ...tail.map(shellQuote)].join(" ");
}

export function shellQuote(word: string): string {
  if (word !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
