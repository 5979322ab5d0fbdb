// What `deploy push` ships, seen from the push itself (push.ts): a project directory's tarball
// to an internal_source deployment (push-source.ts), or an image to an internal_container one
// (push-image.ts). The push finds or creates the deployment, previews, confirms, patches,
// waits and reports the same way for both; what differs is behind Payload. The name and the
// secrets are decided once, before either (push-request.ts).
import type { ApiClient } from "../api/client.js";
import type { Ctx } from "../context.js";
import type { EngineName } from "../image/engine/find.js";
import type { SecretFlags } from "../manifest/build.js";
import type { Change } from "../model/changes.js";
import type { DeploymentT } from "../model/responses.js";
import type { SecretT } from "../model/schemas.js";
import type { FinishFlags, FinishOptions } from "./after-change.js";
import type { CommentPlan } from "./preview-comment.js";
import type { PushReport } from "./push-report.js";

/** `deploy push`'s options: what its flags parse to (the command checks that they match). */
export type PushInput = FinishFlags &
  SecretFlags & {
    name?: string;
    /** --preview [N]: ship to NAME-pr-N (true: N found in the CI run). */
    preview?: boolean | string;
    /** --comment: create or update the pull request's comment about the preview (GitHub Actions). */
    comment?: boolean;
    unsetSecret?: string[];
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
  };

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
  runningAlready(api: ApiClient, deployment: DeploymentT): Promise<RunningRevision | null>;
  /** Uploads or pushes it, reporting its step; the PATCH fields that point at it. */
  ship(ctx: Ctx, api: ApiClient, deployment: DeploymentT, report: PushReport): Promise<ShippedFields>;
  /** What the result says of what was shipped (bytes and sha256; image_uri for an image). */
  result(): { bytes: number | null; sha256: string | null; image_uri?: string };
  /** --dry-run: the printed object's fields about what would be shipped, and its text form. */
  dryRun(): { fields: Record<string, unknown>; text: string };
  /** Frees what it holds (an image archive's temporary files). */
  release(): void;
}

/** The active revision, running what a push would ship; `what` says it for messages. */
export interface RunningRevision {
  id: string;
  status: string;
  what: string;
}

/** What a push does besides shipping, decided from its flags once (push-request.ts). */
export interface PushOptions extends FinishOptions {
  dryRun?: boolean;
  force?: boolean;
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
}
