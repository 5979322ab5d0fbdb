// The questions of an interactive `deploy create`: the values the body lacks, then the
// request and a confirmation. Loaded by complete-create.ts only when there is something to ask
// on a terminal, with the prompts and the integration listing it needs.
import type { ApiClient } from "../api/client.js";
import { listIntegrationRepos, listIntegrations } from "../api/endpoints.js";
import { ApiError, InterruptedError, OperationError } from "../errors.js";
import { isUuid, SOURCES, type Source } from "../model/enums.js";
import type { GitRepositoryT } from "../model/responses.js";
import { DeploymentName } from "../model/schemas.js";
import { validateCreateRequest } from "../model/validate.js";
import { jsonText } from "../output/encode.js";
import { writeText } from "../output/safe-text.js";
import type { RunContext } from "../run-context.js";
import { maskSecretValues } from "../secrets.js";
import { missingValues, setValueAt, valueAt } from "./missing.js";
import { type Choice, type PromptContext, type Prompter, promptError, terminalPrompter } from "./prompter.js";

const SOURCE_CHOICES: Choice<Source>[] = [
  {
    value: "gitrepo",
    name: "gitrepo",
    description: "build from a git repository (cloud-hosted; needs a git integration)",
  },
  {
    value: "external_container",
    name: "external_container",
    description: "run a container image on your own listener (self-hosted)",
  },
  { value: "internal_container", name: "internal_container", description: "run a container image" },
  {
    value: "internal_source",
    name: "internal_source",
    description: "build from a source tarball uploaded with `cpctl deploy upload`",
  },
];

/** What completing a create uses of a run, besides the prompts' own. */
export interface AskContext extends PromptContext, Pick<RunContext, "log"> {
  /** The command line, to print it again with the missing flags. */
  readonly argv: readonly string[];
  readonly interactive: boolean;
  readonly flags: { readonly color: boolean; readonly input: boolean; readonly yes?: boolean };
  /** A profile with `confirm: true` asks again before the create: one question is then enough. */
  settings(): Promise<{ readonly confirm: boolean }>;
  /** For the git integrations to choose from. */
  api(): Promise<ApiClient>;
}

/** What earlier answers tell later questions. */
interface Asking {
  body: Record<string, unknown>;
  /** Integrations chosen from the alternate listing (their repositories are listed there too). */
  altIntegrations: Set<string>;
  /** The chosen repository's default branch: the ref offered. */
  defaultBranch?: string;
}

interface Question {
  path: readonly string[];
  /** Asked when missing even though no rule requires it. */
  alsoFor?: readonly Source[];
  ask(ctx: AskContext, prompter: Prompter, asking: Asking): Promise<string>;
}

const nonEmpty = (what: string) => (value: string) => value.trim() !== "" || `${what} cannot be empty`;

/** Every question, in the order asked. Which are asked depends on the source's rules. */
const QUESTIONS: Question[] = [
  { path: ["source_config", "integration_id"], ask: askIntegration },
  { path: ["source_config", "repo_url"], ask: askRepository },
  {
    path: ["source_revision_config", "repo_ref"],
    alsoFor: ["gitrepo"],
    ask: (_ctx, p, asking) =>
      p.input({
        message: "Git ref (a branch name, or refs/tags/TAG)",
        default: asking.defaultBranch ?? "main",
        validate: nonEmpty("the ref"),
      }),
  },
  {
    path: ["source_revision_config", "agent_config_path"],
    ask: (_ctx, p) =>
      p.input({
        message: "Path of the agent configuration file in the source",
        default: "agent.json",
        validate: nonEmpty("the path"),
      }),
  },
  {
    path: ["source_revision_config", "image_uri"],
    ask: (_ctx, p) => p.input({ message: "Container image URI", validate: nonEmpty("the image URI") }),
  },
];

/**
 * Asks for what `body` lacks (with the terminal's prompts unless `prompter` is given), then
 * shows the request and asks to confirm it.
 */
export async function askForMissing(
  ctx: AskContext,
  body: Record<string, unknown>,
  prompter?: Prompter,
): Promise<void> {
  try {
    await ask(ctx, body, prompter ?? (await terminalPrompter(ctx)));
  } catch (error) {
    throw promptError(error);
  }
}

async function ask(ctx: AskContext, body: Record<string, unknown>, prompter: Prompter): Promise<void> {
  if (body.name == null) {
    body.name = (await prompter.input({ message: "Deployment name", validate: validName })).trim();
  }
  if (body.source == null) {
    body.source = await prompter.select({ message: "Source", choices: SOURCE_CHOICES });
  }
  const source = body.source as Source;
  // An unknown source is left for validation to report with the allowed values.
  if (!(SOURCES as readonly string[]).includes(source)) return;
  const required = new Set(missingValues(body).fields.map((field) => field.path.join(".")));
  const asking: Asking = { body, altIntegrations: new Set() };
  for (const question of QUESTIONS) {
    if (valueAt(body, question.path) != null) continue;
    if (!required.has(question.path.join(".")) && !question.alsoFor?.includes(source)) continue;
    setValueAt(body, question.path, (await question.ask(ctx, prompter, asking)).trim());
  }

  const checked = validateCreateRequest(body);
  // An invalid body is reported by the caller's validation, with where each value came from.
  if (!checked.ok || isDryRun(ctx)) return;
  writeText(
    ctx.io.stderr,
    `\nThe request (POST /v2/deployments):\n${indent(jsonText(maskSecretValues(checked.value), 2))}\n\n`,
  );
  if (ctx.flags.yes) return;
  // A profile with `confirm: true` asks next (guardMutation), naming the profile and host:
  // one question is enough.
  if ((await ctx.settings()).confirm) return;
  const go = await prompter.confirm({ message: `Create deployment '${checked.value.name}'?`, default: true });
  if (!go) throw new OperationError("cancelled: nothing was created", "cancelled");
}

async function askIntegration(ctx: AskContext, prompter: Prompter, asking: Asking): Promise<string> {
  const api = await ctx.api();
  const [main, alt] = await Promise.allSettled([listIntegrations(api, false), listIntegrations(api, true)]);
  if (main.status === "rejected" && alt.status === "rejected") throw main.reason;
  const choices: Choice<string>[] = [
    ...(main.status === "fulfilled" ? main.value : []).map((i) => ({
      value: i.id,
      name: `${i.name}  ${i.id}`,
      description: `installation ${i.installation_id}`,
    })),
    ...(alt.status === "fulfilled" ? alt.value : []).map((i) => ({
      value: i.id,
      name: `${i.name}  ${i.id}  (alt)`,
      description: `installation ${i.installation_id}, from the alternate listing`,
    })),
  ];
  if (choices.length === 0) {
    ctx.log.warn("no git integrations are installed for this tenant (cpctl integrations list shows none)");
    return prompter.input({
      message: "Git integration ID (UUID)",
      validate: (value) => isUuid(value.trim()) || "expected a UUID (8-4-4-4-12 hexadecimal digits)",
    });
  }
  if (alt.status === "fulfilled")
    for (const integration of alt.value) asking.altIntegrations.add(integration.id);
  return prompter.select({ message: "Git integration", choices });
}

/** The choice that leads to typing a URL: no URL is empty. */
const ANOTHER_URL = "";

/** The integration's repositories to choose from, or another URL typed; the URL when none are listed. */
async function askRepository(ctx: AskContext, prompter: Prompter, asking: Asking): Promise<string> {
  const typed = () =>
    prompter.input({ message: "Git repository URL", validate: nonEmpty("the repository URL") });
  const integrationId = valueAt(asking.body, ["source_config", "integration_id"]);
  if (typeof integrationId !== "string" || !isUuid(integrationId)) return typed();
  const repositories = await repositoriesOf(ctx, integrationId, asking.altIntegrations.has(integrationId));
  if (repositories.length === 0) return typed();
  const url = await prompter.select({
    message: "Git repository",
    choices: [
      ...repositories.map((r) => ({
        value: r.url,
        name: `${r.owner}/${r.name}`,
        description: `${r.url}, default branch ${r.default_branch}`,
      })),
      { value: ANOTHER_URL, name: "another repository...", description: "type its URL" },
    ],
  });
  if (url === ANOTHER_URL) return typed();
  asking.defaultBranch = repositories.find((r) => r.url === url)?.default_branch;
  return url;
}

/**
 * What the integration's listing offers (its own listing's, or, for one given by a flag, the
 * main one's and then the alternate's). Offering is a convenience: a listing that cannot be
 * read, or answers with something else, leaves the URL to be typed, said.
 */
async function repositoriesOf(
  ctx: AskContext,
  integrationId: string,
  alt: boolean,
): Promise<GitRepositoryT[]> {
  const api = await ctx.api();
  try {
    let listed: unknown;
    try {
      listed = await listIntegrationRepos(api, integrationId, alt);
    } catch (error) {
      if (alt || !(error instanceof ApiError && error.status === 404)) throw error;
      listed = await listIntegrationRepos(api, integrationId, true);
    }
    return Array.isArray(listed) ? listed.filter(isRepository) : [];
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    ctx.log.warn(
      `could not list the repositories of integration ${integrationId} (${(error as Error).message.split("\n")[0]}): type the URL`,
    );
    return [];
  }
}

function isRepository(value: unknown): value is GitRepositoryT {
  const r = value as Partial<GitRepositoryT> | null;
  return (
    r !== null &&
    typeof r === "object" &&
    typeof r.url === "string" &&
    r.url !== "" &&
    typeof r.owner === "string" &&
    typeof r.name === "string" &&
    typeof r.default_branch === "string"
  );
}

function validName(value: string): true | string {
  const parsed = DeploymentName.safeParse(value.trim());
  return parsed.success || `the name ${parsed.error.issues[0]?.message ?? "is not valid"}`;
}

/** `deploy create` prints the request itself on --dry-run and sends nothing: no confirmation. */
function isDryRun(ctx: AskContext): boolean {
  const end = ctx.argv.indexOf("--");
  return (end === -1 ? ctx.argv : ctx.argv.slice(0, end)).includes("--dry-run");
}

function indent(text: string): string {
  return text.replace(/^/gm, "  ");
}
