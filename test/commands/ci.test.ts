// What cpctl writes on GitHub Actions and for GitLab (CLI.md "In CI"), as the CI reads it:
// the step's output, searched for workflow commands the way the runner searches it
// (../helpers/workflow-commands.ts), the step summary as Markdown, the dotenv report as GitLab
// reads it (values as they are: GitLab keeps quotes). Text from a server or a file must never
// become a command, a broken table or an escape sequence there.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { frontOf } from "../helpers/front.js";
import { cliEnv, freshDir, runCli } from "../helpers/run-cli.js";
import { workflowCommands } from "../helpers/workflow-commands.js";

afterEach(closeTestEmulators);

/** A GitHub Actions step: its output and summary files, in a fresh directory. */
function githubStep(em: { url: string; apiKey: string }, extra: Record<string, string> = {}) {
  const dir = freshDir("step");
  const env = cliEnv(em, {
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_OUTPUT: join(dir, "output"),
    GITHUB_STEP_SUMMARY: join(dir, "summary.md"),
    ...extra,
  });
  const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), "utf8") : "");
  return { dir, env, summary: () => read("summary.md"), output: () => read("output") };
}

/** What an attacker puts in a name, a key or a server's message. */
const INJECTIONS = [
  "::add-mask::injected",
  "  ::set-output name=result::deployed",
  "\u00a0::stop-commands::pwned",
  "##[error]injected",
  "text ##[set-output name=result;]deployed",
];

describe("GitHub Actions: nothing cpctl prints becomes a workflow command", () => {
  it("an error is its annotation alone: no plain copy, and a key from deploy.yaml cannot inject", async () => {
    const em = await startTestEmulator();
    const step = githubStep(em);
    const file = join(step.dir, "deploy.yaml");
    const keys = INJECTIONS.map((text, i) => `  ${JSON.stringify(`k${i}\n${text}`)}: 1`).join("\n");
    writeFileSync(file, `name: web\nsource: external_container\nsource_config:\n${keys}\n`);
    const r = await runCli(["deploy", "diff", "-f", file, "--exit-code"], { env: step.env, cwd: step.dir });
    expect(r.code).toBe(2);
    // Errors only (one for each problem, at its line of deploy.yaml), the injections as text.
    const commands = workflowCommands(r.stderr + r.stdout);
    expect(new Set(commands.map((c) => c.command))).toEqual(new Set(["error"]));
    const said = commands.map((c) => c.data).join("\n");
    for (const text of INJECTIONS) expect(said).toContain(text);
    expect(r.stderr).not.toMatch(/^error: /m);
  });

  it("a server's error detail cannot inject either", async () => {
    const em = await startTestEmulator();
    const front = await frontOf(em, {
      intercept: () => ({ status: 400, body: { detail: `bad request\n${INJECTIONS.join("\n")}` } }),
    });
    const step = githubStep({ url: front.url, apiKey: em.apiKey });
    const r = await runCli(["deploy", "list"], { env: step.env });
    expect(r.code).toBe(2);
    expect(workflowCommands(r.stderr + r.stdout).map((c) => c.command)).toEqual(["error"]);
  });

  it("nor a server's text in results, whatever the format; JSON keeps the exact value", async () => {
    const em = await startTestEmulator();
    const hostile = `web\n${INJECTIONS.join("\n")}`;
    await em.createDeployment("external_container", "plain");
    const front = await frontOf(em, {
      rewrite: (answer) => answer.text.replaceAll('"plain"', JSON.stringify(hostile)),
    });
    const step = githubStep({ url: front.url, apiKey: em.apiKey });
    for (const format of ["table", "json", "ndjson", "yaml", "id"]) {
      const r = await runCli(["deploy", "list", "-o", format], { env: step.env });
      expect(r.code, r.stderr).toBe(0);
      expect(workflowCommands(r.stdout + r.stderr), format).toEqual([]);
    }
    const list = await runCli(["deploy", "list", "-o", "json"], { env: step.env });
    expect(JSON.parse(list.stdout)[0].name).toBe(hostile);
  });

  it("with -o json, stderr holds the JSON error object alone (no ::error line before it)", async () => {
    const em = await startTestEmulator();
    const step = githubStep(em);
    const r = await runCli(["deploy", "get", "missing", "-o", "json"], { env: step.env });
    expect(r.code).toBe(4);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).error.code).toBe("not_found");
  });

  it("warnings are ::warning annotations", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("external_container", "web");
    const step = githubStep(em);
    const r = await runCli(["deploy", "patch", "web", "--unset-secret", "NOPE", "--min-scale", "2", "-y"], {
      env: step.env,
    });
    expect(r.code, r.stderr).toBe(0);
    const warnings = workflowCommands(r.stderr).filter((c) => c.command === "warning");
    expect(warnings.map((c) => c.data)).toEqual(["deployment web has no secret NOPE to unset"]);
    expect(r.stderr).not.toMatch(/^warning: /m);
  });

  it("a problem in deploy.yaml is annotated at its file and line", async () => {
    const em = await startTestEmulator();
    const step = githubStep(em, { GITHUB_WORKSPACE: "" });
    writeFileSync(
      join(step.dir, "deploy.yaml"),
      "name: web\nsource: external_container\nsource_config:\n  min_scale_typo: 3\n  resource_spec:\n    cpu: lots\n",
    );
    const r = await runCli(["deploy", "diff", "-f", "deploy.yaml"], {
      env: { ...step.env, GITHUB_WORKSPACE: step.dir },
      cwd: step.dir,
    });
    expect(r.code).toBe(2);
    const located = workflowCommands(r.stderr).filter((c) => c.properties.file);
    expect(located.map((c) => [c.command, c.properties.file, c.properties.line])).toEqual(
      expect.arrayContaining([
        ["error", "deploy.yaml", "4"],
        ["error", "deploy.yaml", "6"],
      ]),
    );
    expect(located.find((c) => c.properties.line === "6")!.data).toBe(
      'deploy.yaml is not valid:\ndeploy.yaml:6: source_config.resource_spec.cpu: must be a number, not a string ("lots")',
    );
    const syntax = join(step.dir, "broken.yaml");
    writeFileSync(syntax, "name: web\nsource: [unclosed\n");
    const broken = await runCli(["deploy", "diff", "-f", "broken.yaml"], {
      env: { ...step.env, GITHUB_WORKSPACE: step.dir },
      cwd: step.dir,
    });
    const [annotation] = workflowCommands(broken.stderr);
    expect(annotation!.properties.file).toBe("broken.yaml");
    expect(annotation!.data).toMatch(
      new RegExp(`^broken\\.yaml:${annotation!.properties.line}: not valid YAML`),
    );
  });

  it("--show-secrets: each secret value is masked (::add-mask::) before it is printed", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("external_container", "web", {
      secrets: [{ name: "TOKEN", value: "visible-s3cret\nsecond-line" }],
    });
    const step = githubStep(em);
    const r = await runCli(["deploy", "get", "web", "-o", "json", "--show-secrets"], { env: step.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("visible-s3cret");
    const masks = workflowCommands(r.stderr).filter((c) => c.command === "add-mask");
    expect(masks.map((c) => c.data)).toEqual([
      "visible-s3cret\nsecond-line",
      "visible-s3cret",
      "second-line",
    ]);
    // stdout is the result alone.
    expect(JSON.parse(r.stdout).name).toBe("web");
  });
});

describe("the step summary", () => {
  it("escapes Markdown in every cell and writes no ESC or bidi character", async () => {
    const em = await startTestEmulator();
    const name = "web|`x`|**bold**";
    const url = "https://web.example.com/a?b=1&c=%20|`z`)\u001b[31m\u202eevil";
    const made = await em.createDeployment("external_container", "web");
    const front = await frontOf(em, {
      rewrite: (answer) =>
        answer.text
          .replaceAll('"web"', JSON.stringify(name))
          .replace(/"custom_url":(null|"[^"]*")/g, `"custom_url":${JSON.stringify(url)}`),
    });
    const step = githubStep({ url: front.url, apiKey: em.apiKey });
    const r = await runCli(["deploy", "patch", made.id, "--min-scale", "2", "--wait", "-y"], {
      env: step.env,
    });
    expect(r.code, r.stderr).toBe(0);
    const summary = step.summary();
    expect(summary).not.toMatch(/[\u001b\u009b\u202a-\u202e\u2066-\u2069]/);
    // Every table row has its three pipes: none came from a value.
    for (const row of summary.split("\n").filter((line) => line.startsWith("|")))
      expect(row.replace(/\\\|/g, "").match(/\|/g), row).toHaveLength(3);
    expect(summary).toContain("web\\|\\`x\\`\\|\\*\\*bold\\*\\*");
    expect(summary).not.toContain("[https://web.example.com/a?b=1&c=%20|`z`)");
    // The outputs keep the exact values (a step output is data, not Markdown).
    expect(step.output()).toContain(`deployment_name=${name}\n`);
  });
});

describe('the step summary\'s "What changed"', () => {
  it("is the change's own: a patch's fields, a redeploy's; none for a wait or a patch that sends nothing", async () => {
    const em = await startTestEmulator();
    const made = await em.createDeployment("external_container", "web");
    const run = async (args: string[]) => {
      const step = githubStep(em);
      const r = await runCli(args, { env: step.env });
      expect(r.code, r.stderr).toBe(0);
      const summary = step.summary();
      return summary.includes("**What changed**") ? summary.slice(summary.indexOf("**What changed**")) : null;
    };
    const patched = await run(["deploy", "patch", made.id, "--min-scale", "2", "-y"]);
    expect(patched).toContain("min_scale");
    expect(await run(["deploy", "patch", made.id, "--min-scale", "2", "-y"])).toBeNull();
    expect(await run(["deploy", "wait", made.id])).toBeNull();
    // A new image, then the first revision again: the redeploy's change is the image back.
    expect(await run(["deploy", "patch", made.id, "--image-uri", "example.com/web:2", "-y"])).toContain(
      "image_uri",
    );
    const redeployed = await run([
      "deploy",
      "redeploy",
      made.id,
      "--revision",
      made.latest_revision_id!,
      "-y",
    ]);
    expect(redeployed).toContain("image_uri");
    expect(redeployed).not.toContain("min_scale");
  });
});

describe("--dotenv-report (a GitLab dotenv report)", () => {
  it("writes values as they are: GitLab keeps quotes, so none are added", async () => {
    const em = await startTestEmulator();
    const url = "https://web.example.com/path?a=1&b=%20x";
    const body = em.createBody("external_container", "web") as { source_config: Record<string, unknown> };
    body.source_config.custom_url = url;
    expect((await em.post("/v2/deployments", body)).status).toBe(201);
    const dir = freshDir("gitlab");
    const r = await runCli(
      ["deploy", "patch", "web", "--min-scale", "2", "--wait", "-y", "--dotenv-report", "deploy.env"],
      { env: cliEnv(em, { CI: "true", GITLAB_CI: "true" }), cwd: dir },
    );
    expect(r.code, r.stderr).toBe(0);
    const report = readFileSync(join(dir, "deploy.env"), "utf8");
    expect(report).toContain(`url=${url}\n`);
    expect(report).not.toContain('"');
    expect(
      report
        .trimEnd()
        .split("\n")
        .map((line) => line.split("=")[0]),
    ).toEqual(["deployment_id", "deployment_name", "revision_id", "status", "result", "url"]);
  });
});
