// What `deploy push` (push.ts) and its two payloads share: the Payload each one is, a project
// directory's tarball for an internal_source deployment (push-source.ts) or an image for an
// internal_container one (push-image.ts), and the report they all write to. push.ts finds or
// creates the deployment, previews, confirms, patches, waits and reports the same way for both;
// what differs is behind Payload. The name and the secrets are decided once, before either
// (push-request.ts).
//
// What a push shows while it works and when it ends (PushReport):
// - on stderr, in every format, a numbered line per step (packed, found, created, uploaded,
//   patched; for an image: image, found, created, pushed, patched), then the wait's own
//   progress (a spinner with the elapsed time on a terminal);
// - with -o ndjson, on stdout, one event a line as it happens (`{"event": "packed", ...}`,
//   "found", "created", "uploaded", "patched", "status", "log", and last "done" with the
//   result; "image" and "pushed" for an image), so that a CI system or an editor can follow;
// - at the end, the result: one object with -o json or yaml, the deployment ID with -o id, a
//   few `label value` lines with -o table (the outcome and the URL).
// Secret values never appear: deployments are masked (unless --show-secrets), and log lines
// come masked as every log line is read (operations/logs.ts).
import type { ApiClient } from "../api/client.js";
import type { OutcomeResult } from "../ci/report.js";
import type { Ctx } from "../context.js";
import type { FailureDetail } from "../errors.js";
import type { Change } from "../model/changes.js";
import type { DeploymentT, LogEntry } from "../model/responses.js";
import type { Printer, View } from "../output/printer.js";
import { styled, writeText } from "../output/safe-text.js";
import { formatBytes } from "../util/bytes.js";
import { formatDuration } from "../util/duration.js";
import type { RollbackReport } from "./release.js";
import type { Verification } from "./verify.js";

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

/** The result of a push: `-o json`'s object, and the last ndjson event's fields. */
export interface PushResult {
  deployment: DeploymentT;
  /** The revision the push started and waited for (or, unchanged, the active one). */
  revision: { id: string; status: string | null } | null;
  created: boolean;
  uploaded: boolean;
  /**
   * The gzipped tarball's size and sha256; for an image, its blobs' size (read from an archive;
   * null through docker or podman) and its manifest's sha256 (null before it was pushed).
   */
  bytes: number | null;
  sha256: string | null;
  /** An image push: the image_uri patched in (REGISTRY/NAME@sha256:...), once pushed. */
  image_uri?: string;
  /** deployed, failed, timed_out, interrupted, started (--no-wait) or unchanged; verified or unverified with --verify. */
  result: OutcomeResult;
  elapsed_seconds: number | null;
  /** The deployment's custom_url, when it has one. */
  url: string | null;
  /** The revision failed: in which stage, the error, the end of its log (masked); null otherwise. */
  failure?: FailureDetail | null;
  /** With --preview: the pull request's number (the deployment is NAME-pr-N). */
  preview_number?: number;
  /** With --verify: how the check ended (null: none was made). */
  verification?: Verification | null;
  /** With --rollback-on-failure: the rollback (null: none). */
  rollback?: RollbackReport | null;
}

type StepEvent = "packed" | "image" | "found" | "created" | "uploaded" | "pushed" | "patched";

export class PushReport {
  private steps = 0;

  constructor(
    private readonly ctx: Ctx,
    private readonly printer: Printer,
  ) {}

  private get streaming(): boolean {
    return this.printer.options.format === "ndjson";
  }

  /** A step: its numbered line on stderr, and its event on stdout with -o ndjson. */
  async step(event: StepEvent, text: string, fields: Record<string, unknown>): Promise<void> {
    this.steps++;
    writeText(this.ctx.io.stderr, styled`${this.ctx.paint.bold(`${this.steps}.`)} ${text}\n`);
    if (this.streaming) await this.printer.value({ event, ...fields });
  }

  /** The revision's status changed while waiting (ndjson only: the wait shows its own progress). */
  status(revisionId: string, status: string, elapsedMs: number): void {
    if (this.streaming)
      void this.printer.value({
        event: "status",
        revision_id: revisionId,
        status,
        elapsed_seconds: elapsedMs / 1000,
      });
  }

  /** A line of the revision's log (ndjson only), masked as every log line is read (logs.ts). */
  log(revisionId: string, entry: LogEntry): void {
    if (!this.streaming) return;
    void this.printer.value({
      event: "log",
      revision_id: revisionId,
      timestamp: entry.timestamp,
      level: entry.level,
      message: entry.message,
    });
  }

  /** The result on stdout, in the format asked for. */
  async done(result: PushResult): Promise<void> {
    switch (this.printer.options.format) {
      case "ndjson":
        return this.printer.value({ event: "done", ...result });
      case "id":
        return this.printer.line(result.deployment.id);
      case "table":
        return this.printer.item(result, pushResultView);
      default:
        return this.printer.value(result);
    }
  }
}

/** `-o table`: the outcome in a few lines (the deployment itself is `deploy get`'s). */
const pushResultView: View<PushResult> = {
  id: (r) => r.deployment.id,
  columns: [],
  details: (r) => [
    ["deployment", `${r.deployment.name} (${r.deployment.id})`],
    ["revision", r.revision ? `${r.revision.id}${r.revision.status ? ` ${r.revision.status}` : ""}` : null],
    [
      "result",
      `${r.result}${r.elapsed_seconds !== null ? ` after ${formatDuration(r.elapsed_seconds * 1000)}` : ""}`,
    ],
    r.image_uri !== undefined
      ? ["image", r.image_uri]
      : [
          "source",
          r.bytes === null
            ? null
            : `${formatBytes(r.bytes)}, sha256 ${r.sha256}${r.uploaded ? "" : " (not uploaded again)"}`,
        ],
    ["url", r.url],
    // What did not happen (no failure, no check asked for, no rollback) is no row at all.
    ...onlyWhen(r.failure, (failure) => ["failure", `${failure.stage}: ${failure.message}`]),
    ...onlyWhen(r.preview_number, (pr) => ["preview", `of pull request #${pr}`]),
    ...onlyWhen(r.verification, (v) => ["verification", `${v.result}${v.reason ? `: ${v.reason}` : ""}`]),
    ...onlyWhen(r.rollback, (rollback) => [
      "rollback",
      `revision ${rollback.revision_id} ${rollback.status ?? ""} (${rollback.result})`,
    ]),
  ],
};

/** A row of the details when `value` is there: none for null or undefined. */
function onlyWhen<T>(value: T | null | undefined, row: (value: T) => [string, string]): [string, string][] {
  return value === null || value === undefined ? [] : [row(value)];
}
