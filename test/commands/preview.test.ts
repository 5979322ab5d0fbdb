// `deploy push --preview [N]` (issue 33, point 4): a preview for every pull request. It ships to
// NAME-pr-N, created as NAME would be and never touching NAME; N is given or found in the CI
// run (GitHub Actions: the event file, GITHUB_REF; GitLab: CI_MERGE_REQUEST_IID), before any
// request; the outputs carry url and preview_number.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { dockerArchive, makeTestImage } from "../helpers/images.js";
import { cliEnv, freshDir, instantClock, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

function project(): string {
  const root = freshDir("preview-src");
  for (const [path, content] of Object.entries({
    "agent.json": '{"graphs":{"agent":"./agent.py:graph"}}',
    "agent.py": "graph = None\n",
  })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

function run(em: TestEmulator, args: string[], env: Record<string, string> = {}) {
  return runCli(["deploy", "push", ...args, "--interval", "1s"], {
    env: cliEnv(em, env),
    clock: instantClock(Date.now(), (ms) => em.advance(ms)),
  });
}

async function named(em: TestEmulator, name: string) {
  return (await em.get(`/v2/deployments?name=${encodeURIComponent(name)}`)).json.resources;
}

/** A GitHub Actions run of a pull_request event for pull request `number`. */
function githubEvent(event: unknown): Record<string, string> {
  const dir = freshDir("event");
  writeFileSync(join(dir, "event.json"), JSON.stringify(event));
  return {
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: join(dir, "event.json"),
    GITHUB_OUTPUT: join(dir, "output"),
  };
}

describe("deploy push --preview N", () => {
  it("creates NAME-pr-N as NAME would be created, and never touches NAME", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project();
    const first = await run(em, [dir, "--name", "my-agent", "--secret", "API_TOKEN=token-value-1"]);
    expect(first.code, first.stderr).toBe(0);
    const [before] = await named(em, "my-agent");
    em.advance(60_000);

    const r = await run(em, [
      dir,
      "--name",
      "my-agent",
      "--preview",
      "7",
      "--secret",
      "API_TOKEN=token-value-2",
      "-o",
      "json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ created: true, result: "deployed", preview_number: 7 });
    expect(result.deployment.name).toBe("my-agent-pr-7");
    expect(result.url).toBe(`${em.emulator.agents.url}/${result.deployment.id}`);
    expect(r.stderr).toContain("preview of my-agent for pull request #7: deployment my-agent-pr-7");
    const [preview] = await named(em, "my-agent-pr-7");
    expect(preview).toMatchObject({
      source: "internal_source",
      secrets: [{ name: "API_TOKEN", value: "token-value-2" }],
    });
    expect(preview.source_revision_config.agent_config_path).toBe("agent.json");
    // NAME: not patched, not a new revision, its secret as it was.
    const [after] = await named(em, "my-agent");
    expect(after).toEqual(before);
    expect(after.secrets).toEqual([{ name: "API_TOKEN", value: "token-value-1" }]);
  });

  it("needs no NAME at all; a second push updates the same preview", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project();
    expect((await run(em, [dir, "--name", "app", "--preview", "12"])).code).toBe(0);
    writeFileSync(join(dir, "agent.py"), "graph = 'v2'\n");
    const again = await run(em, [dir, "--name", "app", "--preview", "12", "-o", "json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: false, uploaded: true, preview_number: 12 });
    expect(await named(em, "app")).toEqual([]);
    expect((await named(em, "app-pr-12")).length).toBe(1);
  });

  it("streams it in the ndjson done event, writes it to the step outputs and the dotenv report", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const env = githubEvent({ pull_request: { number: 3 } });
    const report = join(freshDir("report"), "deploy.env");
    const r = await run(
      em,
      [project(), "--name", "my-agent", "--preview", "-o", "ndjson", "--dotenv-report", report],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const done = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
    expect(done).toMatchObject({ event: "done", preview_number: 3, result: "deployed" });
    const outputs = readFileSync(env.GITHUB_OUTPUT!, "utf8");
    expect(outputs).toContain("deployment_name=my-agent-pr-3\n");
    expect(outputs).toContain("preview_number=3\n");
    expect(outputs).toContain(`url=${done.url}\n`);
    expect(readFileSync(report, "utf8")).toContain("preview_number=3\n");
  });

  it("a push without --preview writes no preview_number", async () => {
    const em = await startTestEmulator();
    const env = githubEvent({ pull_request: { number: 3 } });
    expect((await run(em, [project(), "--name", "my-agent"], env)).code).toBe(0);
    expect(readFileSync(env.GITHUB_OUTPUT!, "utf8")).not.toContain("preview_number");
  });

  it("ships an image archive to NAME-pr-N too", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const file = join(freshDir("image"), "app.tar");
    writeFileSync(file, dockerArchive(makeTestImage("preview", 2)));
    const r = await run(em, ["--image-archive", file, "--name", "My-App", "--preview", "5", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.deployment).toMatchObject({ name: "My-App-pr-5", source: "internal_container" });
    expect(result.image_uri).toMatch(/\/my-app-pr-5@sha256:[0-9a-f]{64}$/);
    expect(result.preview_number).toBe(5);
  });

  it("--dry-run names the preview and sends nothing that changes anything", async () => {
    const em = await startTestEmulator();
    const r = await run(em, [project(), "--name", "my-agent", "--preview", "9", "--dry-run", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      name: "my-agent-pr-9",
      preview_number: 9,
      action: "create",
    });
    expect(em.emulator.stats().requests["POST /v2/deployments"]).toBeUndefined();
  });
});

describe("deploy push --preview: the number found in the CI run", () => {
  const cases: [string, Record<string, string>, number][] = [
    [
      "GitHub: pull_request.number of the event",
      githubEvent({ action: "opened", pull_request: { number: 41 } }),
      41,
    ],
    [
      "GitHub: a comment on a pull request (issue_comment)",
      githubEvent({ issue: { number: 43, pull_request: { url: "x" } } }),
      43,
    ],
    [
      "GitHub: GITHUB_REF refs/pull/N/merge when the event has no pull request",
      { ...githubEvent({ workflow: "x" }), GITHUB_REF: "refs/pull/42/merge" },
      42,
    ],
    [
      "GitHub: GITHUB_REF without an event file",
      { GITHUB_ACTIONS: "true", GITHUB_REF: "refs/pull/44/merge" },
      44,
    ],
    ["GitLab: CI_MERGE_REQUEST_IID", { GITLAB_CI: "true", CI_MERGE_REQUEST_IID: "45" }, 45],
  ];
  for (const [what, env, number] of cases) {
    it(what, async () => {
      const em = await startTestEmulator();
      const r = await run(em, [project(), "--name", "svc", "--preview", "-o", "json"], env);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        preview_number: number,
        deployment: { name: `svc-pr-${number}` },
      });
    });
  }

  it("a number given wins over the run's", async () => {
    const em = await startTestEmulator();
    const r = await run(
      em,
      [project(), "--name", "svc", "--preview", "8", "-o", "json"],
      githubEvent({ pull_request: { number: 41 } }),
    );
    expect(JSON.parse(r.stdout).preview_number).toBe(8);
  });
});

describe("deploy push --preview: every mistake before any request (exit 2)", () => {
  const expectRefused = async (args: string[], env: Record<string, string>, message: RegExp | string) => {
    const em = await startTestEmulator();
    const r = await run(em, [project(), ...args], env);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(em.emulator.stats().total).toBe(0);
  };

  it("outside a pull request, with no N", async () => {
    await expectRefused(
      ["--name", "svc", "--preview"],
      {},
      /--preview: no pull request number: not in a pull request's CI run/,
    );
    await expectRefused(
      ["--name", "svc", "--preview"],
      {
        ...githubEvent({ ref: "refs/heads/main" }),
        GITHUB_EVENT_NAME: "push",
        GITHUB_REF: "refs/heads/main",
      },
      /this GitHub Actions run is for a push event, not a pull request/,
    );
    await expectRefused(
      ["--name", "svc", "--preview"],
      { GITLAB_CI: "true" },
      /not a merge request pipeline/,
    );
  });

  it("an N that is not a pull request's number, given or found", async () => {
    for (const n of ["0", "-3", "07", "1.5", "abc"])
      await expectRefused(["--name", "svc", `--preview=${n}`], {}, /is not a pull request's number/);
    await expectRefused(
      ["--name", "svc", "--preview"],
      githubEvent({ pull_request: { number: "7" } }),
      /GITHUB_EVENT_PATH .*pull_request\.number is "7", not a pull request's number/,
    );
    await expectRefused(
      ["--name", "svc", "--preview"],
      { GITHUB_ACTIONS: "true", GITHUB_REF: "refs/pull/x/merge" },
      /GITHUB_REF "refs\/pull\/x\/merge": not a pull request's number/,
    );
    await expectRefused(
      ["--name", "svc", "--preview"],
      { CI_MERGE_REQUEST_IID: "0" },
      /CI_MERGE_REQUEST_IID "0"/,
    );
  });

  it("a DIR taken for N says how to write it", async () => {
    const em = await startTestEmulator();
    const r = await run(em, ["--name", "svc", "--preview", "./agent"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--preview "./agent" is not a pull request\'s number');
    expect(r.stderr).toContain("put DIR before it");
  });

  it("an event file that cannot be read, is not JSON, or is endless", async () => {
    const dir = freshDir("bad-event");
    writeFileSync(join(dir, "event.json"), "{not json");
    const base = { GITHUB_ACTIONS: "true" };
    await expectRefused(
      ["--name", "svc", "--preview"],
      { ...base, GITHUB_EVENT_PATH: join(dir, "missing.json") },
      /GITHUB_EVENT_PATH .*: cannot read it \(no such file\)/,
    );
    await expectRefused(
      ["--name", "svc", "--preview"],
      { ...base, GITHUB_EVENT_PATH: join(dir, "event.json") },
      /GITHUB_EVENT_PATH .*: not JSON/,
    );
    if (existsSync("/dev/zero"))
      await expectRefused(
        ["--name", "svc", "--preview"],
        { ...base, GITHUB_EVENT_PATH: "/dev/zero" },
        /larger than 25 MiB/,
      );
  });

  it("a NAME too long for NAME-pr-N to be a deployment name", async () => {
    await expectRefused(
      ["--name", "a".repeat(124), "--preview", "7"],
      {},
      /--name: the preview's name .* would be 129 characters, more than the 128 .*at most 123 characters here \(it has 124\)/,
    );
  });

  it("--comment without --preview", async () => {
    await expectRefused(["--name", "svc", "--comment"], {}, "--comment goes with --preview");
  });
});
