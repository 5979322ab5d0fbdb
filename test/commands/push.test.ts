// `deploy push [DIR]`: the everyday job in one command (issue 20), end to end against the
// emulator: find or create by name, pack, upload, patch, wait; nothing sent when nothing
// changed; every local problem before any request.
import { linkSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readTarGz } from "../../src/util/untar.js";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { frontOf } from "../helpers/front.js";
import { cliEnv, freshDir, instantClock, previewOf, runCli } from "../helpers/run-cli.js";
import { ctrlCAt, emulatorEvent } from "../reliability/helpers.js";

afterEach(closeTestEmulators);

function project(files: Record<string, string> = {}): string {
  const root = freshDir("push-src");
  const all: Record<string, string> = {
    "agent.json": '{"graphs":{"agent":"./agent.py:graph"}}',
    "agent.py": "graph = None\n",
    ...files,
  };
  for (const [path, content] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const count = (em: TestEmulator, route: string) => em.emulator.stats().requests[route] ?? 0;
const CREATE = "POST /v2/deployments";
const UPLOAD_URL = "POST /v2/deployments/{deployment_id}/upload-url";
const PUT = "PUT /_uploads/{upload_id}";
const PATCH = "PATCH /v2/deployments/{deployment_id}";
const changesSent = (em: TestEmulator) => [CREATE, UPLOAD_URL, PUT, PATCH].map((route) => count(em, route));

/** A wait that takes no real time: every poll moves the emulator's clock on. */
function run(em: TestEmulator, args: string[], extra: Parameters<typeof runCli>[1] = {}) {
  return runCli(["deploy", "push", ...args, "--interval", "1s"], {
    env: cliEnv(em, { ...(extra.env as Record<string, string>) }),
    clock: instantClock(Date.now(), (ms) => em.advance(ms)),
    ...Object.fromEntries(Object.entries(extra).filter(([key]) => key !== "env")),
  });
}

async function deploymentNamed(em: TestEmulator, name: string) {
  const list = await em.get(`/v2/deployments?name=${name}`);
  return list.json.resources;
}

describe("deploy push: a new name", () => {
  it("creates it as internal_source, uploads once, patches once, waits for DEPLOYED", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project();
    const r = await run(em, [
      dir,
      "--name",
      "fresh-agent",
      "--secret",
      "API_TOKEN=token-value-1",
      "-o",
      "json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(changesSent(em)).toEqual([1, 1, 1, 1]);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ created: true, uploaded: true, result: "deployed" });
    expect(result.url).toBe(`${em.emulator.agents.url}/${result.deployment.id}`);
    expect(result.revision.status).toBe("DEPLOYED");
    expect(result.deployment.source).toBe("internal_source");
    // Secrets never reach stdout unless asked.
    expect(r.stdout).not.toContain("token-value-1");
    expect(r.stderr).not.toContain("token-value-1");

    const [deployment] = await deploymentNamed(em, "fresh-agent");
    expect(deployment.source_revision_config.agent_config_path).toBe("agent.json");
    expect(deployment.secrets).toEqual([{ name: "API_TOKEN", value: "token-value-1" }]);
    expect(deployment.active_revision_id).toBe(result.revision.id);
    const stored = em.emulator.tarball(deployment.source_revision_config.source_tarball_path);
    expect(readTarGz(stored!).map((e) => e.path)).toEqual(["agent.json", "agent.py"]);
    const revision = await em.get(`/v2/deployments/${deployment.id}/revisions/${result.revision.id}`);
    expect(revision.json.source_tarball_sha256).toBe(result.sha256);
  });

  it("numbers its steps on stderr and ends with the outcome lines on stdout", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const r = await run(em, [project(), "--name", "steps-agent"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^1\. Packed 2 files from /m);
    expect(r.stderr).toMatch(/^2\. Created deployment steps-agent \(/m);
    expect(r.stderr).toMatch(/^3\. Uploaded \d+ B to uploads\//m);
    expect(r.stderr).toMatch(/^4\. Started revision /m);
    expect(r.stdout).toMatch(/^deployment\tsteps-agent \(/m);
    expect(r.stdout).toMatch(/^result\tdeployed after /m);
    // What did not happen is not a row of its own: no failure, no check asked, no rollback.
    expect(r.stdout).not.toMatch(/^(failure|verification|rollback)\t/m);
  });

  it("off a terminal without --name: exit 2 saying what to pass, nothing sent", async () => {
    const em = await startTestEmulator();
    const r = await run(em, [project()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--name is required here: pass --name NAME");
    expect(em.emulator.stats().total).toBe(0);
  });
});

describe("deploy push: an existing deployment", () => {
  async function pushed(em: TestEmulator, dir: string, name = "agent") {
    const first = await run(em, [dir, "--name", name, "--secret", "KEEP=keep-value-1"]);
    expect(first.code, first.stderr).toBe(0);
    return (await deploymentNamed(em, name))[0];
  }

  it("a change: no create, one upload and one patch; the deployment's other secrets stay", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project();
    await pushed(em, dir);
    writeFileSync(join(dir, "agent.py"), "graph = 'v2'\n");
    const before = changesSent(em);
    const r = await run(em, [dir, "--name", "agent", "--secret", "NEW=new-value-1", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(changesSent(em).map((n, i) => n - before[i]!)).toEqual([0, 1, 1, 1]);
    expect(JSON.parse(r.stdout)).toMatchObject({ created: false, uploaded: true, result: "deployed" });
    const [deployment] = await deploymentNamed(em, "agent");
    expect(deployment.secrets.map((s: { name: string }) => s.name).sort()).toEqual(["KEEP", "NEW"]);
    expect(previewOf(r.stderr).changes.map((c) => c.path)).toEqual([
      "source_revision_config.source_tarball_path",
      "secrets.NEW",
    ]);
  });

  it("nothing changed: says so, uploads and patches nothing, exit 0; --force pushes anyway", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project();
    const deployment = await pushed(em, dir);
    const before = changesSent(em);
    const r = await run(em, [dir, "--name", "agent", "--secret", "KEEP=keep-value-1", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("nothing to push: the active revision");
    expect(changesSent(em)).toEqual(before);
    expect(JSON.parse(r.stdout)).toMatchObject({
      created: false,
      uploaded: false,
      result: "unchanged",
      revision: { id: deployment.active_revision_id, status: "DEPLOYED" },
    });

    const forced = await run(em, [dir, "--name", "agent", "--force", "-o", "json"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ uploaded: true, result: "deployed" });
  });

  it("a different agent configuration is a change, shown in the preview", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project({ "langgraph.json": '{"graphs":{}}' });
    await pushed(em, dir);
    const r = await run(em, [dir, "--name", "agent", "--agent-config-path", "langgraph.json", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const change = previewOf(r.stderr).changes.find(
      (c) => c.path === "source_revision_config.agent_config_path",
    );
    expect(change).toMatchObject({ current: "agent.json", desired: "langgraph.json" });
    expect((await deploymentNamed(em, "agent"))[0].source_revision_config.agent_config_path).toBe(
      "langgraph.json",
    );
  });

  it("a failed build: exit 5 with the end of its log, the result still on stdout", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project();
    await pushed(em, dir);
    writeFileSync(join(dir, "agent.py"), "graph = 'broken'\n");
    em.emulator.failNextRevision({ stage: "BUILDING", message: "error: pip install failed" });
    const r = await run(em, [dir, "--name", "agent", "-o", "json"]);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: "failed", revision: { status: "BUILD_FAILED" } });
    const error = JSON.parse(r.stderr.trim().split("\n").at(-1)!).error;
    expect(error.details.tail.at(-1).message).toContain("error: pip install failed");
  });

  it("the deployment unreadable after the wait: said on stderr, the result shown as the patch left it", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    let broken = false;
    // From the wait's first poll on, reading the deployment fails (its revisions still answer).
    const clock = instantClock(Date.now(), (ms) => {
      if (!broken) em.emulator.addFault({ method: "GET", path: "/v2/deployments/*", status: 500, count: 50 });
      broken = true;
      em.advance(ms);
    });
    const r = await run(em, [project(), "--name", "agent", "-o", "json"], { clock });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /could not read deployment agent after the wait \(.*\); it is printed as the change left it/,
    );
    expect(JSON.parse(r.stdout)).toMatchObject({ result: "deployed", deployment: { name: "agent" } });
  });

  it("a deployment of another source: exit 2 naming it and the command that fits, nothing sent", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("gitrepo", "git-agent");
    const before = em.emulator.stats().requests;
    const r = await run(em, [project(), "--name", "git-agent"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("deployment git-agent has source gitrepo");
    expect(r.stderr).toContain("cpctl deploy patch git-agent --repo-ref REF");
    expect(em.emulator.stats().requests[PATCH] ?? 0).toBe(before[PATCH] ?? 0);
    expect(count(em, UPLOAD_URL)).toBe(0);
  });
});

describe("deploy push: what is packed and sent", () => {
  it("leaves out the variables the platform sets itself, each with a warning", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project({
      "prod.env": "PORT=8080\nLANGSMITH_API_KEY=lsv2-key-value\nOPENAI_API_KEY=sk-value-1\n",
    });
    const r = await run(em, [dir, "--name", "env-agent", "--secrets-file", join(dir, "prod.env")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("secret PORT is not sent: the platform sets PORT itself");
    expect(r.stderr).toContain("secret LANGSMITH_API_KEY is not sent");
    const [deployment] = await deploymentNamed(em, "env-agent");
    expect(deployment.secrets).toEqual([{ name: "OPENAI_API_KEY", value: "sk-value-1" }]);
  });

  it("refuses an empty value as patch does", async () => {
    const em = await startTestEmulator();
    const r = await run(em, [project(), "--name", "empty-agent", "--secret", "TOKEN="]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("secret TOKEN (--secret TOKEN=...) is empty");
    expect(em.emulator.stats().total).toBe(0);
  });

  it("honours .dockerignore", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project({ ".dockerignore": "tests\n*.md\n", "tests/test_agent.py": "x", "README.md": "x" });
    const r = await run(em, [dir, "--name", "docker-agent", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const [deployment] = await deploymentNamed(em, "docker-agent");
    const stored = em.emulator.tarball(deployment.source_revision_config.source_tarball_path);
    expect(readTarGz(stored!).map((e) => e.path)).toEqual([".dockerignore", "agent.json", "agent.py"]);
    expect(r.stderr).toContain("left out 2 by .dockerignore");
  });

  it("records the tracked packages it detects on the revision", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project({ "pyproject.toml": '[project]\ndependencies = ["google-adk>=1.2", "httpx"]\n' });
    const r = await run(em, [dir, "--name", "adk-agent", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const { deployment, revision } = JSON.parse(r.stdout);
    const stored = await em.get(`/v2/deployments/${deployment.id}/revisions/${revision.id}`);
    expect(stored.json.tracked_packages).toEqual(["google-adk:>=1.2"]);
  });

  it("--dry-run: what would be created, packed and left out; no request changes anything", async () => {
    const em = await startTestEmulator();
    const dir = project({ ".env": "A=1", ".gitignore": "build/\n", "build/x.js": "x" });
    const r = await run(em, [dir, "--name", "dry-agent", "--dry-run", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan).toMatchObject({
      name: "dry-agent",
      deployment_id: null,
      action: "create",
      agent_config_path: "agent.json",
      files: [".gitignore", "agent.json", "agent.py"],
      left_out: { gitignore: ["build/"], credentials: [".env"] },
    });
    expect(plan.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(changesSent(em)).toEqual([0, 0, 0, 0]);
  });
});

describe("deploy push: Python leftovers (issue 36)", () => {
  it("without a .gitignore, virtual environments, caches and .pyc files are left out and listed", async () => {
    const em = await startTestEmulator();
    const dir = project({
      ".venv/lib/site.py": "x",
      "venv/pyvenv.cfg": "home = /usr",
      "src/__pycache__/agent.cpython-311.pyc": "x",
      "src/tools.py": "def tool(): ...\n",
      "src/old.pyc": "x",
      ".pytest_cache/v/cache": "x",
      ".mypy_cache/3.11/x.json": "{}",
      "data/venv.txt": "a file named like one is kept",
    });
    const r = await run(em, [dir, "--name", "py-agent", "--dry-run", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan.files).toEqual(["agent.json", "agent.py", "data/venv.txt", "src/tools.py"]);
    expect([...plan.left_out.always].sort()).toEqual([
      ".mypy_cache/",
      ".pytest_cache/",
      ".venv/",
      "src/__pycache__/",
      "src/old.pyc",
      "venv/",
    ]);
    // Named on the line a person reads too, the first few of them.
    expect(r.stderr).toContain("left out 6 by default (.mypy_cache/, .pytest_cache/, .venv/ and 3 more)");
  });

  it("names everything left out by default when it is a few", async () => {
    const em = await startTestEmulator();
    const dir = project({ ".venv/lib/site.py": "x", "__pycache__/agent.cpython-312.pyc": "x" });
    const r = await run(em, [dir, "--name", "py-agent", "--dry-run"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/; left out 2 by default \(\.venv\/, __pycache__\/\)\n/);
  });
});

describe("deploy push: a .env and --secrets-file (issue 36)", () => {
  it("the .env given as --secrets-file is said to be the secrets file, not a leak", async () => {
    const em = await startTestEmulator();
    const dir = project({ ".env": "OPENAI_API_KEY=sk-from-dotenv-1" });
    const r = await run(em, [dir, "--name", "env-agent", "--secrets-file", join(dir, ".env"), "--dry-run"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      ".env is the secrets file (--secrets-file): its values are sent as secrets, the file is not uploaded",
    );
    expect(r.stderr).not.toContain("usually holds credentials");
    expect(r.stderr).not.toContain("sk-from-dotenv-1");
  });

  it("a .env present and not used: --secrets-file .env is suggested instead of uploading it", async () => {
    const em = await startTestEmulator();
    const dir = project({ ".env": "OPENAI_API_KEY=sk-from-dotenv-1" });
    const r = await run(em, [dir, "--name", "env-agent", "--dry-run"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      "warning: left out a file that usually holds credentials: .env; to send .env's values as the deployment's secrets instead, pass --secrets-file .env (--include-credentials would upload it)",
    );
  });
});

describe("deploy push: credential files under other names (issue 32)", () => {
  it("--dry-run lists backup copies, more names and a hard link to one under left_out.credentials, and warns", async () => {
    const em = await startTestEmulator();
    const dir = project({
      ".env": "A=1",
      ".env~": "A=1",
      "key.pem.bak": "-----BEGIN PRIVATE KEY-----",
      ".ssh/id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY-----",
      ".config/gh/hosts.yml": "github.com:\n  oauth_token: gho_x\n",
    });
    linkSync(join(dir, ".env"), join(dir, "notes.txt"));
    const r = await run(em, [dir, "--name", "dry-agent", "--dry-run", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan.files).toEqual(["agent.json", "agent.py"]);
    expect(plan.left_out.credentials).toEqual([
      ".config/gh/hosts.yml",
      ".env",
      ".env~",
      ".ssh/id_ed25519",
      "key.pem.bak",
      "notes.txt",
    ]);
    expect(r.stderr).toContain(
      "warning: left out files that usually hold credentials: .config/gh/hosts.yml, .env, .env~, .ssh/id_ed25519, key.pem.bak; to send .env's values as the deployment's secrets instead, pass --secrets-file .env (--include-credentials would upload them)",
    );
    expect(r.stderr).toContain("warning: left out notes.txt: it is a hard link to .env, a credential file");
  });
});

describe("deploy push: -o ndjson", () => {
  it("one event a line as it happens, each parseable, ending with done; no secret value in any", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const r = await run(em, [
      project(),
      "--name",
      "nd-agent",
      "--secret",
      "API_TOKEN=nd-secret-value",
      "-o",
      "ndjson",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const names = events.map((e) => e.event);
    expect(names.slice(0, 4)).toEqual(["packed", "created", "uploaded", "patched"]);
    expect(names).toContain("status");
    expect(names).toContain("log");
    expect(names.at(-1)).toBe("done");
    expect(events.at(-1)).toMatchObject({ result: "deployed", created: true });
    expect(events.filter((e) => e.event === "status").at(-1).status).toBe("DEPLOYED");
    expect(r.stdout).not.toContain("nd-secret-value");
    expect(r.stdout).toContain('"value":"****"');
  });
});

describe("deploy push: bad input and faults", () => {
  it("a missing directory, a file, or no agent configuration: exit 2, nothing sent", async () => {
    const em = await startTestEmulator();
    const missing = await run(em, [join(freshDir("push"), "nope"), "--name", "x"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no such directory");
    const file = join(project(), "agent.py");
    const notDir = await run(em, [file, "--name", "x"]);
    expect(notDir.code).toBe(2);
    expect(notDir.stderr).toContain("is not a directory");
    const bare = freshDir("bare");
    writeFileSync(join(bare, "main.py"), "x");
    const noConfig = await run(em, [bare, "--name", "x"]);
    expect(noConfig.code).toBe(2);
    expect(noConfig.stderr).toContain(
      "has no agent configuration: looked for agent.json, langgraph.json at its root",
    );
    const badPath = await run(em, [bare, "--name", "x", "--agent-config-path", "../agent.json"]);
    expect(badPath.code).toBe(2);
    expect(badPath.stderr).toContain("give a file inside the directory pushed");
    expect(em.emulator.stats().total).toBe(0);
  });

  it("an agent configuration that is left out of the tarball, or is not JSON: exit 2, nothing sent", async () => {
    const em = await startTestEmulator();
    const ignored = await run(em, [project({ ".dockerignore": "*.json\n" }), "--name", "x"]);
    expect(ignored.code).toBe(2);
    expect(ignored.stderr).toContain("agent.json, the agent configuration, is left out of the tarball");
    const broken = await run(em, [project({ "agent.json": "{graphs:" }), "--name", "x"]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("agent.json is not valid JSON");
    expect(em.emulator.stats().total).toBe(0);
  });

  it("a tarball over --max-size: exit 2 before any request", async () => {
    const em = await startTestEmulator();
    const r = await run(em, [project({ "big.bin": "x".repeat(10_000) }), "--name", "x", "--max-size", "100"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("over the upload limit");
    expect(em.emulator.stats().total).toBe(0);
  });

  it("an upload refused: nothing patched, and the message says the deployment is unchanged", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project();
    await run(em, [dir, "--name", "agent"]);
    writeFileSync(join(dir, "agent.py"), "changed\n");
    em.emulator.addFault({ method: "PUT", path: "/_uploads/*", status: 403, count: 1 });
    const patches = count(em, PATCH);
    const r = await run(em, [dir, "--name", "agent"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("nothing was patched: deployment agent is unchanged");
    expect(count(em, PATCH)).toBe(patches);
  });

  it("Ctrl-C after the patch: exit 130 with the command that resumes the wait", async () => {
    const em = await startTestEmulator({ stageMs: 60_000 });
    const dir = project();
    // The first poll of the new revision: the patch has been answered, the wait has begun.
    const waiting = emulatorEvent(
      em,
      (e) =>
        e.phase === "received" && e.route === "GET /v2/deployments/{deployment_id}/revisions/{revision_id}",
    );
    const r = await ctrlCAt(waiting, ["deploy", "push", dir, "--name", "slow-agent", "-o", "json"], {
      env: cliEnv(em),
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/Resume with: cpctl deploy wait [0-9a-f-]{36} --revision [0-9a-f-]{36}/);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: "interrupted" });
  });

  it("Ctrl-C during the upload: exit 130, and the message says nothing was patched", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project();
    await run(em, [dir, "--name", "agent"]);
    writeFileSync(join(dir, "agent.py"), "changed\n");
    em.emulator.addFault({ method: "PUT", path: "/_uploads/*", latency_ms: 600_000 });
    const uploading = emulatorEvent(em, (e) => e.phase === "handled" && e.method === "PUT");
    const patches = count(em, PATCH);
    const r = await ctrlCAt(uploading, ["deploy", "push", dir, "--name", "agent"], { env: cliEnv(em) });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain(
      "interrupted during the upload; nothing was patched: deployment agent is unchanged",
    );
    expect(count(em, PATCH)).toBe(patches);
  });

  it("two pushes of a new name at once create one deployment, the second going on with it", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const dir = project();
    // Both look the name up before either creates: the first create is held until the second
    // arrives, so one is answered 201 and the other 409, every time.
    let secondCreate: () => void = () => {};
    const bothCreating = new Promise<void>((resolve) => {
      secondCreate = resolve;
    });
    // And no patch goes out before both have asked for an upload URL: otherwise a slow second
    // push could find the first one's revision already deployed from the same files and say
    // "nothing to push" (right, but not the race this test is about).
    let secondUploadUrl: () => void = () => {};
    const bothUploading = new Promise<void>((resolve) => {
      secondUploadUrl = resolve;
    });
    let creates = 0;
    let uploadUrls = 0;
    const front = await frontOf(em, {
      intercept: async (request) => {
        const path = request.url;
        if (request.method === "POST" && path === "/v2/deployments") {
          if (++creates === 1) await bothCreating;
          else secondCreate();
        } else if (request.method === "POST" && path.endsWith("/upload-url")) {
          if (++uploadUrls === 2) secondUploadUrl();
        } else if (request.method === "PATCH") {
          await bothUploading;
        }
        return undefined;
      },
    });
    const push = () =>
      runCli(["deploy", "push", dir, "--name", "twin", "--interval", "1s", "-o", "json"], {
        env: cliEnv({ url: front.url, apiKey: em.apiKey }),
        clock: instantClock(Date.now(), (ms) => em.advance(ms)),
      });
    const [a, b] = await Promise.all([push(), push()]);
    expect(await deploymentNamed(em, "twin")).toHaveLength(1);
    expect(count(em, CREATE)).toBe(2);
    const loser = [a, b].find((result) =>
      result.stderr.includes("was created meanwhile (HTTP 409): pushing to it"),
    );
    expect(loser, `${a.stderr}\n${b.stderr}`).toBeDefined();
    // Both upload; then timing decides between three honest endings for the later one: its
    // read before the write sees the other's tarball path and it sends nothing (exit 1), or
    // both patch and the earlier revision is superseded (INTERRUPTED: exit 5) or its read
    // after the write sees the later path and says the other change replaced it (exit 1).
    const [won, lost] = [a, b].map((result) => result.code).sort();
    expect(won).toBe(0);
    expect([1, 5]).toContain(lost);
    const patches = count(em, PATCH);
    expect([1, 2]).toContain(patches);
    if (patches === 1) {
      expect(lost).toBe(1);
      expect(`${a.stderr}${b.stderr}`).toContain("was changed by someone else since cpctl read it");
    }
    const winner = [a, b].find((result) => result.code === 0)!;
    expect(JSON.parse(winner.stdout).result).toBe("deployed");
  });
});

describe("deploy push in CI", () => {
  it("writes the GitHub outputs and step summary of every change", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const out = join(freshDir("gh"), "output");
    const summary = join(freshDir("gh"), "summary");
    writeFileSync(out, "");
    writeFileSync(summary, "");
    const r = await run(em, [project(), "--name", "ci-agent"], {
      env: { GITHUB_ACTIONS: "true", GITHUB_OUTPUT: out, GITHUB_STEP_SUMMARY: summary, CI: "true" },
    });
    expect(r.code, r.stderr).toBe(0);
    const outputs = readFileSync(out, "utf8");
    expect(outputs).toMatch(/^deployment_name=ci-agent$/m);
    expect(outputs).toMatch(/^result=deployed$/m);
    expect(readFileSync(summary, "utf8")).toContain("cpctl deploy push: ci-agent ✅ deployed");

    const report = join(freshDir("gitlab"), "deploy.env");
    const again = await run(em, [project(), "--name", "ci-agent", "--dotenv-report", report], {
      env: { CI: "true" },
    });
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(report, "utf8")).toMatch(/^deployment_name=ci-agent\nrevision_id=[0-9a-f-]{36}\n/m);
  });
});
