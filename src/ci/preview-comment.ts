// The comment `deploy push --preview --comment` keeps on a pull request: where the preview is,
// which revision, how it ended, its health as far as it was checked, and when. Its first line
// is a hidden marker naming the deployment previewed (one comment per NAME, so that two apps of
// one repository keep a comment each). Every value from a server or a file goes through
// ./markdown.ts (escaped as text, a link only to an http(s) URL), and every secret the run knows
// is masked: the comment is public to whoever reads the pull request.

import { formatDuration } from "../util/duration.js";
import * as md from "./markdown.js";
import type { OutcomeResult } from "./report.js";
import { RESULT_MARK } from "./report.js";

export interface PreviewFacts {
  /** NAME: the deployment previewed (the marker's). */
  of: string;
  /** The pull request's number. */
  number: number;
  deployment: { id: string; name: string; url: string | null };
  revision: { id: string; status: string | null } | null;
  result: OutcomeResult;
  elapsedSeconds: number | null;
  /** With --verify: how its check ended; undefined when none was made. */
  verification?: { result: string; reason: string | null; attempts: number } | null;
  rollback?: { revision_id: string; status: string | null; result: string } | null;
  /** When (ms since the epoch): the comment says it in UTC. */
  time: number;
  /** The workflow run that made it, when the environment says. */
  runUrl: string | null;
}

/** The hidden first line: `<!-- cpctl-preview:NAME -->`, NAME percent-encoded (no `-->` in it). */
export function previewMarker(of: string): string {
  return `<!-- cpctl-preview:${encodeURIComponent(of)} -->`;
}

/** The whole body, its marker first; `mask` hides every secret the run knows. */
export function previewCommentBody(facts: PreviewFacts, mask: (text: string) => string): string {
  const { deployment, revision, verification, rollback } = facts;
  const rows: [string, string][] = [
    ["URL", deployment.url ? md.link(deployment.url) : "none (the deployment has no address)"],
    ["Deployment", `${md.code(deployment.name)} (${md.code(deployment.id)})`],
    [
      "Revision",
      revision
        ? `${md.code(revision.id)}${revision.status ? `: ${md.text(revision.status)}` : ""}${facts.elapsedSeconds !== null ? ` after ${formatDuration(facts.elapsedSeconds * 1000)}` : ""}`
        : "none",
    ],
    ["Health", health(verification)],
  ];
  if (rollback) {
    rows.push([
      "Rollback",
      `${md.code(rollback.revision_id)}: ${md.text(rollback.status ?? "unknown")} (${md.text(rollback.result)})`,
    ]);
  }
  rows.push(["Updated", `${utc(facts.time)}${facts.runUrl ? ` by ${md.link(facts.runUrl)}` : ""}`]);
  const content = [
    `### Preview of ${md.code(facts.of)} for #${facts.number}: ${RESULT_MARK[facts.result]}`,
    "",
    "| | |",
    "|---|---|",
    ...rows.map(([label, value]) => `| ${label} | ${value} |`),
    "",
    "<sub>cpctl updates this comment on every push to the pull request.</sub>",
    "",
  ].join("\n");
  return `${previewMarker(mask(facts.of))}\n${mask(content)}`;
}

function health(verification: PreviewFacts["verification"]): string {
  if (!verification) return "not checked (`deploy push --verify` checks it)";
  if (verification.result === "verified")
    return `verified: \`/ok\` answered (${verification.attempts} health check${verification.attempts === 1 ? "" : "s"})`;
  return `${md.text(verification.result)}${verification.reason ? `: ${md.text(verification.reason)}` : ""}`;
}

/** 2026-11-21 12:00:00 UTC */
function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}
