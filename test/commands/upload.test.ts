import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readTarGz } from "../../src/util/untar.js";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { cliEnv, freshDir, instantClock, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const UPLOAD_URL_ROUTE = "POST /v2/deployments/{deployment_id}/upload-url";
const PUT_ROUTE = "PUT /_uploads/{upload_id}";

function sourceDir(files: Record<string, string | Buffer> = {}): string {
  const root = freshDir("upload-src");
  const all: Record<string, string | Buffer> = {
    "agent.json": '{"graphs":{"agent":"./agent.py:graph"}}',
    "agent.py": "graph = None\n",
    ".gitignore": "*.env\nbuild/\n",
    "local.env": "OPENAI_API_KEY=sk-not-for-upload",
    "build/agent.js": "a build output",
    "node_modules/dep/index.js": "always left out",
    ...files,
  };
  for (const [path, content] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const requests = (em: TestEmulator) => em.emulator.stats().total;
const count = (em: TestEmulator, route: string) => em.emulator.stats().requests[route] ?? 0;

describe("deploy upload", () => {
  it("packs a directory, uploads it, patches it in with --patch and waits for the revision", async () => {
    const em = await startTestEmulator({ stageMs: 60_000 });
    const d = await em.createDeployment("internal_source", "src-agent");
    em.settle();
    const clock = instantClock(Date.now(), (ms) => em.advance(ms));
    const dir = sourceDir();
    const r = await runCli(
      ["deploy", "upload", "src-agent", dir, "--patch", "--wait", "--interval", "1s", "-o", "json"],
      {
        env: cliEnv(em),
        clock,
      },
    );
    expect(r.stderr).toContain(`Packed 3 files from ${dir}: 65 B, `);
    expect(r.stderr).toMatch(/gzipped; left out 2 by \.gitignore, 1 by default \(node_modules\/\)\n/);
    expect(r.code).toBe(0);

    const updated = JSON.parse(r.stdout);
    const objectPath: string = updated.source_revision_config.source_tarball_path;
    expect(objectPath).toMatch(new RegExp(`^uploads/${em.tenantId}/${d.id}/.+\\.tar\\.gz$`));
    expect(r.stderr).toContain(`uploaded ${objectPath}`);
    expect(updated.latest_revision_id).not.toBe(d.latest_revision_id);
    expect(r.stderr).toMatch(/BUILDING[\s\S]*DEPLOYED/);

    const revision = await em.get(`/v2/deployments/${d.id}/revisions/${updated.latest_revision_id}`);
    expect(revision.json.status).toBe("DEPLOYED");
    expect(revision.json.source_revision_config.source_tarball_path).toBe(objectPath);
    const current = await em.get(`/v2/deployments/${d.id}`);
    expect(current.json.source_revision_config.source_tarball_path).toBe(objectPath);
    expect(current.json.active_revision_id).toBe(updated.latest_revision_id);

    // What the emulator stored is the directory minus what .gitignore and the fixed rules leave out.
    const stored = em.emulator.tarball(objectPath);
    expect(stored).toBeDefined();
    expect(readTarGz(stored!).map((e) => e.path)).toEqual([".gitignore", "agent.json", "agent.py"]);
  });

  it("prints only the object path by default, which `deploy patch` then accepts", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_source", "src-agent");
    const r = await runCli(["deploy", "upload", "src-agent", sourceDir()], { env: cliEnv(em) });
    expect(r.code).toBe(0);
    const objectPath = r.stdout.trim();
    expect(r.stdout).toBe(`${objectPath}\n`);
    expect(objectPath).toMatch(/^uploads\/.+\.tar\.gz$/);
    // Uploading alone starts no revision.
    expect((await em.get(`/v2/deployments/${d.id}`)).json.latest_revision_id).toBe(d.latest_revision_id);

    const patched = await runCli(
      ["deploy", "patch", "src-agent", "--source-tarball-path", objectPath, "-o", "json"],
      {
        env: cliEnv(em),
      },
    );
    expect(patched.code).toBe(0);
    expect(JSON.parse(patched.stdout).source_revision_config.source_tarball_path).toBe(objectPath);
    const got = await runCli(["deploy", "get", "src-agent", "-o", "json"], { env: cliEnv(em) });
    expect(JSON.parse(got.stdout).source_revision_config.source_tarball_path).toBe(objectPath);
  });

  it("prints {deployment_id, object_path, bytes} with -o json and never the upload URL", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_source", "src-agent");
    const r = await runCli(["deploy", "upload", "src-agent", sourceDir(), "-o", "json"], { env: cliEnv(em) });
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(Object.keys(result).sort()).toEqual(["bytes", "deployment_id", "object_path"]);
    expect(result.deployment_id).toBe(d.id);
    expect(result.bytes).toBe(em.emulator.tarball(result.object_path)!.length);
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/_uploads|signature|upload_url/);
  });

  // The pre-signed URL's signature is a credential: redacted in traced bodies and request lines.
  it("keeps the upload URL's signature out of the --debug trace", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "src-agent");
    const r = await runCli(["deploy", "upload", "src-agent", sourceDir(), "--debug"], { env: cliEnv(em) });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("PUT");
    expect(r.stderr).not.toMatch(/signature=[0-9a-f]{16,}/);
  });

  it("-o id prints the object path", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "src-agent");
    const r = await runCli(["deploy", "upload", "src-agent", sourceDir(), "-o", "id"], { env: cliEnv(em) });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^uploads\/\S+\.tar\.gz\n$/);
  });

  it("sends an existing .tgz byte for byte", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "src-agent");
    const dir = sourceDir();
    const tarball = join(freshDir("tgz"), "source.tgz");
    execFileSync("tar", ["-czf", tarball, "-C", dir, "agent.json", "agent.py"]);
    const r = await runCli(["deploy", "upload", "src-agent", tarball, "-o", "json"], { env: cliEnv(em) });
    expect(r.code).toBe(0);
    const { object_path: objectPath } = JSON.parse(r.stdout);
    expect(em.emulator.tarball(objectPath)!.equals(readFileSync(tarball))).toBe(true);
  });

  it("finds a relative path from the working directory", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "src-agent");
    const dir = sourceDir();
    const r = await runCli(["deploy", "upload", "src-agent", "."], { env: cliEnv(em), cwd: dir });
    expect(r.code).toBe(0);
    expect(readTarGz(em.emulator.tarball(r.stdout.trim())!).map((e) => e.path)).toContain("agent.py");
  });

  it("refuses an arbitrary tarball path: the server answers 422, exit 2", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_source", "src-agent");
    const r = await runCli(
      [
        "deploy",
        "patch",
        "src-agent",
        "--source-tarball-path",
        `uploads/${em.tenantId}/${d.id}/made-up.tar.gz`,
      ],
      { env: cliEnv(em) },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("arbitrary paths are rejected");
  });

  it("checks the size limit before any request, naming the size and the limit", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "src-agent");
    const dir = sourceDir({ "weights.bin": randomBytes(300 * 1024) });
    const before = requests(em);
    const r = await runCli(["deploy", "upload", "src-agent", dir, "--max-size", "100KiB"], {
      env: cliEnv(em),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "is over the upload limit of 100 KiB (102400 bytes) gzipped; nothing was sent",
    );
    expect(r.stderr).toMatch(/the largest: weights\.bin \(300 KiB\)/);
    expect(r.stdout).toBe("");
    expect(requests(em)).toBe(before);

    const tarball = join(freshDir("tgz"), "big.tar.gz");
    writeFileSync(tarball, Buffer.concat([Buffer.from([0x1f, 0x8b]), randomBytes(5000)]));
    const json = await runCli(
      ["deploy", "upload", "src-agent", tarball, "--max-size", "4096", "-o", "json"],
      {
        env: cliEnv(em),
      },
    );
    expect(json.code).toBe(2);
    const error = JSON.parse(json.stderr).error;
    expect(error.code).toBe("usage");
    expect(error.message).toMatch(
      /big\.tar\.gz is 4\.9 KiB \(5002 bytes\), over the upload limit of 4 KiB \(4096 bytes\)/,
    );
    expect(requests(em)).toBe(before);
  });

  it("refuses what is neither a directory nor a gzipped tarball, before any request", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "src-agent");
    const dir = freshDir("not-tar");
    writeFileSync(join(dir, "source.zip"), "PK\u0003\u0004");
    writeFileSync(join(dir, "fake.tgz"), "plain text");
    const before = requests(em);
    const zip = await runCli(["deploy", "upload", "src-agent", join(dir, "source.zip")], { env: cliEnv(em) });
    expect(zip.code).toBe(2);
    expect(zip.stderr).toContain("is neither a directory nor a .tar.gz/.tgz tarball");
    const fake = await runCli(["deploy", "upload", "src-agent", join(dir, "fake.tgz")], { env: cliEnv(em) });
    expect(fake.code).toBe(2);
    expect(fake.stderr).toContain("is not gzip data");
    const missing = await runCli(["deploy", "upload", "src-agent", join(dir, "nope")], { env: cliEnv(em) });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no such file or directory");
    const badSize = await runCli(["deploy", "upload", "src-agent", dir, "--max-size", "lots"], {
      env: cliEnv(em),
    });
    expect(badSize.code).toBe(2);
    expect(badSize.stderr).toContain("expected a size");
    const waitAlone = await runCli(["deploy", "upload", "src-agent", sourceDir(), "--wait"], {
      env: cliEnv(em),
    });
    expect(waitAlone.code).toBe(2);
    expect(waitAlone.stderr).toContain("--wait needs --patch");
    expect(requests(em)).toBe(before);
  });

  it("refuses a deployment that is not internal_source, before asking for an upload URL", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("gitrepo", "git-agent");
    const r = await runCli(["deploy", "upload", "git-agent", sourceDir(), "--patch"], { env: cliEnv(em) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("deployment git-agent has source gitrepo: only internal_source deployments");
    expect(count(em, UPLOAD_URL_ROUTE)).toBe(0);
  });

  it("exits 4 for an unknown deployment", async () => {
    const em = await startTestEmulator();
    const r = await runCli(["deploy", "upload", "ghost", sourceDir()], { env: cliEnv(em) });
    expect(r.code).toBe(4);
    expect(count(em, UPLOAD_URL_ROUTE)).toBe(0);
  });

  it("--dry-run lists the files it would pack and uploads nothing", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "src-agent");
    const r = await runCli(["deploy", "upload", "src-agent", sourceDir(), "--dry-run"], { env: cliEnv(em) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(".gitignore\nagent.json\nagent.py\n");
    expect(r.stderr).toContain("dry run: nothing was uploaded");
    expect(count(em, UPLOAD_URL_ROUTE)).toBe(0);
    expect(count(em, PUT_ROUTE)).toBe(0);
  });

  it("warns when the deployment's agent_config_path is not in the directory", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "src-agent");
    const dir = sourceDir({ ".gitignore": "agent.json\n" });
    const r = await runCli(["deploy", "upload", "src-agent", dir, "--dry-run"], { env: cliEnv(em) });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("agent.json (the deployment's agent_config_path) is not in the tarball");
  });
});

describe("deploy upload and credential files", () => {
  const withCredentials = () =>
    sourceDir({
      // (.env itself is in the fixture's .gitignore: `*.env`)
      ".env.production": "OPENAI_API_KEY=sk-from-dotenv-0123",
      ".npmrc": "//registry.npmjs.org/:_authToken=npm_0123456789",
      "deploy/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----",
      "tls/server.pem": "-----BEGIN CERTIFICATE-----",
    });

  it("leaves them out by default and says so on stderr, naming each", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "src-agent");
    const r = await runCli(["deploy", "upload", "src-agent", withCredentials()], { env: cliEnv(em) });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("left out 2 by .gitignore, 1 by default (node_modules/), 4 credential files");
    expect(r.stderr).toContain(
      "warning: left out files that usually hold credentials: .env.production, .npmrc, deploy/id_rsa, tls/server.pem; pass --include-credentials to upload them",
    );
    const paths = readTarGz(em.emulator.tarball(r.stdout.trim())!).map((e) => e.path);
    // Their directories stay, empty.
    expect(paths).toEqual([".gitignore", "agent.json", "agent.py", "deploy/", "tls/"]);
  });

  it("--include-credentials packs them", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "src-agent");
    const r = await runCli(["deploy", "upload", "src-agent", withCredentials(), "--include-credentials"], {
      env: cliEnv(em),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("credential");
    const paths = readTarGz(em.emulator.tarball(r.stdout.trim())!).map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([".env.production", ".npmrc", "deploy/id_rsa", "tls/server.pem"]),
    );
  });

  it("leaves out editors' and backup copies of them, and a hard link to one, naming it (issue 32)", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "src-agent");
    const dir = withCredentials();
    for (const [path, content] of Object.entries({
      ".npmrc~": "//registry.npmjs.org/:_authToken=npm_0123456789",
      "#.env.production#": "OPENAI_API_KEY=sk-from-dotenv-0123",
      "tls/server.pem.bak": "-----BEGIN CERTIFICATE-----",
      ".dev.vars": "API_KEY=abc",
    }))
      writeFileSync(join(dir, path), content);
    linkSync(join(dir, ".env.production"), join(dir, "notes.txt"));
    const r = await runCli(["deploy", "upload", "src-agent", dir], { env: cliEnv(em) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("9 credential files");
    expect(r.stderr).toContain(
      "warning: left out files that usually hold credentials: #.env.production#, .dev.vars, .env.production, .npmrc, .npmrc~, deploy/id_rsa, tls/server.pem, tls/server.pem.bak; pass --include-credentials to upload them",
    );
    expect(r.stderr).toContain(
      "warning: left out notes.txt: it is a hard link to .env.production, a credential file; pass --include-credentials to upload it",
    );
    const paths = readTarGz(em.emulator.tarball(r.stdout.trim())!).map((e) => e.path);
    expect(paths).toEqual([".gitignore", "agent.json", "agent.py", "deploy/", "tls/"]);

    const dry = await runCli(["deploy", "upload", "src-agent", dir, "--dry-run"], { env: cliEnv(em) });
    expect(dry.stdout).toBe(".gitignore\nagent.json\nagent.py\n");
    const all = await runCli(["deploy", "upload", "src-agent", dir, "--include-credentials"], {
      env: cliEnv(em),
    });
    expect(all.stderr).not.toContain("credential");
    expect(readTarGz(em.emulator.tarball(all.stdout.trim())!).map((e) => e.path)).toEqual(
      expect.arrayContaining(["notes.txt", ".env.production", ".npmrc~", "#.env.production#"]),
    );
  });

  it("--dry-run lists neither them nor a file whose name has a line break, and says why", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "src-agent");
    const dir = withCredentials();
    writeFileSync(join(dir, "two\nlines.py"), "x");
    const r = await runCli(["deploy", "upload", "src-agent", dir, "--dry-run"], { env: cliEnv(em) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(".gitignore\nagent.json\nagent.py\n");
    expect(r.stderr).toContain(
      "warning: not uploaded: two\\x0alines.py (a line break in its name); only regular files and directories with one-line UTF-8 names are",
    );
  });
});

describe("deploy upload --patch under a confirming profile", () => {
  it("asks before anything is uploaded: off a terminal without --yes nothing reaches the server", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_source", "guarded");
    const home = freshDir("home");
    mkdirSync(join(home, ".config", "cpctl"), { recursive: true });
    writeFileSync(
      join(home, ".config", "cpctl", "config.yaml"),
      `profiles:\n  prod:\n    baseUrl: ${em.url}\n    apiKey: \${env:KEY}\n    confirm: true\n`,
      { mode: 0o600 },
    );
    const env = { KEY: em.apiKey, CPCTL_PROFILE: "prod" };
    const refused = await runCli(["deploy", "upload", deployment.id, sourceDir(), "--patch"], {
      env,
      homeDir: home,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--yes");
    expect(count(em, UPLOAD_URL_ROUTE)).toBe(0);
    expect(count(em, PUT_ROUTE)).toBe(0);

    const allowed = await runCli(
      ["deploy", "upload", deployment.id, sourceDir(), "--patch", "--yes", "-o", "json"],
      { env, homeDir: home },
    );
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(count(em, PUT_ROUTE)).toBe(1);
  });
});
