// `deploy push --preview --comment` (issue 33, point 4) against a stand-in GitHub API
// (../helpers/github-fake.ts): one comment per NAME on the pull request, found by its hidden
// marker across pages and updated in place; a refusal or no answer is a warning and the exit
// code stays the deploy's; the token goes to GITHUB_API_URL alone and appears nowhere else.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { frontOf } from "../helpers/front.js";
import { startGitHubFake } from "../helpers/github-fake.js";
import { closedPort } from "../helpers/http-server.js";
import { startProxy } from "../helpers/proxy.js";
import { cliEnv, freshDir, instantClock, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const TOKEN = "ghs_0123456789abcdefTOKEN";
const MARKER = "<!-- cpctl-preview:my-agent -->";

function project(): string {
  const root = freshDir("comment-src");
  for (const [path, content] of Object.entries({
    "agent.json": '{"graphs":{"agent":"./agent.py:graph"}}',
    "agent.py": "graph = None\n",
  })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** A GitHub Actions step of a pull_request event for pull request 7. */
function step(githubUrl: string, extra: Record<string, string> = {}) {
  const dir = freshDir("comment-step");
  writeFileSync(
    join(dir, "event.json"),
    JSON.stringify({ action: "synchronize", pull_request: { number: 7 } }),
  );
  const env: Record<string, string> = {
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: join(dir, "event.json"),
    GITHUB_OUTPUT: join(dir, "output"),
    GITHUB_STEP_SUMMARY: join(dir, "summary.md"),
    GITHUB_API_URL: githubUrl,
    GITHUB_REPOSITORY: "acme/agent",
    GITHUB_SERVER_URL: "https://github.example",
    GITHUB_RUN_ID: "123456",
    GITHUB_TOKEN: TOKEN,
    ...extra,
  };
  const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), "utf8") : "");
  return { env, files: () => read("output") + read("summary.md") };
}

function push(
  em: TestEmulator,
  dir: string,
  env: Record<string, string>,
  args: string[] = [],
  base?: string,
) {
  return runCli(
    ["deploy", "push", dir, "--name", "my-agent", "--preview", "--comment", "--interval", "1s", ...args],
    {
      env: { ...cliEnv(em), ...(base ? { CPCTL_BASE_URL: base } : {}), ...env },
      clock: instantClock(Date.UTC(2026, 10, 21, 12), (ms) => em.advance(ms)),
    },
  );
}

describe("deploy push --comment: one comment, kept up to date", () => {
  it("creates it once, then updates it in place; it says where, which revision, how it went, when", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const github = await startGitHubFake({ token: TOKEN });
    const { env } = step(github.url);
    const dir = project();
    const first = await push(em, dir, env, ["-o", "json"]);
    expect(first.code, first.stderr).toBe(0);
    expect(github.calls()).toEqual([
      "GET /repos/acme/agent/issues/7/comments?per_page=100&page=1",
      "POST /repos/acme/agent/issues/7/comments",
    ]);
    expect(first.stderr).toContain(
      "created the preview's comment on pull request #7: https://github.example/",
    );
    const [comment] = github.comments(7);
    const result = JSON.parse(first.stdout);
    expect(comment!.body.startsWith(`${MARKER}\n`)).toBe(true);
    expect(comment!.body).toContain("### Preview of `my-agent` for #7: ✅ deployed");
    expect(comment!.body).toContain(`| URL | [${result.url}](${result.url}) |`);
    expect(comment!.body).toContain(`| Deployment | \`my-agent-pr-7\` (\`${result.deployment.id}\`) |`);
    expect(comment!.body).toContain(`| Revision | \`${result.revision.id}\`: DEPLOYED after `);
    expect(comment!.body).toContain("| Health | not checked (`deploy push --verify` checks it) |");
    expect(comment!.body).toMatch(
      /\| Updated \| 2026-11-21 12:\d\d:\d\d UTC by \[https:\/\/github\.example\/acme\/agent\/actions\/runs\/123456\]\(https:\/\/github\.example\/acme\/agent\/actions\/runs\/123456\) \|/,
    );

    writeFileSync(join(dir, "agent.py"), "graph = 'v2'\n");
    const second = await push(em, dir, env, ["--verify"]);
    expect(second.code, second.stderr).toBe(0);
    expect(github.calls().slice(2)).toEqual([
      "GET /repos/acme/agent/issues/7/comments?per_page=100&page=1",
      `PATCH /repos/acme/agent/issues/comments/${comment!.id}`,
    ]);
    expect(second.stderr).toContain("updated the preview's comment on pull request #7");
    const comments = github.comments(7);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain("✅ verified");
    expect(comments[0]!.body).toMatch(/\| Health \| verified: `\/ok` answered \(\d+ health checks?\) \|/);
  });

  it("finds its comment past the first page, and stops looking at a short page", async () => {
    const em = await startTestEmulator();
    const github = await startGitHubFake({ token: TOKEN });
    for (let i = 0; i < 230; i++) github.add(7, `comment ${i}`);
    const ours = github.add(7, `${MARKER}\nold`, "Bot");
    github.add(7, "after");
    const r = await push(em, project(), step(github.url).env);
    expect(r.code, r.stderr).toBe(0);
    expect(github.calls()).toEqual([
      "GET /repos/acme/agent/issues/7/comments?per_page=100&page=1",
      "GET /repos/acme/agent/issues/7/comments?per_page=100&page=2",
      "GET /repos/acme/agent/issues/7/comments?per_page=100&page=3",
      `PATCH /repos/acme/agent/issues/comments/${ours.id}`,
    ]);

    const other = await startGitHubFake({ token: TOKEN });
    for (let i = 0; i < 150; i++) other.add(7, `comment ${i}`);
    expect((await push(em, project(), step(other.url).env)).code).toBe(0);
    expect(other.calls().map((c) => c.split("?")[0]!.split(" ")[0])).toEqual(["GET", "GET", "POST"]);
  });

  it("keeps one comment per NAME: two apps of one repository do not overwrite each other", async () => {
    const em = await startTestEmulator();
    const github = await startGitHubFake({ token: TOKEN });
    const { env } = step(github.url);
    const dir = project();
    expect((await push(em, dir, env)).code).toBe(0);
    const other = await runCli(["deploy", "push", dir, "--name", "my-agent-2", "--preview", "--comment"], {
      env: { ...cliEnv(em), ...env },
      clock: instantClock(Date.now(), (ms) => em.advance(ms)),
    });
    expect(other.code, other.stderr).toBe(0);
    expect((await push(em, dir, env, ["--force"])).code).toBe(0);
    const bodies = github.comments(7).map((c) => c.body.split("\n")[0]);
    expect(bodies).toEqual([MARKER, "<!-- cpctl-preview:my-agent-2 -->"]);
    expect(github.calls().filter((c) => c.startsWith("POST"))).toHaveLength(2);
  });

  it("a person's comment that quotes the marker is not taken for cpctl's when cpctl's own is there", async () => {
    const em = await startTestEmulator();
    const github = await startGitHubFake({ token: TOKEN });
    github.add(7, `${MARKER}\npasted by someone`, "User");
    const ours = github.add(7, `${MARKER}\nold`, "Bot");
    expect((await push(em, project(), step(github.url).env)).code).toBe(0);
    expect(github.calls().at(-1)).toBe(`PATCH /repos/acme/agent/issues/comments/${ours.id}`);
  });
});

describe("deploy push --comment: the deploy is what counts", () => {
  for (const [status, said] of [
    [
      403,
      /GitHub did not allow listing the comment \(HTTP 403, "Resource not accessible by integration"\): the job's token needs `permissions: pull-requests: write`/,
    ],
    [
      404,
      /GitHub answered HTTP 404, "Not Found" while listing the comment: acme\/agent or its pull request is not visible/,
    ],
  ] as const) {
    it(`HTTP ${status}: a warning, and exit 0 with the deploy's result`, async () => {
      const em = await startTestEmulator();
      const github = await startGitHubFake({ token: TOKEN });
      github.refuse(status);
      const { env, files } = step(github.url);
      const r = await push(em, project(), env, ["-o", "json"]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).result).toBe("deployed");
      expect(r.stderr).toMatch(/::warning::--comment: /);
      expect(r.stderr).toMatch(said);
      expect(r.stderr).toContain("the deploy is unaffected");
      expect(files()).toContain("result=deployed");
    });
  }

  it("a token GitHub refuses (401), and no answer at all: warnings, exit 0", async () => {
    const em = await startTestEmulator();
    const github = await startGitHubFake({ token: "another-token" });
    const refused = await push(em, project(), step(github.url).env);
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stderr).toContain("GitHub refused GITHUB_TOKEN while listing the comment (HTTP 401");
    const nowhere = await push(em, project(), step(`http://127.0.0.1:${await closedPort()}`).env, [
      "--force",
    ]);
    expect(nowhere.code, nowhere.stderr).toBe(0);
    expect(nowhere.stderr).toMatch(/--comment: GitHub could not be reached at http:\/\/127\.0\.0\.1:\d+: /);
  });

  it("a failed revision is commented on too, and the exit code stays 5", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const github = await startGitHubFake({ token: TOKEN });
    const { env } = step(github.url);
    const dir = project();
    expect((await push(em, dir, env)).code).toBe(0);
    em.emulator.failNextRevision({ stage: "BUILDING" });
    const r = await push(em, dir, env, ["--force"]);
    expect(r.code).toBe(5);
    expect(github.comments(7)).toHaveLength(1);
    expect(github.comments(7)[0]!.body).toContain("❌ failed");
    expect(github.comments(7)[0]!.body).toContain("BUILD\\_FAILED"); // Markdown-escaped, shown as BUILD_FAILED
  });

  it("outside GitHub Actions, or without a token: one warning before anything is sent, the deploy goes on", async () => {
    const em = await startTestEmulator();
    const github = await startGitHubFake({ token: TOKEN });
    const outside = await runCli(
      ["deploy", "push", project(), "--name", "my-agent", "--preview", "3", "--comment"],
      {
        env: cliEnv(em, { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: github.url }),
        clock: instantClock(Date.now(), (ms) => em.advance(ms)),
      },
    );
    expect(outside.code, outside.stderr).toBe(0);
    expect(outside.stderr).toMatch(
      /^warning: --comment: no comment will be posted: this is not a GitHub Actions run \(GITHUB_ACTIONS is not true\); the deploy goes on$/m,
    );
    expect(outside.stderr.indexOf("no comment will be posted")).toBeLessThan(
      outside.stderr.indexOf("1. Packed"),
    );
    const { env } = step(github.url, { GITHUB_TOKEN: "" });
    const tokenless = await push(em, project(), env, ["--force"]);
    expect(tokenless.code, tokenless.stderr).toBe(0);
    expect(tokenless.stderr).toContain(
      "--comment: no comment will be posted: GITHUB_TOKEN is not set; the deploy goes on",
    );
    const plain = await push(em, project(), step("http://github.internal.example:8080").env, ["--force"]);
    expect(plain.stderr).toContain(
      "GITHUB_API_URL is plain http to github.internal.example:8080: the token would travel in clear",
    );
    expect(github.requests).toHaveLength(0);
  });

  it("a dry run posts nothing", async () => {
    const em = await startTestEmulator();
    const github = await startGitHubFake({ token: TOKEN });
    const r = await push(em, project(), step(github.url).env, ["--dry-run"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("--comment: a dry run posts no comment");
    expect(github.requests).toHaveLength(0);
  });
});

describe("deploy push --comment: the token", () => {
  it("goes to GITHUB_API_URL alone, and appears in no output, trace, CI file or comment", async () => {
    const em = await startTestEmulator();
    const front = await frontOf(em);
    const github = await startGitHubFake({ token: TOKEN });
    const { env, files } = step(github.url, { CPCTL_SECRET_VALUE: "sk-secret-value-1" });
    const r = await push(
      em,
      project(),
      env,
      ["--debug", "--secret", "OPENAI_API_KEY=sk-secret-value-1", "--verify"],
      front.url,
    );
    expect(r.code, r.stderr).toBe(0);
    for (const text of [r.stdout, r.stderr, files(), ...github.comments(7).map((c) => c.body)]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain("sk-secret-value-1");
    }
    expect(r.stderr).toMatch(/> Authorization: \[redacted\]/);
    expect(github.requests.length).toBeGreaterThan(0);
    for (const request of github.requests) expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    for (const request of front.requests) {
      expect(JSON.stringify(request.headers)).not.toContain(TOKEN);
      expect(request.url + request.body).not.toContain(TOKEN);
    }
  });

  it("goes through the proxy the environment names, as every request does", async () => {
    const em = await startTestEmulator();
    const github = await startGitHubFake({ token: TOKEN });
    const proxy = await startProxy();
    const { env } = step(github.url, { HTTP_PROXY: proxy.url, NO_PROXY: "" });
    const r = await push(em, project(), env);
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.forwarded).toContain(
      `GET ${github.url}/repos/acme/agent/issues/7/comments?per_page=100&page=1`,
    );
    expect(github.comments(7)).toHaveLength(1);
  });
});
