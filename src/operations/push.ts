// `deploy push [DIR]`: the everyday job in one command, for internal_source deployments.
//
// Everything local first (the directory, the name, the agent configuration, the secrets, the
// tarball and its size): a mistake costs no request. Then the deployment is found by exact
// name across every page, or created; the tarball is uploaded; source_tarball_path is patched
// in (with the merged secrets and any change of agent_config_path) the way every change is
// sent (change.ts); and the new revision is waited for. When the active revision was built
// from the same tarball (the server reports its sha256, and cpctl's tarballs are
// reproducible) and no setting changes, nothing is sent at all.
import type { ApiClient } from "../api/client.js";
import { createDeployment, getDeployment, getRevision } from "../api/endpoints.js";
import { reportOutcome } from "../ci/report.js";
import type { Ctx } from "../context.js";
import { ApiError, CliError, InterruptedError, UsageError, WaitFailedError } from "../errors.js";
import { buildBody } from "../manifest/build.js";
import type { Change } from "../model/changes.js";
import { creationChanges, type PatchPlan, planPatch } from "../model/plan.js";
import { PLATFORM_VARIABLES } from "../model/platform-variables.js";
import type { DeploymentT } from "../model/responses.js";
import type { CreateRequest, SecretT } from "../model/schemas.js";
import { validateCreateRequest } from "../model/validate.js";
import { type AgentConfig, findAgentConfig } from "../project/agent-config.js";
import { type ProjectDirectory, projectDirectory } from "../project/directory.js";
import { detectTrackedPackages } from "../project/tracked-packages.js";
import { formatBytes } from "../upload/size.js";
import { describeSource, leftOutWarnings, type PreparedSource, prepareSource } from "../upload/source.js";
import type { WaitVerdict } from "../wait/poll.js";
import type { FinishOptions } from "./after-change.js";
import { invalidPlan, sendPatch } from "./change.js";
import { guardMutation } from "./confirm.js";
import { guardedCreate } from "./create-guard.js";
import { warnAbsentUnsets } from "./patch.js";
import { showPreview } from "./preview.js";
import { type PushOutcome, PushReport, type PushResult } from "./push-report.js";
import { deploymentsNamed } from "./resolve.js";
import { stateCommand } from "./suggest.js";
import { packedFiles, uploadSource } from "./upload.js";
import { assertDeployed, waitForRevision } from "./wait.js";

export interface PushInput extends FinishOptions {
  name?: string;
  agentConfigPath?: string;
  secret?: string[];
  secretsFile?: string;
  unsetSecret?: string[];
  allowEmptySecrets?: boolean;
  maxSize: number;
  includeCredentials?: boolean;
  /** Push even when the active revision already runs this tarball with these settings. */
  force?: boolean;
  dryRun?: boolean;
}

/** What the push will send, all of it known before any request. */
interface Shipment {
  directory: ProjectDirectory;
  name: string;
  config: AgentConfig;
  /** The secrets given (platform variables left out); undefined when none were. */
  secrets: SecretT[] | undefined;
  source: PreparedSource;
  trackedPackages: string[];
}

export async function runPush(ctx: Ctx, dir: string, input: PushInput): Promise<void> {
  const report = new PushReport(ctx, await ctx.printer());
  const shipment = await prepareShipment(ctx, dir, input, report);
  try {
    const found = await findDeployment(ctx, shipment.name);
    if (found) {
      await report.step("found", `Found deployment ${found.name} (${found.id})`, { deployment: found });
      await pushToExisting(ctx, shipment, found, input, report);
    } else {
      ctx.log.info(
        `no deployment is named ${JSON.stringify(shipment.name)}: ${input.dryRun ? "it would be" : "it will be"} created as internal_source`,
      );
      await pushToNew(ctx, shipment, input, report);
    }
  } finally {
    // The tarball waits in a temporary file (upload/spool.ts) until here.
    shipment.source.tarball.dispose();
  }
}

async function prepareShipment(
  ctx: Ctx,
  dir: string,
  input: PushInput,
  report: PushReport,
): Promise<Shipment> {
  const directory = await projectDirectory(ctx.cwd, dir);
  const name = await deploymentName(ctx, input.name, directory);
  const config = await findAgentConfig(directory.absolute, directory.shown, input.agentConfigPath);
  const secrets = await secretsToSend(ctx, input);
  const source = await prepareSource(ctx.cwd, directory.absolute, input.maxSize, {
    includeCredentials: Boolean(input.includeCredentials),
    signal: ctx.signal,
  });
  const files = packedFiles(source) ?? [];
  if (!files.includes(config.path)) {
    source.tarball.dispose();
    throw new UsageError(
      `${config.path}, the agent configuration, is left out of the tarball of ${directory.shown}: the build would not find it; nothing was sent`,
    ).withHint("A .gitignore or .dockerignore rule leaves it out: take it back with a !pattern line.");
  }
  await report.step("packed", describeSource({ ...source, display: directory.shown }), {
    files: files.length,
    bytes: source.tarball.bytes,
    sha256: source.tarball.sha256,
    agent_config_path: config.path,
  });
  for (const warning of leftOutWarnings(source)) ctx.log.warn(warning);
  const trackedPackages = await detectTrackedPackages(directory.absolute, config);
  return { directory, name, config, secrets, source, trackedPackages };
}

/** --name, or on a terminal the answer to a question (default: the directory's name). */
async function deploymentName(
  ctx: Ctx,
  given: string | undefined,
  directory: ProjectDirectory,
): Promise<string> {
  if (given !== undefined) {
    if (given.trim() === "") throw new UsageError("--name is empty: give the deployment's name");
    return given;
  }
  if (!ctx.interactive) {
    throw new UsageError(
      "--name is required here: pass --name NAME, the deployment to create or update (found by its exact name)",
    ).withHint("cpctl asks for it only when stdin and stdout are a terminal (and CI is not set).");
  }
  const { terminalPrompter } = await import("../prompt/prompter.js");
  const prompter = await terminalPrompter(ctx);
  return prompter.input({
    message: "Deployment name (created when none has it)",
    default: directory.name,
    validate: (value) => (value.trim() === "" ? "give a name" : true),
  });
}

/**
 * --secret, --secrets-file and --unset-secret as `deploy patch` takes them; the variables the
 * platform sets itself are never sent, each one left out said.
 */
async function secretsToSend(ctx: Ctx, input: PushInput): Promise<SecretT[] | undefined> {
  const built = await buildBody(
    "patch",
    {
      secret: input.secret,
      secretsFile: input.secretsFile,
      allowEmptySecrets: input.allowEmptySecrets,
      leaveOutSecrets: PLATFORM_VARIABLES,
    },
    ctx,
  );
  for (const name of built.leftOutSecrets) {
    ctx.log.warn(`secret ${name} is not sent: the platform sets ${name} itself on every deployment`);
  }
  return Array.isArray(built.body.secrets) ? (built.body.secrets as SecretT[]) : undefined;
}

/** The deployment of that exact name, null when none; one of another source is a usage error. */
async function findDeployment(ctx: Ctx, name: string): Promise<DeploymentT | null> {
  const matches = await deploymentsNamed(ctx, name);
  if (matches.length > 1) {
    throw new UsageError(
      `${matches.length} deployments are named '${name}'; push needs a unique name: ${matches.map((d) => d.id).join(", ")}`,
    );
  }
  const found = matches[0] ?? null;
  if (found && found.source !== "internal_source") throw otherSource(found);
  return found;
}

function otherSource(deployment: DeploymentT): UsageError {
  const fits: Record<string, string> = {
    gitrepo: `cpctl deploy patch ${deployment.name} --repo-ref REF (it builds from its repository)`,
    internal_container: `cpctl deploy push --image IMAGE --name ${deployment.name}`,
    external_container: `cpctl deploy patch ${deployment.name} --image-uri IMAGE`,
  };
  return new UsageError(
    `deployment ${deployment.name} has source ${deployment.source}: deploy push [DIR] ships a directory to internal_source deployments only`,
  ).withHint(`For this one: ${fits[deployment.source] ?? `cpctl deploy patch ${deployment.name}`}`);
}

// --- an existing deployment ---

async function pushToExisting(
  ctx: Ctx,
  shipment: Shipment,
  found: DeploymentT,
  input: PushInput,
  report: PushReport,
): Promise<void> {
  const settings = planFor(found, shipment, input, null);
  warnAbsentUnsets(ctx, found, settings.absent);
  const api = await ctx.api();
  const active = await activeRevisionSha(api, found);
  if (
    active &&
    active.sha256 === shipment.source.tarball.sha256 &&
    settings.changes.length === 0 &&
    !input.force
  ) {
    ctx.log.info(
      `nothing to push: the active revision ${active.id} of ${found.name} runs this source already (sha256 ${shipment.source.tarball.sha256}) with these settings; nothing was sent (--force pushes anyway)`,
    );
    if (input.dryRun) return printDryRun(ctx, shipment, found, "none", []);
    return finish(ctx, report, shipment, {
      deployment: found,
      revision: { id: active.id, status: active.status },
      created: false,
      uploaded: false,
      result: "unchanged",
      input,
    });
  }
  const changes = [tarballChange(found, shipment), ...settings.changes];
  await showPreview(ctx, {
    action: "patch",
    name: found.name,
    deploymentId: found.id,
    changes,
    triggers: ["source_revision_config.source_tarball_path", ...settings.triggers],
    headline: `Pushing ${shipment.directory.shown} to deployment ${found.name}`,
  });
  if (input.dryRun) return printDryRun(ctx, shipment, found, "patch", changes);
  await guardMutation(ctx, `push ${shipment.directory.shown} to deployment ${found.name}`);
  await uploadAndPatch(ctx, api, shipment, found, false, input, report, changes);
}

/** The change of the PATCH, source_tarball_path left out until the upload gives it. */
function planFor(
  current: DeploymentT,
  shipment: Shipment,
  input: PushInput,
  objectPath: string | null,
): PatchPlan {
  // agent_config_path is sent only when it changes: in a PATCH a value starts a revision.
  const configPath = shipment.config.path;
  const planned = planPatch(current, {
    body: {
      source_revision_config: {
        ...(current.source_revision_config.agent_config_path !== configPath
          ? { agent_config_path: configPath }
          : {}),
        ...(objectPath ? { source_tarball_path: objectPath } : {}),
      },
      secrets: shipment.secrets ?? null,
    },
    unsetSecrets: input.unsetSecret,
  });
  if (!planned.ok) throw invalidPlan(planned.issues);
  return planned.plan;
}

async function activeRevisionSha(
  api: ApiClient,
  deployment: DeploymentT,
): Promise<{ id: string; sha256: string | null; status: string } | null> {
  if (!deployment.active_revision_id) return null;
  const revision = await getRevision(api, deployment.id, deployment.active_revision_id);
  const sha256 = (revision as { source_tarball_sha256?: unknown }).source_tarball_sha256;
  return { id: revision.id, sha256: typeof sha256 === "string" ? sha256 : null, status: revision.status };
}

/** The preview's line for the tarball, whose object path the upload has not given yet. */
function tarballChange(current: DeploymentT | null, shipment: Shipment): Change {
  const before = current?.source_revision_config.source_tarball_path ?? null;
  return {
    path: "source_revision_config.source_tarball_path",
    kind: before ? "change" : "add",
    current: before,
    desired: `(the upload of ${shipment.directory.shown}: ${formatBytes(shipment.source.tarball.bytes)}, sha256 ${shipment.source.tarball.sha256.slice(0, 12)}…)`,
    immutable: false,
    secret: false,
  };
}

// --- a new deployment ---

async function pushToNew(ctx: Ctx, shipment: Shipment, input: PushInput, report: PushReport): Promise<void> {
  const body = createBody(shipment);
  const changes = [...creationChanges(body), tarballChange(null, shipment)];
  await showPreview(ctx, {
    action: "create",
    name: body.name,
    deploymentId: null,
    changes,
    triggers: [],
    headline: `Creating deployment ${body.name} (internal_source) and pushing ${shipment.directory.shown} to it`,
  });
  if (input.unsetSecret?.length) {
    ctx.log.warn(`a new deployment has no secret to unset: ${input.unsetSecret.join(", ")}`);
  }
  if (input.dryRun) return printDryRun(ctx, shipment, null, "create", changes, body);
  await guardMutation(ctx, `create deployment ${body.name} and push ${shipment.directory.shown} to it`);
  const api = await ctx.api();
  let deployment: DeploymentT;
  let created = true;
  try {
    deployment = await guardedCreate(ctx, body, () => createDeployment(api, body));
  } catch (error) {
    // Another push of the same name created it first: go on with that one.
    if (!(error instanceof ApiError && error.status === 409)) throw error;
    const again = await findDeployment(ctx, body.name);
    if (!again) throw error;
    ctx.log.info(`deployment ${body.name} was created meanwhile (HTTP 409): pushing to it`);
    await report.step("found", `Found deployment ${again.name} (${again.id})`, { deployment: again });
    deployment = again;
    created = false;
  }
  if (created) {
    await report.step("created", `Created deployment ${deployment.name} (${deployment.id})`, { deployment });
  }
  const settings = created ? [] : planFor(deployment, shipment, input, null).changes;
  await uploadAndPatch(ctx, api, shipment, deployment, created, input, report, [
    tarballChange(deployment, shipment),
    ...settings,
  ]);
}

function createBody(shipment: Shipment): CreateRequest {
  const body = {
    name: shipment.name,
    source: "internal_source",
    source_config: {},
    source_revision_config: { agent_config_path: shipment.config.path },
    secrets: shipment.secrets ?? [],
  };
  const checked = validateCreateRequest(body);
  if (!checked.ok) throw invalidPlan(checked.issues);
  return checked.value;
}

// --- the upload, the patch, the wait ---

async function uploadAndPatch(
  ctx: Ctx,
  api: ApiClient,
  shipment: Shipment,
  deployment: DeploymentT,
  created: boolean,
  input: PushInput,
  report: PushReport,
  changes: Change[],
): Promise<void> {
  let objectPath: string;
  try {
    objectPath = await uploadSource(ctx, api, deployment.id, shipment.source);
  } catch (error) {
    throw await nothingPatched(ctx, error, deployment, created);
  }
  await report.step("uploaded", `Uploaded ${formatBytes(shipment.source.tarball.bytes)} to ${objectPath}`, {
    object_path: objectPath,
    bytes: shipment.source.tarball.bytes,
    sha256: shipment.source.tarball.sha256,
  });
  // The upload took time: the patch is planned against the deployment as it is now.
  const current = await getDeployment(api, deployment.id);
  const plan = planFor(current, shipment, input, objectPath);
  if (shipment.trackedPackages.length > 0) {
    plan.body = { ...plan.body, tracked_packages: shipment.trackedPackages } as PatchPlan["body"];
  }
  const outcome = await sendPatch(ctx, current, plan, { previewShown: true, quiet: true });
  if (outcome.kind !== "sent") throw new Error(`the push's patch was not sent (${outcome.kind})`);
  const revisionId = outcome.deployment.latest_revision_id;
  await report.step(
    "patched",
    outcome.started
      ? `Started revision ${revisionId}`
      : `Patched ${outcome.deployment.name}; no new revision`,
    { deployment: outcome.deployment, revision_id: revisionId, started: outcome.started },
  );
  const base = { created, uploaded: true, input, changes };
  if (outcome.clash) {
    await finish(ctx, report, shipment, {
      ...base,
      deployment: outcome.deployment,
      revision: revisionId ? { id: revisionId, status: null } : null,
      result: "started",
    });
    throw outcome.clash;
  }
  // Waiting is the default: --wait says so, --no-wait stops here.
  const wait = input.wait !== false;
  if (!wait || !revisionId) {
    if (wait) ctx.log.info("no revision to wait for");
    return finish(ctx, report, shipment, {
      ...base,
      deployment: outcome.deployment,
      revision: revisionId ? { id: revisionId, status: null } : null,
      result: "started",
    });
  }
  await waitAndFinish(ctx, report, shipment, { ...base, deployment: outcome.deployment, revisionId });
}

/** An upload that failed: the message says what state the deployment is left in. */
async function nothingPatched(
  ctx: Ctx,
  error: unknown,
  deployment: DeploymentT,
  created: boolean,
): Promise<unknown> {
  const state = created
    ? `deployment ${deployment.name} was created (${deployment.id}) but has no source yet: run the same command again to push to it`
    : `nothing was patched: deployment ${deployment.name} is unchanged`;
  if (error instanceof InterruptedError) {
    return new InterruptedError(`interrupted during the upload; ${state}`).withHint(
      `See it with: ${await stateCommand(ctx, deployment.id)}`,
    );
  }
  if (error instanceof CliError) return error.withHint(`The upload did not complete; ${state}.`);
  return error;
}

interface Ending {
  deployment: DeploymentT;
  created: boolean;
  uploaded: boolean;
  input: PushInput;
  changes?: Change[];
}

async function waitAndFinish(
  ctx: Ctx,
  report: PushReport,
  shipment: Shipment,
  ending: Ending & { revisionId: string },
): Promise<void> {
  const { deployment, revisionId, input } = ending;
  const target = { deploymentId: deployment.id, revisionId };
  // The build log streams on a terminal (as --logs does), and always into -o ndjson events.
  const format = (await ctx.printer()).options.format;
  const logs = input.logs ?? (ctx.io.stderr.isTTY || format === "ndjson");
  let verdict: WaitVerdict;
  try {
    verdict = await waitForRevision(
      ctx,
      target,
      { ...input, logs },
      {
        status: (status, elapsedMs) => report.status(revisionId, status, elapsedMs),
        log: (entry) => report.log(revisionId, entry),
      },
    );
  } catch (error) {
    await finish(ctx, report, shipment, {
      ...ending,
      revision: { id: revisionId, status: null },
      result: "started",
    });
    throw error;
  }
  const final = verdict.result === "interrupted" ? deployment : await readAgain(ctx, deployment);
  let failure: unknown;
  try {
    await assertDeployed(ctx, verdict);
  } catch (error) {
    failure = error;
  }
  await finish(ctx, report, shipment, {
    ...ending,
    deployment: final,
    revision: { id: revisionId, status: verdict.status },
    result: verdict.result,
    verdict,
    failure,
  });
  if (failure) throw failure;
}

async function readAgain(ctx: Ctx, deployment: DeploymentT): Promise<DeploymentT> {
  try {
    return await getDeployment(await ctx.api(), deployment.id);
  } catch {
    return deployment;
  }
}

/** The result on stdout, and the CI report (outputs, summary, --dotenv-report). */
async function finish(
  ctx: Ctx,
  report: PushReport,
  shipment: Shipment,
  ending: Ending & {
    revision: PushResult["revision"];
    result: PushOutcome;
    verdict?: WaitVerdict;
    failure?: unknown;
  },
): Promise<void> {
  const { deployment, verdict } = ending;
  await report.done({
    deployment,
    revision: ending.revision,
    created: ending.created,
    uploaded: ending.uploaded,
    bytes: shipment.source.tarball.bytes,
    sha256: shipment.source.tarball.sha256,
    result: ending.result,
    elapsed_seconds: verdict ? verdict.elapsed_seconds : null,
    url: deployment.source_config.custom_url ?? null,
  });
  reportOutcome(
    ctx,
    {
      command: ctx.command,
      deployment,
      revisionId: ending.revision?.id ?? null,
      status: ending.revision?.status ?? null,
      result: ending.result,
      elapsedSeconds: verdict?.elapsed_seconds,
      changes: ending.changes,
      logTail: ending.failure instanceof WaitFailedError ? ending.failure.logTail : undefined,
    },
    ending.input,
  );
}

/** --dry-run: what would be created or patched, and what would be packed and left out. */
async function printDryRun(
  ctx: Ctx,
  shipment: Shipment,
  current: DeploymentT | null,
  action: "create" | "patch" | "none",
  changes: Change[],
  createRequest?: CreateRequest,
): Promise<void> {
  const { source, config } = shipment;
  const walk = source.walk;
  const files = packedFiles(source) ?? [];
  const printer = await ctx.printer();
  await printer.value(
    {
      name: shipment.name,
      deployment_id: current?.id ?? null,
      action,
      ...(createRequest ? { create: createRequest } : {}),
      changes: changes.map((change) => ({ path: change.path, kind: change.kind })),
      agent_config_path: config.path,
      tracked_packages: shipment.trackedPackages,
      bytes: source.tarball.bytes,
      sha256: source.tarball.sha256,
      files,
      left_out: {
        gitignore: walk?.ignored ?? [],
        dockerignore: walk?.dockerignored ?? [],
        always: walk?.excluded ?? [],
        credentials: walk?.credentials ?? [],
        skipped: (walk?.skipped ?? []).map((skipped) => skipped.path),
      },
    },
    () => files.join("\n"),
  );
  ctx.log.info(
    `dry run: ${action === "none" ? "nothing would be sent" : `nothing was ${action === "create" ? "created or " : ""}uploaded or patched`}`,
  );
}
