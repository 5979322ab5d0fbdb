// A stand-in for GitHub's REST API as `deploy push --comment` uses it: a pull request's issue
// comments, listed a page at a time (`per_page`, `page`, oldest first), created and updated. On
// 127.0.0.1 with an OS-chosen port (./http-server.ts records every request); it answers only a
// request carrying `Authorization: Bearer TOKEN`, and `refuse` makes it answer every request with
// that status and GitHub's kind of body.
//
//   const github = await startGitHubFake({ token: "ghs_test" });
//   env: { GITHUB_API_URL: github.url, GITHUB_TOKEN: "ghs_test", GITHUB_REPOSITORY: "acme/agent", ... }
//   expect(github.comments(7)).toHaveLength(1);
import { json, type RecordedRequest, startServer, type TestServer } from "./http-server.js";

export interface FakeComment {
  id: number;
  body: string;
  user: { login: string; type: "Bot" | "User" };
  html_url: string;
}

export interface GitHubFake {
  url: string;
  server: TestServer;
  requests: RecordedRequest[];
  /** The comments of pull request `number`, oldest first. */
  comments(number: number): FakeComment[];
  /** Adds a comment of someone's (to fill pages, or to copy cpctl's marker). */
  add(number: number, body: string, type?: "Bot" | "User"): FakeComment;
  /** From now on, every request gets this status (null: answer again). */
  refuse(status: number | null): void;
  /** "GET /repos/acme/agent/issues/7/comments?per_page=100&page=1", ... */
  calls(): string[];
}

export async function startGitHubFake(options: { token: string; repository?: string }): Promise<GitHubFake> {
  const repository = options.repository ?? "acme/agent";
  const byIssue = new Map<number, FakeComment[]>();
  let nextId = 1000;
  let refusal: number | null = null;
  const issue = (number: number) => {
    const list = byIssue.get(number) ?? [];
    byIssue.set(number, list);
    return list;
  };
  const add = (number: number, body: string, type: "Bot" | "User" = "User"): FakeComment => {
    const id = nextId++;
    const comment: FakeComment = {
      id,
      body,
      user: { login: type === "Bot" ? "github-actions[bot]" : "someone", type },
      html_url: `https://github.example/${repository}/pull/${number}#issuecomment-${id}`,
    };
    issue(number).push(comment);
    return comment;
  };
  let url = "";
  const server = await startServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${options.token}`)
      return json(res, 401, {
        message: "Bad credentials",
        documentation_url: "https://docs.github.com/rest",
      });
    if (refusal !== null) {
      const message = refusal === 403 ? "Resource not accessible by integration" : "Not Found";
      return json(res, refusal, { message, documentation_url: "https://docs.github.com/rest" });
    }
    const at = new URL(req.url, url);
    const prefix = `/repos/${repository}/issues/`;
    const list = new RegExp(`^${prefix}(\\d+)/comments$`).exec(at.pathname);
    const one = new RegExp(`^${prefix}comments/(\\d+)$`).exec(at.pathname);
    if (list && req.method === "GET") {
      const perPage = Number(at.searchParams.get("per_page") ?? 30);
      const page = Number(at.searchParams.get("page") ?? 1);
      return json(res, 200, issue(Number(list[1])).slice((page - 1) * perPage, page * perPage));
    }
    if (list && req.method === "POST") {
      return json(res, 201, add(Number(list[1]), JSON.parse(req.body).body, "Bot"));
    }
    if (one && req.method === "PATCH") {
      for (const comments of byIssue.values()) {
        const found = comments.find((c) => c.id === Number(one[1]));
        if (found) {
          found.body = JSON.parse(req.body).body;
          return json(res, 200, found);
        }
      }
    }
    return json(res, 404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
  });
  url = server.url;
  return {
    url,
    server,
    requests: server.requests,
    comments: (number) => [...issue(number)],
    add,
    refuse: (status) => {
      refusal = status;
    },
    calls: () => server.requests.map((r) => `${r.method} ${r.url}`),
  };
}
