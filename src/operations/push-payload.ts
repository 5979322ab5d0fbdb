// What `deploy push` ships, seen from the push itself (push.ts): a project directory's tarball
// to an internal_source deployment (push-source.ts), or an image to an internal_container one
// (push-image.ts). The push finds or creates the deployment, previews, confirms, patches,
// waits and reports the same way for both; what differs is behind Payload. Both ask the
// deployment's name and the secrets the same way (deploymentName, secretsToSend).
import type { ApiClient } from "../api/client.js";
import type { Ctx } from "../context.js";
import { UsageError } from "../errors.js";
import type { EngineName } from "../image/engine/find.js";
import { checkTag } from "../image/tag.js";
import { buildBody } from "../manifest/build.js";
import type { Change } from "../model/changes.js";
import { PLATFORM_VARIABLES } from "../model/platform-variables.js";
import type { DeploymentT } from "../model/responses.js";
import type { SecretT } from "../model/schemas.js";
import type { FinishOptions } from "./after-change.js";
import type { PushReport } from "./push-report.js";

export interface PushInput extends FinishOptions {
  name?: string;
  secret?: string[];
  secretsFile?: string;
  unsetSecret?: string[];
  allowEmptySecrets?: boolean;
  /** Push even when the active revision already runs what would be shipped, with these settings. */
  force?: boolean;
  dryRun?: boolean;
  // A project directory (internal_source):
  agentConfigPath?: string;
  /** Default: DEFAULT_MAX_UPLOAD_BYTES. */
  maxSize?: number;
  includeCredentials?: boolean;
  // An image (internal_container):
  image?: string;
  imageArchive?: string;
  engine?: EngineName;
  tag?: string;
}

/** The PATCH fields that point the deployment at what was shipped. */
export interface ShippedFields {
  revision_source?: "internal_source" | "internal_container";
  source_revision_config: Record<string, string>;
}

export interface Payload {
  /** The source of the deployments it goes to (and new ones are created with). */
  readonly source: "internal_source" | "internal_container";
  /** What is shipped, for messages: "./agent", "docker archive image.tar (example/agent:latest)". */
  readonly shown: string;
  /** What shipping is called in messages: "the upload", "the image push". */
  readonly shipping: string;
  /** Tracked packages the PATCH carries (detected in a project; none for an image). */
  readonly trackedPackages: string[];
  /** The source_revision_config of a new deployment. */
  createRevisionConfig(): Record<string, unknown>;
  /** source_revision_config fields the PATCH carries besides the shipped one (a changed agent_config_path). */
  settings(current: DeploymentT): Record<string, unknown>;
  /** The preview's line for what shipping sets: its value is known only once shipped. */
  pendingChange(current: DeploymentT | null): Change;
  /**
   * The active revision runs what is shipped already (asked before anything is sent): then,
   * with no setting changed, nothing is. `what` says it for the message.
   */
  runningAlready(
    api: ApiClient,
    deployment: DeploymentT,
  ): Promise<{ id: string; status: string; what: string } | null>;
  /** Uploads or pushes it, reporting its step; the PATCH fields that point at it. */
  ship(ctx: Ctx, api: ApiClient, deployment: DeploymentT, report: PushReport): Promise<ShippedFields>;
  /** What the result says of what was shipped (bytes and sha256; image_uri for an image). */
  result(): { bytes: number | null; sha256: string | null; image_uri?: string };
  /** --dry-run: the printed object's fields about what would be shipped, and its text form. */
  dryRun(): { fields: Record<string, unknown>; text: string };
  /** Frees what it holds (an image archive's temporary files). */
  release(): void;
}

/** What a push sends, all of it known before any request. */
export interface Shipment {
  name: string;
  /** The secrets given (platform variables left out); undefined when none were. */
  secrets: SecretT[] | undefined;
  payload: Payload;
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
export function isImagePush(dir: string | undefined, input: PushInput): boolean {
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
  if (input.tag !== undefined) checkTag(input.tag);
  return true;
}

/** --name, or on a terminal the answer to a question (default: `offered`). */
export async function deploymentName(ctx: Ctx, given: string | undefined, offered: string): Promise<string> {
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
    default: offered,
    validate: (value) => (value.trim() === "" ? "give a name" : true),
  });
}

/**
 * --secret, --secrets-file and --unset-secret as `deploy patch` takes them; the variables the
 * platform sets itself are never sent, each one left out said.
 */
export async function secretsToSend(ctx: Ctx, input: PushInput): Promise<SecretT[] | undefined> {
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
