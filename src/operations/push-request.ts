// `deploy push`'s flags turned into one request before anything is sent: the flags that do
// not go together refused, the deployment's name and the secrets decided once, then what is
// shipped read and checked, a project directory (push-source.ts) or an image (push-image.ts).
import { basename } from "node:path";
import { type PullRequest, pullRequestOf } from "../ci/pull-request.js";
import type { Ctx } from "../context.js";
import { UsageError } from "../errors.js";
import { buildBody, type SecretFlags } from "../manifest/build.js";
import { PLATFORM_VARIABLES } from "../model/platform-variables.js";
import { previewName, previewNameProblem } from "../model/preview-name.js";
import type { SecretT } from "../model/schemas.js";
import { projectDirectory } from "../project/directory.js";
import type { FinishFlags, FinishOptions } from "./after-change.js";
import { type CommentPlan, planComment } from "./preview-comment.js";
import type { ImageFlags } from "./push-image.js";
import type { Payload, PushReport } from "./push-payload.js";
import { type SourceFlags, sourcePayload } from "./push-source.js";
import { type Memory, readMemory, rememberedName } from "./remembered-name.js";
import { refuseWithoutWait } from "./verify.js";

/** `deploy push`'s options: what its flags parse to (the command checks that they match). */
export type PushInput = FinishFlags &
  SecretFlags &
  SourceFlags &
  ImageFlags & {
    name?: string;
    /** --preview [N]: ship to NAME-pr-N (true: N found in the CI run). */
    preview?: boolean | string;
    /** --comment: create or update the pull request's comment about the preview (GitHub Actions). */
    comment?: boolean;
    unsetSecret?: string[];
    /** Push even when the active revision already runs what would be shipped, with these settings. */
    force?: boolean;
    /** Create NAME even when another deployment's name is a near miss of it (near-miss.ts). */
    create?: boolean;
    dryRun?: boolean;
  };

/** What a push does besides shipping, decided from its flags once. */
export interface PushOptions extends FinishOptions {
  dryRun?: boolean;
  force?: boolean;
  create?: boolean;
  unsetSecret?: string[];
}

/** A preview (--preview): the deployment it previews, and the pull request's. */
export interface Preview {
  /** NAME, whose preview NAME-pr-N is the deployment pushed to (NAME itself is never touched). */
  of: string;
  number: number;
  /** Where the number came from: --preview, GITHUB_EVENT_PATH, GITHUB_REF, CI_MERGE_REQUEST_IID. */
  from: string;
}

/** What a push sends and how, all of it known before any request. */
export interface Shipment {
  options: PushOptions;
  /** The deployment pushed to (with --preview: NAME-pr-N). */
  name: string;
  preview: Preview | null;
  /** --comment: where the pull request's comment goes; null when none is posted. */
  comment: CommentPlan | null;
  /** The secrets given (platform variables left out); undefined when none were. */
  secrets: SecretT[] | undefined;
  payload: Payload;
  /** A directory that does not remember its deployment: once pushed, offer to (a terminal's push only). */
  remember: Memory | null;
}

const SOURCE_ONLY: [keyof PushInput, string][] = [
  ["agentConfigPath", "--agent-config-path"],
  ["maxSize", "--max-size"],
  ["includeCredentials", "--include-credentials"],
];

/**
 * Whether this push ships an image; the flags that do not go together are a usage error: an
 * image and a directory, an image and an archive, a directory's flags with an image, an
 * image's flags without one.
 */
function isImagePush(dir: string | undefined, input: PushInput): boolean {
  const image = input.image !== undefined || input.imageArchive !== undefined;
  if (input.image !== undefined && input.imageArchive !== undefined) {
    throw new UsageError(
      "--image and --image-archive: give one, the image in docker or podman or a saved one",
    );
  }
  if (!image) {
    const imageOnly = [input.engine !== undefined && "--engine", input.tag !== undefined && "--tag"].filter(
      Boolean,
    );
    if (imageOnly.length) {
      throw new UsageError(`${imageOnly.join(" and ")} go with --image or --image-archive (an image push)`);
    }
    return false;
  }
  const flag = input.image !== undefined ? "--image" : "--image-archive";
  if (dir !== undefined) {
    throw new UsageError(
      `${flag} ships an image: give no DIR (a directory is pushed without ${flag}, to an internal_source deployment)`,
    );
  }
  const sourceOnly = SOURCE_ONLY.filter(([key]) => input[key] !== undefined).map(([, name]) => name);
  if (sourceOnly.length) {
    throw new UsageError(`${sourceOnly.join(", ")}: only for a project directory, not with ${flag}`);
  }
  if (input.imageArchive !== undefined && input.engine !== undefined) {
    throw new UsageError("--engine goes with --image: an archive is pushed without docker or podman");
  }
  if ((input.image ?? input.imageArchive)!.trim() === "") throw new UsageError(`${flag} is empty`);
  // docker and podman would read it as one of their options (`--image=--config=/x`); the
  // engine's argv puts `--` before it too (image/engine/push.ts), but a name like that is a
  // mistake worth saying so.
  if (input.image?.startsWith("-")) {
    throw new UsageError(
      `--image ${JSON.stringify(input.image.slice(0, 140))} starts with "-": an image reference never does; give the image's name as docker or podman list it (--image my-app:latest)`,
    );
  }
  return true;
}

/**
 * The push as one request, all of it known before any request is sent: the flags checked, the
 * deployment's name and the secrets decided once, then what is shipped read and checked (a
 * project directory packed, or an image read).
 */
export async function preparePush(
  ctx: Ctx,
  dir: string | undefined,
  input: PushInput,
  report: PushReport,
): Promise<Shipment> {
  // What is shipped is found before the name is asked, so that a missing directory, archive
  // or image is said before a question on a terminal, not after the user answered it. An image
  // is read whole here (its name offered comes from it); a directory is packed only once the
  // name and secrets are settled. The image side is loaded only for an image push. A preview's
  // pull request is found first of all: it costs a small read at most.
  const image = isImagePush(dir, input);
  const pullRequest = await previewPullRequest(ctx, input);
  const imagePayload = image
    ? await (await import("./push-image.js")).imagePayload(ctx, input, report)
    : null;
  try {
    const directory = imagePayload ? null : await projectDirectory(ctx.cwd, dir ?? ".");
    // A directory's own project file may remember its deployment (remembered-name.ts): read
    // when it names the deployment (no --name) or when a push from a terminal may offer to.
    const offers = ctx.interactive && !ctx.flags.yes && !input.dryRun;
    const memory = !directory
      ? null
      : input.name === undefined
        ? await readMemory(ctx, directory)
        : offers
          ? await readMemory(ctx, directory).catch((error: unknown) => {
              // Only for the offer: a project file cpctl cannot read there does not stop a push
              // that named its deployment.
              if (!(error instanceof UsageError)) throw error;
              ctx.log.info(`not offering to remember the deployment: ${error.message.split("\n")[0]}`);
              return null;
            })
          : null;
    const given = await deploymentName(ctx, input, directory?.name, pullRequest, memory);
    const preview = pullRequest ? previewOf(ctx, given, pullRequest) : null;
    const name = preview ? previewName(preview.of, preview.number) : given;
    const secrets = await secretsToSend(ctx, input);
    const options = { ...(await pushOptions(ctx, input)), previewNumber: preview?.number };
    const comment = preview ? planComment(ctx, input.comment, input.dryRun) : null;
    const payload = imagePayload ?? (await sourcePayload(ctx, directory!, input, report));
    const remember = offers && memory && !memory.own?.deployment ? memory : null;
    return { name, preview, comment, secrets, payload, options, remember };
  } catch (error) {
    imagePayload?.release();
    throw error;
  }
}

/** --preview's pull request (and --comment's check: it goes with --preview), or null. */
async function previewPullRequest(ctx: Ctx, input: PushInput): Promise<PullRequest | null> {
  const asked = input.preview !== undefined && input.preview !== false;
  if (input.comment && !asked) {
    throw new UsageError("--comment goes with --preview: it comments on the pull request the preview is for");
  }
  if (!asked) return null;
  return pullRequestOf(input.preview as true | string, "--preview", {
    env: ctx.env,
    cwd: ctx.cwd,
    signal: ctx.signal,
  });
}

/** NAME's preview for the pull request; a NAME too long to have one is a usage error. */
function previewOf(ctx: Ctx, name: string, pullRequest: PullRequest): Preview {
  const problem = previewNameProblem(name, pullRequest.number);
  if (problem) throw new UsageError(`--name: ${problem}`);
  const where = pullRequest.from === "--preview" ? "" : ` (from ${pullRequest.from})`;
  ctx.log.info(
    `preview of ${name} for pull request #${pullRequest.number}${where}: deployment ${previewName(name, pullRequest.number)}`,
  );
  return { of: name, ...pullRequest };
}

/**
 * --secret and --secrets-file as `deploy patch` takes them; the variables the platform sets
 * itself are never sent, each one left out said.
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
  for (const left of built.leftOutSecrets) {
    ctx.log.warn(`secret ${left} is not sent: the platform sets ${left} itself on every deployment`);
  }
  return Array.isArray(built.body.secrets) ? (built.body.secrets as SecretT[]) : undefined;
}

/**
 * Waiting is the default (--no-wait stops); the build log streams on a terminal (as --logs
 * does), and always into -o ndjson events.
 */
async function pushOptions(ctx: Ctx, input: PushInput): Promise<PushOptions> {
  const format = (await ctx.printer()).options.format;
  const wait = input.wait !== false;
  refuseWithoutWait(input, wait);
  return {
    dryRun: input.dryRun,
    force: input.force,
    create: input.create,
    unsetSecret: input.unsetSecret,
    wait,
    verify: input.verify,
    verifyTimeout: input.verifyTimeout,
    verifyCmd: input.verifyCmd,
    rollbackOnFailure: input.rollbackOnFailure,
    timeout: input.timeout,
    interval: input.interval,
    logs: input.logs ?? (ctx.io.stderr.isTTY || format === "ndjson"),
    dotenvReport: input.dotenvReport,
  };
}

/**
 * --name, or the name the directory remembers, or on a terminal the answer to a question
 * (offered: the directory's or image's name). With --preview, the name of the deployment
 * previewed (NAME of NAME-pr-N).
 */
async function deploymentName(
  ctx: Ctx,
  input: PushInput,
  directoryName: string | undefined,
  pullRequest: PullRequest | null,
  memory: Memory | null,
): Promise<string> {
  const given = input.name;
  if (given !== undefined) {
    if (given.trim() === "") throw new UsageError("--name is empty: give the deployment's name");
    const remembered = memory?.own?.deployment;
    if (remembered && remembered !== given)
      ctx.log.info(`--name ${given}: the directory's project file names ${remembered}, not used here`);
    return given;
  }
  const remembered = memory ? rememberedName(ctx, memory) : null;
  if (remembered !== null) return remembered;
  if (!ctx.interactive) {
    throw new UsageError(
      "--name is required here: pass --name NAME, the deployment to create or update (found by its exact name)",
    ).withHint(
      `cpctl asks for it only when stdin and stdout are a terminal (and CI is not set); a directory's project file can name it: deployment: NAME in its .cpctlrc.yaml.`,
    );
  }
  const offered = directoryName ?? offeredImageName(input);
  const { terminalPrompter } = await import("../prompt/prompter.js");
  const prompter = await terminalPrompter(ctx);
  return prompter.input({
    message: pullRequest
      ? `Name of the deployment to preview (the preview NAME-pr-${pullRequest.number} is created when none has it)`
      : "Deployment name (created when none has it)",
    default: offered,
    validate: (value) => (value.trim() === "" ? "give a name" : true),
  });
}

/** The name offered for an image: its last path component, or the archive's file name. */
function offeredImageName(input: PushInput): string {
  if (input.image !== undefined) {
    const withoutDigest = input.image.split("@")[0]!;
    const lastPart = withoutDigest.slice(withoutDigest.lastIndexOf("/") + 1);
    return lastPart.split(":")[0] || "agent";
  }
  return basename(input.imageArchive!).replace(/(\.oci)?(\.tar)?(\.t?gz)?$/i, "") || "agent";
}
