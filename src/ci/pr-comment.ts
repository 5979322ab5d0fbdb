// One comment on a pull request, kept up to date: found by a hidden marker that its body starts
// with (an HTML comment, which GitHub does not show), updated in place when found, created
// when not. The pull request's comments are listed page by page (100 a page, oldest first: the
// comment is usually made by the first push of a pull request, so it is found early), up to
// MAX_PAGES; past that it is created anew, and said. A failure is a CommentFailure saying what
// GitHub answered; the caller decides what it means (for a preview: a warning).
import { NetworkError } from "../errors.js";
import type { GitHubAnswer, GitHubClient } from "./github-api.js";

/** Pages of comments looked through, at most: 2,000 comments. */
export const MAX_PAGES = 20;
const PER_PAGE = 100;

export interface Upserted {
  action: "created" | "updated";
  id: number;
  /** The comment's page, when GitHub gave it. */
  url: string | null;
}

/** GitHub refused, or could not be reached: `status` null for the latter. */
export class CommentFailure extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

interface Comment {
  id: number;
  body: string;
  bot: boolean;
}

/** Creates or updates the comment of pull request `number` whose body starts with `marker`. */
export async function upsertComment(
  client: GitHubClient,
  number: number,
  marker: string,
  body: string,
  note: (text: string) => void,
): Promise<Upserted> {
  if (!body.startsWith(marker)) throw new Error("the comment's body must start with its marker");
  const found = await findComment(client, number, marker, note);
  const answer = found
    ? await send(client, "PATCH", client.repositoryUrl(`/issues/comments/${found.id}`), { body })
    : await send(client, "POST", client.repositoryUrl(`/issues/${number}/comments`), { body });
  const json = answer.json as { id?: unknown; html_url?: unknown } | null;
  return {
    action: found ? "updated" : "created",
    id: typeof json?.id === "number" ? json.id : (found?.id ?? 0),
    url: typeof json?.html_url === "string" ? json.html_url : null,
  };
}

/** The first comment that starts with the marker (one a bot wrote, when there are several). */
async function findComment(
  client: GitHubClient,
  number: number,
  marker: string,
  note: (text: string) => void,
): Promise<Comment | null> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const url = client.repositoryUrl(`/issues/${number}/comments`, { per_page: PER_PAGE, page });
    const answer = await send(client, "GET", url);
    if (!Array.isArray(answer.json)) {
      throw new CommentFailure(
        `GitHub's list of comments is not a JSON array (HTTP ${answer.status})`,
        answer.status,
      );
    }
    const comments = answer.json.map(commentOf).filter((c): c is Comment => c !== null);
    const matching = comments.filter((c) => c.body.startsWith(marker));
    const chosen = matching.find((c) => c.bot) ?? matching[0];
    if (chosen) return chosen;
    if (answer.json.length < PER_PAGE) return null;
  }
  note(
    `looked through the first ${MAX_PAGES * PER_PAGE} comments of pull request #${number} without finding cpctl's: posting a new one`,
  );
  return null;
}

function commentOf(value: unknown): Comment | null {
  const c = value as { id?: unknown; body?: unknown; user?: { type?: unknown } | null } | null;
  if (!c || typeof c.id !== "number" || typeof c.body !== "string") return null;
  return { id: c.id, body: c.body, bot: c.user?.type === "Bot" };
}

/** A 2xx answer, or a CommentFailure saying what GitHub answered (or that it was not reached). */
async function send(client: GitHubClient, method: string, url: URL, body?: unknown): Promise<GitHubAnswer> {
  let answer: GitHubAnswer;
  try {
    answer = await client.request(method, url, body);
  } catch (error) {
    if (error instanceof NetworkError) {
      throw new CommentFailure(
        `GitHub could not be reached at ${url.origin}: ${error.message.split("\n")[0]}`,
        null,
      );
    }
    throw error;
  }
  if (answer.status >= 200 && answer.status < 300) return answer;
  throw new CommentFailure(refusal(client, method, answer), answer.status);
}

/** What a refusal means, in the words a workflow's author needs. */
function refusal(client: GitHubClient, method: string, answer: GitHubAnswer): string {
  const said = (answer.json as { message?: unknown } | null)?.message;
  const status = `HTTP ${answer.status}${typeof said === "string" && said ? `, "${said.slice(0, 200)}"` : ""}`;
  const { owner, repo } = client.target;
  const what = `${method === "GET" ? "listing" : method === "PATCH" ? "updating" : "creating"} the comment`;
  const rateLimited =
    answer.status === 429 || (answer.status === 403 && answer.headers["x-ratelimit-remaining"] === "0");
  if (rateLimited) return `GitHub's rate limit was reached while ${what} (${status})`;
  switch (answer.status) {
    case 401:
      return `GitHub refused GITHUB_TOKEN while ${what} (${status})`;
    case 403:
      return `GitHub did not allow ${what} (${status}): the job's token needs \`permissions: pull-requests: write\`, and a pull request from a fork gets a read-only one`;
    case 404:
      return `GitHub answered ${status} while ${what}: ${owner}/${repo} or its pull request is not visible with this token (or GITHUB_API_URL is not GitHub's API)`;
    default:
      return `GitHub answered ${status} while ${what}`;
  }
}
