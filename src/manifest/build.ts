// Turns a deployment file and flags into a request body, remembering where each value came
// from so that a validation problem names the flag or the file line to fix.
// Precedence: file < named field flags < --set < secret flags (which merge by name).
import { UsageError } from "../errors.js";
import type { FieldIssue } from "../model/issue-path.js";
import { formatPath, pathOfLoc } from "../model/issue-path.js";
import type { DeploymentT } from "../model/responses.js";
import { DeploymentCreateRequest, DeploymentPatchRequest } from "../model/schemas.js";
import { ValidationError } from "../model/validation-error.js";
import type { RunContext } from "../run-context.js";
import { looksMasked, MASK } from "../secrets.js";
import { attributeName, FIELD_FLAGS, type FieldFlagValues } from "./fields.js";
import { type DeploymentFile, loadDeploymentFile } from "./file.js";
import { checkIdsMatch, readOnlyNote } from "./read-only.js";
import {
  mergeByName,
  readSecretsFile,
  SECRET_FLAGS,
  type SecretNaming,
  secretFromFlag,
  secretRefFromFlag,
} from "./secrets.js";
import { deleteAt, getAt, type Path, parseAssignment, setAt, typedSetValue } from "./set-path.js";

export type BodyKind = "create" | "patch";

/** What building a body uses of a run: where files are read from, and the sink for secret values. */
export type BodyContext = Pick<RunContext, "io" | "env" | "cwd" | "signal" | "log" | "rememberSecret">;

/** The flags of the secrets a body carries (create, patch, apply, diff, push, `cpctl secrets`). */
export type SecretFlags = {
  secret?: string[];
  secretsFile?: string;
  /** Send a secret whose value is empty (refused otherwise: see checkSecretValues). */
  allowEmptySecrets?: boolean;
};

/** The flags a body is built from: create's, patch's (`kind`), apply's and diff's. */
export type BodyFlags<Kind extends BodyKind = BodyKind> = SecretFlags & {
  file?: string;
  set?: string[];
  secretRef?: string[];
} & FieldFlagValues<Kind>;

/** The body-building options: the flags, and what a command that takes other words adds. */
export type BodyOptions = BodyFlags & {
  /** Secret names never sent from --secret and --secrets-file (those the platform sets itself). */
  leaveOutSecrets?: ReadonlySet<string>;
  /** How messages name --secret and --secrets-file (`cpctl secrets` gives them as arguments). */
  secretNaming?: SecretNaming;
};

export interface BuiltBody {
  body: Record<string, unknown>;
  file: DeploymentFile | undefined;
  /** True when a flag or file gave at least one field. */
  hasFields: boolean;
  /** `--set PATH=null`: the fields or keys to clear (a patch clears them; see model/merge.ts). */
  clears: Path[];
  /** Names of options.leaveOutSecrets that --secret or --secrets-file gave, left out. */
  leftOutSecrets: string[];
  /** `origin: field.path: message` for one validation problem. */
  describe(issue: FieldIssue): Promise<string>;
}

/** Where a secret's value came from, for messages about it (never the value). */
interface SecretOrigin {
  describe(): Promise<string>;
  /** The environment variables the value was made from. */
  variables: string[];
}

/**
 * The body of a create, or the partial change of a patch. `current` (a patch's deployment)
 * lets `--set` edit one item of a resource_spec list (`...sidecars[0].image=x`) in place
 * instead of naming a new list with one half-written item.
 */
export async function buildBody(
  kind: BodyKind,
  options: BodyOptions,
  ctx: BodyContext,
  current?: DeploymentT,
): Promise<BuiltBody> {
  const naming = options.secretNaming ?? SECRET_FLAGS;
  if (options.file === "-" && options.secretsFile === "-") {
    throw new UsageError(
      "-f - and --secrets-file - would both read stdin: give one of them a file (or <(command))",
    );
  }
  const file = options.file
    ? await loadDeploymentFile(options.file, ctx.io, ctx.env, ctx.cwd, ctx.signal)
    : undefined;
  if (file && file.readOnly.paths.length > 0) {
    ctx.log.info(readOnlyNote(file.name, file.readOnly));
    if (current) checkIdsMatch(file.name, file.readOnly, current);
  }
  const body: Record<string, unknown> = structuredClone(file?.data ?? {});
  const origins = new Map<string, string>();
  const clears: Path[] = [];
  const secretOrigins = new Map<string, SecretOrigin>();
  let hasFields = Boolean(file && Object.keys(file.data).length > 0);
  const put = (path: Path, value: unknown, origin: string) => {
    setAt(body, path, value);
    origins.set(formatPath(path), origin);
    hasFields = true;
  };
  if (file && Array.isArray(file.data.secrets)) {
    file.data.secrets.forEach((secret, index) => {
      const name = (secret as { name?: unknown } | null)?.name;
      if (typeof name !== "string") return;
      const at = ["secrets", index, "value"];
      secretOrigins.set(name, {
        describe: async () => {
          const line = await file.lineOf(at);
          return `${file.name}${line ? `:${line}` : ""}`;
        },
        variables: file.variablesAt(at),
      });
    });
  }

  for (const field of FIELD_FLAGS) {
    if (!field.on.includes(kind)) continue;
    // Read by name: the table that adds the flags (body-options.ts) types them (fields.ts).
    const value = (options as Record<string, unknown>)[attributeName(field.flag)];
    if (value !== undefined) put([...field.path], value, `--${field.flag}`);
  }

  const schema = kind === "create" ? DeploymentCreateRequest : DeploymentPatchRequest;
  for (const assignment of options.set ?? []) {
    const { path, raw } = parseAssignment(assignment);
    const typed = typedSetValue(schema, path, raw);
    // On a patch, PATH=null always means "clear it" (model/merge.ts says what can be cleared),
    // even where the field holds strings: a label's value, say.
    const value = kind === "patch" && raw === "null" ? null : typed;
    if (current) seedListsFrom(current, body, path);
    if (kind === "patch" && value === null) {
      // A clear is not a value of the change: the merge applies it (model/merge.ts).
      deleteAt(body, path);
      origins.set(formatPath(path), `--set ${formatPath(path)}`);
      clears.push(path);
      hasFields = true;
    } else put(path, value, `--set ${formatPath(path)}`);
    if (path[0] === "secrets") {
      const name = (getAt(body, path.slice(0, 2)) as { name?: unknown } | undefined)?.name;
      if (typeof name === "string") secretOrigins.set(name, fixedOrigin(`--set ${formatPath(path)}`));
    }
  }

  const leftOutSecrets = new Set<string>();
  const fromFlags = [
    ...(options.secretsFile ? await secretsFromFile(options.secretsFile, ctx, naming) : []),
    ...(options.secret ?? []).map((text) => {
      const secret = secretFromFlag(text, ctx.env, naming);
      const fromEnv = !text.includes("=");
      return {
        ...secret,
        origin: fixedOrigin(
          fromEnv ? `${naming.secretOrigin}${text}` : `${naming.secretOrigin}${secret.name}=...`,
          fromEnv ? [text] : [],
        ),
      };
    }),
  ].filter(({ name }) => {
    if (!options.leaveOutSecrets?.has(name)) return true;
    leftOutSecrets.add(name);
    return false;
  });
  if (fromFlags.length > 0) {
    const existing: unknown[] = Array.isArray(body.secrets) ? body.secrets : [];
    for (const { origin, name } of fromFlags) secretOrigins.set(name, origin);
    put(
      ["secrets"],
      mergeByName(
        existing,
        fromFlags.map(({ name, value }) => ({ name, value })),
      ),
      naming.list(options.secretsFile),
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
  await checkSecretValues(body, secretOrigins, Boolean(options.allowEmptySecrets));
  registerSecretValues(body, ctx);

  return {
    body,
    file,
    hasFields,
    clears,
    leftOutSecrets: [...leftOutSecrets],
    describe: async (issue) => {
      const path = pathOfLoc(issue.loc);
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

async function secretsFromFile(path: string, ctx: BodyContext, naming: SecretNaming) {
  const shown = `${naming.secretsFile}${path === "-" ? "stdin" : path}`;
  return (await readSecretsFile(path, ctx, naming)).map(({ line, ...secret }) => ({
    ...secret,
    origin: fixedOrigin(`${shown}:${line}`),
  }));
}

function fixedOrigin(text: string, variables: string[] = []): SecretOrigin {
  return { describe: async () => text, variables };
}

/**
 * Values that are never values: the mask cpctl prints in place of a secret (a file made from
 * `get` output) or any other that looks like one (secrets.ts's looksMasked), and, unless the user opts in, an empty value (CI systems turn a missing
 * secret into an empty string, which would blank a production secret). Every problem at
 * once, each naming the secret and where its value came from; never the value.
 */
async function checkSecretValues(
  body: Record<string, unknown>,
  origins: Map<string, SecretOrigin>,
  allowEmpty: boolean,
): Promise<void> {
  if (!Array.isArray(body.secrets)) return;
  const problems: string[] = [];
  let masked = false;
  let empty = false;
  for (const secret of body.secrets as { name?: unknown; value?: unknown }[]) {
    if (secret === null || typeof secret !== "object" || typeof secret.name !== "string") continue;
    const origin = origins.get(secret.name);
    // Only a problem needs its origin: describing a file line loads the YAML library.
    const from = async () => (origin ? ` (${await origin.describe()})` : "");
    if (secret.value === MASK) {
      masked = true;
      problems.push(
        `secret ${secret.name}${await from()}: "${MASK}" is what cpctl prints in place of a secret value, not a value`,
      );
    } else if (secret.value !== "" && looksMasked(secret.value)) {
      // Never quoted: a few characters around "..." may be a real value's first and last.
      masked = true;
      problems.push(
        `secret ${secret.name}${await from()}: the value looks like one a server shows in place of a secret (only *, a word such as [REDACTED], or a few characters around ...), not a value`,
      );
    } else if (secret.value === "" && !allowEmpty) {
      empty = true;
      const variables = origin?.variables ?? [];
      problems.push(
        `secret ${secret.name}${await from()} is empty${variables.length ? `: the environment variable${variables.length > 1 ? "s" : ""} ${variables.join(", ")} ${variables.length > 1 ? "are" : "is"} set but empty` : ""}`,
      );
    }
  }
  if (problems.length === 0) return;
  const error = new UsageError(`${problems.join("\n")}\nnothing was sent`);
  if (masked)
    error.withHint(
      "Give the real value (see the current ones with: cpctl deploy get DEPLOYMENT --show-secrets -o yaml), or leave secrets out: a patch keeps every secret it is not given, and a file without a secrets list keeps the deployment's.",
    );
  if (empty)
    error.withHint(
      "Set a value (CI systems turn a missing secret into an empty string), or pass --allow-empty-secrets to send an empty value on purpose.",
    );
  throw error;
}

/**
 * A `--set` path that goes through a resource_spec list item (`...sidecars[0].image`) edits
 * the deployment's own list: the list is copied from it into the change first.
 */
function seedListsFrom(current: DeploymentT, body: Record<string, unknown>, path: Path): void {
  if (path[0] !== "source_config" || path[1] !== "resource_spec") return;
  path.forEach((part, index) => {
    if (typeof part !== "number") return;
    const listPath = path.slice(0, index);
    const existing = getAt(current, listPath);
    if (getAt(body, listPath) === undefined && Array.isArray(existing))
      setAt(body, listPath, structuredClone(existing));
  });
}

/** Every secret value is remembered so that no message can print it (see the error reporter in main.ts). */
function registerSecretValues(body: Record<string, unknown>, ctx: BodyContext): void {
  const secrets = body.secrets;
  if (!Array.isArray(secrets)) return;
  for (const secret of secrets) {
    const value = (secret as { value?: unknown } | null)?.value;
    if (typeof value === "string") ctx.rememberSecret(value);
  }
}
