// The pull request a run deploys a preview for (`deploy push --preview [N]`): N as given, or
// found where the CI system says it:
// - GitHub Actions (GITHUB_ACTIONS=true): the event file GITHUB_EVENT_PATH, `pull_request.number`
//   (pull_request and pull_request_target events), or `issue.number` of a comment on a pull
//   request (issue_comment, whose `issue.pull_request` is set); else a GITHUB_REF of
//   `refs/pull/N/merge` (or `/head`);
// - GitLab CI: CI_MERGE_REQUEST_IID, set in merge request pipelines.
// A value found but not a pull request's number (or an event file that cannot be read) is a
// usage error naming where it came from; none at all is one too, saying where cpctl looked.
// Read before anything is sent, so that a mistake costs no request.
import { resolve } from "node:path";
import { UsageError } from "../errors.js";
import { type Env, readTextFile, unreadableFile } from "../io.js";
import { parsePullRequestNumber } from "../model/preview-name.js";

/** A pull request's number, and where it was found (a flag, or a variable's name), for messages. */
export interface PullRequest {
  number: number;
  from: string;
}

/**
 * The most of an event file that is read: GitHub caps a webhook payload at 25 MB, and a
 * pull_request event is a few tens of kilobytes.
 */
const EVENT_FILE_LIMIT = { maxBytes: 25 * 1024 * 1024, what: "a GitHub Actions event file" };

interface Where {
  env: Env;
  cwd: string;
  signal?: AbortSignal;
}

/**
 * `given`: --preview's value (true: none given). The flag that asked for it is named in
 * messages (`--preview`).
 */
export async function pullRequestOf(given: string | true, flag: string, where: Where): Promise<PullRequest> {
  if (given !== true) {
    const number = parsePullRequestNumber(given);
    if (number === null) throw notANumber(`${flag} ${JSON.stringify(given.slice(0, 40))}`, flag);
    return { number, from: flag };
  }
  const found = (await fromGitHub(where)) ?? fromGitLab(where.env);
  if (found) return found;
  throw new UsageError(`${flag}: no pull request number: ${notInPullRequest(where.env)}`).withHint(
    `Give it: ${flag} N. cpctl finds it by itself in a pull request's run: on GitHub Actions in the event (GITHUB_EVENT_PATH) or a GITHUB_REF of refs/pull/N/merge, on GitLab CI in CI_MERGE_REQUEST_IID.`,
  );
}

function notANumber(what: string, flag: string): UsageError {
  return new UsageError(`${what} is not a pull request's number: expected a whole number from 1 up`).withHint(
    `${flag} takes the number as an optional value: put DIR before it (deploy push ./agent --name NAME ${flag} 7), or write ${flag}=N.`,
  );
}

/** Why no number was found: what this run is. */
function notInPullRequest(env: Env): string {
  if (env.GITHUB_ACTIONS === "true") {
    const event = env.GITHUB_EVENT_NAME ? `a ${env.GITHUB_EVENT_NAME} event` : "an event";
    return `this GitHub Actions run is for ${event}, not a pull request (GITHUB_REF=${env.GITHUB_REF ?? "unset"})`;
  }
  if (env.GITLAB_CI)
    return "this GitLab CI pipeline is not a merge request pipeline (CI_MERGE_REQUEST_IID is not set)";
  return "not in a pull request's CI run";
}

async function fromGitHub(where: Where): Promise<PullRequest | null> {
  const { env } = where;
  if (env.GITHUB_ACTIONS !== "true") return null;
  if (env.GITHUB_EVENT_PATH) {
    const number = await fromEventFile(env.GITHUB_EVENT_PATH, where);
    if (number !== null) return { number, from: "GITHUB_EVENT_PATH" };
  }
  const ref = /^refs\/pull\/([^/]+)\/(?:merge|head)$/.exec(env.GITHUB_REF ?? "");
  if (!ref) return null;
  const number = parsePullRequestNumber(ref[1]!);
  if (number === null)
    throw new UsageError(
      `GITHUB_REF ${JSON.stringify(env.GITHUB_REF!.slice(0, 80))}: not a pull request's number`,
    );
  return { number, from: "GITHUB_REF" };
}

/** The pull request's number in the event, null for an event of something else. */
async function fromEventFile(path: string, where: Where): Promise<number | null> {
  const label = `GITHUB_EVENT_PATH (${path})`;
  let event: unknown;
  try {
    const text = await readTextFile(resolve(where.cwd, path), {
      limit: EVENT_FILE_LIMIT,
      label,
      signal: where.signal,
    });
    event = JSON.parse(text);
  } catch (error) {
    if (error instanceof SyntaxError) throw new UsageError(`${label}: not JSON (${error.message})`);
    throw unreadableFile(label, error, "give the pull request's number: --preview N");
  }
  const record = (value: unknown): Record<string, unknown> | null =>
    value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  const pullRequest = record(record(event)?.pull_request);
  const issue = record(record(event)?.issue);
  const [value, field] = pullRequest
    ? [pullRequest.number, "pull_request.number"]
    : issue?.pull_request
      ? [issue.number, "issue.number"]
      : [undefined, ""];
  if (value === undefined) return null;
  const number = typeof value === "number" ? parsePullRequestNumber(String(value)) : null;
  if (number === null)
    throw new UsageError(
      `${label}: ${field} is ${String(JSON.stringify(value)).slice(0, 40)}, not a pull request's number`,
    );
  return number;
}

function fromGitLab(env: Env): PullRequest | null {
  const iid = env.CI_MERGE_REQUEST_IID;
  if (!iid) return null;
  const number = parsePullRequestNumber(iid);
  if (number === null)
    throw new UsageError(
      `CI_MERGE_REQUEST_IID ${JSON.stringify(iid.slice(0, 40))}: not a merge request's number`,
    );
  return { number, from: "CI_MERGE_REQUEST_IID" };
}
