// Turns a deployment file and flags into a request body, remembering where each value came
// from so that a validation problem names the flag or the file line to fix.
// Precedence: file < named field flags < --set < secret flags (which merge by name).
import { resolve } from "node:path";
import type { Ctx } from "../context.js";
import { CliError, type FieldIssue, UsageError, ValidationError } from "../errors.js";
import { readTextFile, SECRETS_FILE_LIMIT } from "../io.js";
import { DeploymentCreateRequest, DeploymentPatchRequest } from "../model/schemas.js";
import { formatPath } from "../model/validate.js";
import { attributeName, FIELD_FLAGS } from "./fields.js";
import { type DeploymentFile, loadDeploymentFile } from "./file.js";
import { mergeByName, parseDotenv, secretFromFlag, secretRefFromFlag } from "./secrets.js";
import { parseAssignment, setAt, typedSetValue } from "./set-path.js";

export type BodyKind = "create" | "patch";

/** The body-building options shared by create, patch, apply and diff. */
export interface BodyOptions {
  file?: string;
  set?: string[];
  secret?: string[];
  secretsFile?: string;
  secretRef?: string[];
  [field: string]: unknown;
}

export interface BuiltBody {
  body: Record<string, unknown>;
  file: DeploymentFile | undefined;
  /** True when a flag or file gave at least one field. */
  hasFields: boolean;
  /** `origin: field.path: message` for one validation problem. */
  describe(issue: FieldIssue): Promise<string>;
}

export async function buildBody(kind: BodyKind, options: BodyOptions, ctx: Ctx): Promise<BuiltBody> {
  const file = options.file
    ? await loadDeploymentFile(options.file, ctx.io, ctx.env, ctx.cwd, ctx.signal)
    : undefined;
  const body: Record<string, unknown> = structuredClone(file?.data ?? {});
  const origins = new Map<string, string>();
  let hasFields = Boolean(file && Object.keys(file.data).length > 0);
  const put = (path: (string | number)[], value: unknown, origin: string) => {
    setAt(body, path, value);
    origins.set(formatPath(path), origin);
    hasFields = true;
  };

  for (const field of FIELD_FLAGS) {
    if (!field.on.includes(kind)) continue;
    const value = options[attributeName(field.flag)];
    if (value !== undefined) put([...field.path], value, `--${field.flag}`);
  }

  const schema = kind === "create" ? DeploymentCreateRequest : DeploymentPatchRequest;
  for (const assignment of options.set ?? []) {
    const { path, raw } = parseAssignment(assignment);
    put(path, typedSetValue(schema, path, raw), `--set ${formatPath(path)}`);
  }

  const secrets = [
    ...(options.secretsFile ? await secretsFromFile(options.secretsFile, ctx) : []),
    ...(options.secret ?? []).map((text) => secretFromFlag(text, ctx.env)),
  ];
  if (secrets.length > 0) {
    const existing: unknown[] = Array.isArray(body.secrets) ? body.secrets : [];
    put(
      ["secrets"],
      mergeByName(existing, secrets),
      options.secretsFile ? "--secrets-file/--secret" : "--secret",
    );
  }
  const refs = (options.secretRef ?? []).map(secretRefFromFlag);
  if (refs.length > 0) {
    const existing: unknown[] = Array.isArray(body.secret_references) ? body.secret_references : [];
    put(["secret_references"], mergeByName(existing, refs), "--secret-ref");
  }

  if (kind === "create") {
    // The API requires these containers; an empty one is what "nothing given" means.
    body.source_config ??= {};
    body.source_revision_config ??= {};
    body.secrets ??= [];
  }
  registerSecretValues(body, ctx);

  return {
    body,
    file,
    hasFields,
    describe: async (issue) => {
      const path = issue.loc[0] === "body" ? issue.loc.slice(1) : issue.loc;
      const field = formatPath(path);
      for (let length = path.length; length > 0; length--) {
        const origin = origins.get(formatPath(path.slice(0, length)));
        if (origin)
          return origin === `--set ${field}`
            ? `${origin}: ${issue.msg}`
            : `${origin} (${field}): ${issue.msg}`;
      }
      const flag = FIELD_FLAGS.find((f) => f.on.includes(kind) && formatPath([...f.path]) === field);
      const message = issue.type === "missing" && flag ? `${issue.msg} (give --${flag.flag})` : issue.msg;
      if (file) {
        const line = await file.lineOf(path);
        return `${file.name}${line ? `:${line}` : ""}: ${field || "(top level)"}: ${message}`;
      }
      return field ? `${field}: ${message}` : message;
    },
  };
}

/** Throws a ValidationError listing every problem, each with where to fix it. */
export async function rejectIssues(built: BuiltBody, issues: FieldIssue[], what: string): Promise<never> {
  const lines = await Promise.all(issues.map((issue) => built.describe(issue)));
  throw new ValidationError(`${what} is not valid:\n${lines.map((line) => `  ${line}`).join("\n")}`, issues);
}

async function secretsFromFile(path: string, ctx: Ctx) {
  let text: string;
  try {
    text = await readTextFile(resolve(ctx.cwd, path), {
      limit: SECRETS_FILE_LIMIT,
      label: `--secrets-file ${path}`,
      signal: ctx.signal,
    });
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new UsageError(
      `--secrets-file ${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  return parseDotenv(text, path);
}

/** Every secret value is remembered so that no message can print it (see the error reporter in main.ts). */
function registerSecretValues(body: Record<string, unknown>, ctx: Ctx): void {
  const secrets = body.secrets;
  if (!Array.isArray(secrets)) return;
  for (const secret of secrets) {
    const value = (secret as { value?: unknown } | null)?.value;
    if (typeof value === "string") ctx.rememberSecret(value);
  }
}
