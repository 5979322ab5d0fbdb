// What a change or a wait leaves for the rest of a CI pipeline once it ends, whatever the
// outcome (CLI.md "In CI"):
// - on GitHub Actions: step outputs in $GITHUB_OUTPUT and a Markdown summary (what changed,
//   the revision's outcome and time, the build-log tail on failure, the URL) in
//   $GITHUB_STEP_SUMMARY;
// - anywhere, with --dotenv-report FILE: the same outputs as a dotenv file (a GitLab dotenv
//   report gives them to later jobs).
// Secret values never reach any of these: changes are always masked, and every known secret
// (the run's credentials and the secret values it handled) is replaced in what is written.
import { appendFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Change } from "../model/changes.js";
import type { DeploymentT, LogEntry } from "../model/responses.js";
import { changeLines } from "../output/changes.js";
import { logLine } from "../output/log-lines.js";
import { NO_PAINT, visible } from "../output/safe-text.js";
import type { RunContext } from "../run-context.js";
import { createMasker } from "../secrets.js";
import { formatDuration } from "../util/duration.js";
import { onGitHubActions } from "./detect.js";
import * as md from "./markdown.js";

export type OutcomeResult =
  | "deployed"
  | "failed"
  | "timed_out"
  | "interrupted"
  | "created"
  | "started"
  | "unchanged"
  | "verified"
  | "unverified";

export interface Outcome {
  /** "deploy patch", "deploy wait", ...: the summary's title. */
  command: string;
  deployment: DeploymentT;
  revisionId: string | null;
  /** The revision's status as last seen, or null when not read. */
  status: string | null;
  result: OutcomeResult;
  elapsedSeconds?: number;
  /** What the change previewed (none for a wait alone): the summary's "What changed". */
  changes?: readonly Change[];
  /** The end of the revision's log, when it failed. */
  logTail?: readonly LogEntry[];
  /** With --verify: how the revision's check ended. */
  verification?: { result: string; url: string | null; attempts: number; reason: string | null };
  /** With --rollback-on-failure: the rollback's revision and how it ended. */
  rollback?: { revision_id: string; status: string | null; result: string };
  /** deploy push --preview: the pull request's number (the deployment is its preview). */
  previewNumber?: number;
}

/** The outputs of CLI.md "In CI", in order (and a preview's number, with deploy push --preview). */
function outputsOf(outcome: Outcome): [string, string][] {
  return [
    ["deployment_id", outcome.deployment.id],
    ["deployment_name", outcome.deployment.name],
    ["revision_id", outcome.revisionId ?? ""],
    ["status", outcome.status ?? ""],
    ["result", outcome.result],
    ["url", outcome.deployment.source_config?.custom_url ?? ""],
    ...(outcome.previewNumber !== undefined
      ? [["preview_number", String(outcome.previewNumber)] as [string, string]]
      : []),
  ];
}

interface ReportOptions {
  /** --dotenv-report FILE. */
  dotenvReport?: string;
}

/** What writing the report uses of a run. */
export type ReportContext = Pick<RunContext, "cwd" | "env" | "log" | "knownSecrets">;

export function reportOutcome(ctx: ReportContext, outcome: Outcome, options: ReportOptions): void {
  const secrets = ctx.knownSecrets();
  const outputs = outputsOf(outcome).map(([name, value]) => [name, hide(value, secrets)] as const);
  try {
    if (options.dotenvReport) {
      writeFileSync(
        resolve(ctx.cwd, options.dotenvReport),
        outputs.map(([name, value]) => `${name}=${dotenvValue(value)}\n`).join(""),
      );
    }
    if (!onGitHubActions(ctx.env)) return;
    if (ctx.env.GITHUB_OUTPUT) {
      appendFileSync(ctx.env.GITHUB_OUTPUT, outputs.map(([name, value]) => outputLine(name, value)).join(""));
    }
    if (ctx.env.GITHUB_STEP_SUMMARY) {
      appendFileSync(ctx.env.GITHUB_STEP_SUMMARY, hide(summaryOf(outcome), secrets));
    }
  } catch (error) {
    // The deployment happened; a report that cannot be written is worth a warning, not a failure.
    ctx.log.warn(`could not write the CI report (${(error as Error).message})`);
  }
}

/** `name<<DELIMITER` form: any value, even one with a newline, stays one output. */
function outputLine(name: string, value: string): string {
  if (!/[\r\n]/.test(value)) return `${name}=${value}\n`;
  const delimiter = `CPCTL_EOF_${Math.random().toString(36).slice(2)}`;
  return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
}

/**
 * A dotenv report's value, as it is: GitLab (like docker's --env-file) keeps quotes as part of
 * the value, and has no escapes, so a URL with `?`, `&` or `%` is written bare. A line break
 * or another control character cannot be written at all: it is shown as an escape (`\x0a`).
 */
function dotenvValue(value: string): string {
  return visible(value);
}

/** A result as the summary and a preview's comment show it: a mark and its words. */
export const RESULT_MARK: Record<OutcomeResult, string> = {
  deployed: "✅ deployed",
  failed: "❌ failed",
  timed_out: "⏱️ timed out",
  interrupted: "⏹️ interrupted",
  created: "🆕 created",
  started: "▶️ new revision started",
  unchanged: "➖ no new revision",
  verified: "✅ verified",
  unverified: "⚠️ unverified",
};

/**
 * The Markdown summary. Every value that came from a server or a file goes through
 * ./markdown.ts: escaped as text, a link only to an http(s) URL, code blocks no line can close.
 */
function summaryOf(outcome: Outcome): string {
  const d = outcome.deployment;
  const rows: [string, string][] = [
    ["Deployment", `${md.code(d.name)} (${md.code(d.id)})`],
    [
      "Revision",
      outcome.revisionId
        ? `${md.code(outcome.revisionId)}${outcome.status ? `: ${md.text(outcome.status)}` : ""}${outcome.elapsedSeconds !== undefined ? ` after ${formatDuration(outcome.elapsedSeconds * 1000)}` : ""}`
        : "none",
    ],
  ];
  if (outcome.previewNumber !== undefined)
    rows.push(["Preview", `of pull request #${outcome.previewNumber}`]);
  const url = d.source_config?.custom_url;
  if (url) rows.push(["URL", md.link(url)]);
  const { verification, rollback } = outcome;
  if (verification) {
    rows.push([
      "Verification",
      `${md.text(verification.result)}${verification.reason ? `: ${md.text(verification.reason)}` : ` (${verification.attempts} health check${verification.attempts === 1 ? "" : "s"})`}`,
    ]);
  }
  if (rollback) {
    rows.push([
      "Rollback",
      `${md.code(rollback.revision_id)}: ${md.text(rollback.status ?? "unknown")} (${md.text(rollback.result)})`,
    ]);
  }
  const parts = [
    `### cpctl ${outcome.command}: ${md.text(d.name)} ${RESULT_MARK[outcome.result]}`,
    "",
    "| | |",
    "|---|---|",
    ...rows.map(([label, value]) => `| ${label} | ${value} |`),
    "",
  ];
  if (outcome.changes && outcome.changes.length > 0) {
    parts.push(
      "**What changed**",
      "",
      ...md.codeBlock(
        "diff",
        changeLines(outcome.changes, { showSecrets: false, paint: NO_PAINT }).map((line) => line.text),
      ),
      "",
    );
  }
  if (outcome.logTail && outcome.logTail.length > 0) {
    parts.push(
      `**The last ${outcome.logTail.length} lines of the revision's log**`,
      "",
      ...md.codeBlock(
        "text",
        outcome.logTail.map((entry) => logLine(entry, NO_PAINT).text),
      ),
      "",
    );
  }
  return `${parts.join("\n")}\n`;
}

function hide(text: string, secrets: Iterable<string>): string {
  return createMasker(secrets)(text);
}
