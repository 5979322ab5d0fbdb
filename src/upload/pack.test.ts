import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  cpSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { failure } from "../../test/helpers/failure.js";
import { tarballBytes } from "../../test/helpers/tarball.js";
import { UsageError } from "../errors.js";
import { readTarGz } from "../util/untar.js";
import { NothingToPackError, SourceError, TooLargeError } from "./errors.js";
import { packDirectory, readTarball } from "./pack.js";
import { prepareSource } from "./source.js";
import { FIXED_MTIME } from "./tar.js";
import { walkSource } from "./walk.js";

function tree(files: Record<string, string | Buffer>): string {
  const root = mkdtempSync(join(tmpdir(), "cpctl-pack-"));
  for (const [path, content] of Object.entries(files)) {
    const absolute = join(root, path);
    if (path.endsWith("/")) {
      mkdirSync(absolute, { recursive: true });
      continue;
    }
    mkdirSync(dirname(absolute), { recursive: true });
    writeFileSync(absolute, content);
  }
  return root;
}

const PROJECT = {
  ".gitignore": [
    "*.log",
    "!important.log",
    "/secret.txt",
    "cache",
    "out/",
    "build/",
    "!build/keep.js",
    "",
  ].join("\n"),
  "agent.json": "{}",
  "app.py": "print('hi')\n",
  "debug.log": "noise",
  "important.log": "kept by negation",
  "secret.txt": "anchored to the root",
  "x.tmp": "*.tmp is only sub's rule",
  "bin/run.sh": "#!/bin/sh\n",
  "build/out.js": "ignored directory",
  "build/keep.js": "cannot be re-included: its directory is excluded",
  "cache/data": "ignored",
  "out/a.txt": "ignored: out/ names a directory",
  "emptydir/": "",
  "sub/.gitignore": ["*.tmp", "!debug.log", ""].join("\n"),
  "sub/secret.txt": "not the root's /secret.txt",
  "sub/out": "a file named out: out/ matches directories only",
  "sub/debug.log": "re-included by sub/.gitignore",
  "sub/a.tmp": "ignored by sub/.gitignore",
  "sub/deeper/b.tmp": "ignored: sub's unanchored pattern reaches down",
  "sub/deeper/.gitignore": "!c.tmp\n",
  "sub/deeper/c.tmp": "re-included by the deepest .gitignore",
  ".git/HEAD": "ref: refs/heads/main",
  "node_modules/left-pad/index.js": "always excluded",
  "sub/node_modules/x.js": "always excluded, at any depth",
  "sub/vendor/.git": "gitdir: ../.git/modules/vendor",
  "sub/vendor/lib.py": "kept",
};

const EXPECTED_PATHS = [
  ".gitignore",
  "agent.json",
  "app.py",
  "bin/",
  "bin/run.sh",
  "emptydir/",
  "important.log",
  "sub/",
  "sub/.gitignore",
  "sub/debug.log",
  "sub/deeper/",
  "sub/deeper/.gitignore",
  "sub/deeper/c.tmp",
  "sub/out",
  "sub/secret.txt",
  "sub/vendor/",
  "sub/vendor/lib.py",
  "x.tmp",
];

function project(): string {
  const root = tree(PROJECT);
  chmodSync(join(root, "bin/run.sh"), 0o775);
  chmodSync(join(root, "app.py"), 0o600);
  symlinkSync("app.py", join(root, "link.py"));
  symlinkSync("/etc", join(root, "sub/etc"));
  return root;
}

describe("walkSource", () => {
  it("honours root and nested .gitignore files, negation included, and always leaves out .git and node_modules", async () => {
    const walk = await walkSource(project());
    expect(walk.entries.map((e) => (e.type === "directory" ? `${e.path}/` : e.path))).toEqual(EXPECTED_PATHS);
    expect(walk.ignored.sort()).toEqual(
      ["build/", "cache/", "debug.log", "out/", "secret.txt", "sub/a.tmp", "sub/deeper/b.tmp"].sort(),
    );
    expect(walk.excluded.sort()).toEqual([".git/", "node_modules/", "sub/node_modules/", "sub/vendor/.git"]);
  });

  it("skips symbolic links and reports them", async () => {
    const walk = await walkSource(project());
    expect(walk.skipped).toEqual([
      { path: "link.py", reason: "symlink" },
      { path: "sub/etc", reason: "symlink" },
    ]);
  });

  it("normalises modes as git does", async () => {
    const walk = await walkSource(project());
    const mode = (path: string) => walk.entries.find((e) => e.path === path)?.mode;
    expect(mode("bin/run.sh")).toBe(0o755);
    expect(mode("app.py")).toBe(0o644);
    expect(mode("sub")).toBe(0o755);
  });

  it("leaves out files that usually hold credentials, at any depth, and lists them; on request packs them", async () => {
    const credentials = [
      ".env",
      ".env.production",
      ".envrc",
      ".npmrc",
      ".netrc",
      ".pypirc",
      ".git-credentials",
      "certs/server.pem",
      "certs/server.key",
      "deploy/id_rsa",
      "deploy/id_ed25519.pub",
      "sub/.docker/config.json",
      "sub/.aws/credentials",
    ];
    const kept = ["agent.json", "id_utils.py", "sub/.docker/daemon.json", "environment.py"];
    const root = tree(Object.fromEntries([...credentials, ...kept].map((path) => [path, "x"])));
    const walk = await walkSource(root);
    expect(walk.credentials.sort()).toEqual([...credentials].sort());
    const files = walk.entries.filter((e) => e.type === "file").map((e) => e.path);
    expect(files.sort()).toEqual([...kept].sort());
    const all = await walkSource(root, { includeCredentials: true });
    expect(all.credentials).toEqual([]);
    expect(all.entries.filter((e) => e.type === "file")).toHaveLength(credentials.length + kept.length);
  });

  it("matches credential names in any case, and the files a careful reviewer adds (issue 22 item 10)", async () => {
    const credentials = [
      ".ENV",
      ".Env.production",
      ".env-local",
      "config/prod.env",
      "certs/server.PEM",
      "keys/ID_RSA",
      "credentials.json",
      "gcp/client_secret_123.apps.googleusercontent.com.json",
      "gcp/service-account-prod.json",
      "home/.pgpass",
      "home/.my.cnf",
      "ops/.kube/config",
      "ops/prod.kubeconfig",
      "infra/terraform.tfvars",
      "infra/prod.auto.tfvars",
      "infra/terraform.tfstate",
      "infra/terraform.tfstate.backup",
      "android/release.keystore",
      "java/server.JKS",
      "apple/AuthKey_ABC.p8",
      "putty/deploy.ppk",
      ".vault-token",
      ".htpasswd",
      ".s3cfg",
      ".secrets.toml",
      "app/.streamlit/secrets.toml",
      ".cache/huggingface/token",
      ".cargo/credentials.toml",
    ];
    const kept = [
      "agent.json",
      ".envoy.yaml",
      "environment.py",
      "envs/readme.md",
      "kube/config.py",
      "terraform/main.tf",
      "tokens.py",
      "credentials.py",
      "secrets.py",
      "keys.txt",
    ];
    const root = tree(Object.fromEntries([...credentials, ...kept].map((path) => [path, "x"])));
    const walk = await walkSource(root);
    expect(walk.credentials.sort()).toEqual([...credentials].sort());
    expect(
      walk.entries
        .filter((e) => e.type === "file")
        .map((e) => e.path)
        .sort(),
    ).toEqual([...kept].sort());
  });

  it("leaves out editors' and backup tools' copies of credential files, and more names (issue 32)", async () => {
    const credentials = [
      "#.env#",
      ".config/gcloud/credentials.db",
      ".config/gh/hosts.yml",
      ".dev.vars",
      ".env.bak",
      ".env~",
      ".kube/config.bak",
      ".netrc.bak",
      ".npmrc~",
      ".ssh/config",
      ".ssh/id_ecdsa",
      ".vault-token~",
      "certs/key.pem.bak",
      "certs/tls.key~",
    ];
    const kept = ["agent.json", "app.py~", ".app.py.swp", "README.bak"];
    const root = tree(Object.fromEntries([...credentials, ...kept].map((path) => [path, "x"])));
    const walk = await walkSource(root);
    expect(walk.credentials).toEqual(credentials);
    expect(walk.entries.filter((e) => e.type === "file").map((e) => e.path)).toEqual([
      ".app.py.swp",
      "README.bak",
      "agent.json",
      "app.py~",
    ]);
  });

  it("leaves out a hard link to a credential file left out, before or after it in walk order, naming both", async () => {
    const root = tree({
      ".gitignore": "ignored.env\n",
      ".env": "OPENAI_API_KEY=sk-linked",
      "ignored.env": "A=1",
      "secrets/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----",
      "other.txt": "not a link",
      "shared.txt": "a link between two ordinary files",
      "z/": "",
    });
    linkSync(join(root, ".env"), join(root, "notes.txt"));
    // Before the key in walk order: "a.txt" < "secrets/".
    linkSync(join(root, "secrets/id_rsa"), join(root, "a.txt"));
    // A link to a credential file that .gitignore leaves out.
    linkSync(join(root, "ignored.env"), join(root, "z/config.txt"));
    linkSync(join(root, "shared.txt"), join(root, "shared-too.txt"));
    const walk = await walkSource(root);
    expect(walk.credentials).toEqual([".env", "a.txt", "notes.txt", "secrets/id_rsa", "z/config.txt"]);
    expect(walk.credentialLinks).toEqual([
      { path: "a.txt", linkTo: "secrets/id_rsa" },
      { path: "notes.txt", linkTo: ".env" },
      { path: "z/config.txt", linkTo: "ignored.env" },
    ]);
    expect(walk.entries.filter((e) => e.type === "file").map((e) => e.path)).toEqual([
      ".gitignore",
      "other.txt",
      "shared-too.txt",
      "shared.txt",
    ]);
    const all = await walkSource(root, { includeCredentials: true });
    expect(all.credentials).toEqual([]);
    expect(all.credentialLinks).toEqual([]);
    expect(all.entries.map((e) => e.path)).toEqual(
      expect.arrayContaining([".env", "a.txt", "notes.txt", "secrets/id_rsa", "z/config.txt"]),
    );
  });

  it("a credential file that .gitignore leaves out counts as ignored", async () => {
    const walk = await walkSource(tree({ ".gitignore": ".env\n", ".env": "A=1", "a.txt": "a" }));
    expect(walk.ignored).toEqual([".env"]);
    expect(walk.credentials).toEqual([]);
  });

  it.skipIf(process.platform !== "linux")(
    "skips a name with a line break or that is not UTF-8, says which, and packs the rest",
    async () => {
      const root = tree({ "agent.json": "{}", "sub/ok.txt": "ok" });
      writeFileSync(join(root, "two\nlines.txt"), "x");
      writeFileSync(join(root, "sub", "cr\rname"), "x");
      writeFileSync(Buffer.from(`${root}/sub/caf\xe9.txt`, "latin1"), "x");
      const packed = await packDirectory(root, 1024 * 1024);
      expect(packed.walk.skipped).toEqual([
        { path: "two\\x0alines.txt", reason: "a line break in its name" },
        { path: "sub/caf\\xe9.txt", reason: "a name that is not UTF-8" },
        { path: "sub/cr\\x0dname", reason: "a line break in its name" },
      ]);
      expect(readTarGz(await tarballBytes(packed.tarball)).map((e) => e.path)).toEqual([
        "agent.json",
        "sub/",
        "sub/ok.txt",
      ]);
    },
  );

  it("honours the root's .dockerignore as docker reads it, ! included, after .gitignore", async () => {
    const root = tree({
      ".dockerignore": [
        "# docker's rules",
        "*.md",
        "docs",
        "!docs/keep.md",
        "tests/",
        "**/*.log",
        "/app/*.tmp",
        "",
      ].join("\n"),
      ".gitignore": "secret/\n",
      "README.md": "root Markdown: left out",
      "agent.json": "{}",
      "app/main.py": "kept",
      "app/notes.md": "not the root's: kept",
      "app/a.tmp": "left out",
      "app/sub/b.tmp": "kept: * does not cross /",
      "app/sub/c.log": "left out at any depth",
      "docs/guide.md": "left out with docs",
      "docs/keep.md": "taken back by !",
      "tests/unit/t.py": "left out with tests/",
      "secret/key.txt": "left out by .gitignore",
      "sub/.dockerignore": "*\n",
      "sub/x.py": "a nested .dockerignore means nothing",
    });
    symlinkSync("agent.json", join(root, "README.link.md"));
    const walk = await walkSource(root);
    expect(walk.entries.map((e) => (e.type === "directory" ? `${e.path}/` : e.path))).toEqual([
      ".dockerignore",
      ".gitignore",
      "agent.json",
      "app/",
      "app/main.py",
      "app/notes.md",
      "app/sub/",
      "app/sub/b.tmp",
      "docs/",
      "docs/keep.md",
      "sub/",
      "sub/.dockerignore",
      "sub/x.py",
    ]);
    expect(walk.dockerignored.sort()).toEqual(
      ["README.md", "app/a.tmp", "app/sub/c.log", "docs/guide.md", "tests/"].sort(),
    );
    expect(walk.ignored).toEqual(["secret/"]);
    // A link the .dockerignore leaves out is not reported as skipped.
    expect(walk.skipped).toEqual([]);
  });

  it("a directory the .dockerignore leaves out, with nothing taken back below it, is one left-out entry", async () => {
    const walk = await walkSource(
      tree({
        ".dockerignore": "build\n!other.txt\n",
        "build/a/b.txt": "x",
        "build/.env": "A=1",
        "a.txt": "a",
      }),
    );
    expect(walk.dockerignored).toEqual(["build/"]);
    expect(walk.credentials).toEqual([]);
    expect(walk.entries.map((e) => e.path)).toEqual([".dockerignore", "a.txt"]);
  });

  it("a malformed .dockerignore is an error naming the file and line", async () => {
    const root = tree({ ".dockerignore": "ok\n[oops\n", "a.txt": "a" });
    await expect(walkSource(root)).rejects.toThrow(/\.dockerignore line 2/);
    await expect(prepareSource(root, ".", 1024 * 1024)).rejects.toThrow(UsageError);
  });

  it("does not report an ignored symbolic link", async () => {
    const root = tree({ ".gitignore": "*.lnk\n", "a.txt": "a" });
    symlinkSync("a.txt", join(root, "b.lnk"));
    expect((await walkSource(root)).skipped).toEqual([]);
  });
});

describe("packDirectory", () => {
  it("packs what the walk keeps, readable by the system tar", async () => {
    const root = project();
    const packed = await packDirectory(root, 10 * 1024 * 1024);
    const data = await tarballBytes(packed.tarball);
    const entries = readTarGz(data);
    expect(entries.map((e) => e.path)).toEqual(EXPECTED_PATHS);
    expect(entries.find((e) => e.path === "sub/deeper/c.tmp")?.content.toString()).toBe(
      PROJECT["sub/deeper/c.tmp"],
    );
    expect(new Set(entries.map((e) => e.mtime))).toEqual(new Set([FIXED_MTIME]));
    const listing = execFileSync("tar", ["-tzf", "-"], { input: data, encoding: "utf8" });
    expect(listing.split("\n").filter(Boolean)).toEqual(EXPECTED_PATHS);
  });

  it("gives the same bytes for the same files, whatever their mtimes and wherever they are", async () => {
    const root = project();
    const first = await packDirectory(root, 10 * 1024 * 1024);
    const copy = mkdtempSync(join(tmpdir(), "cpctl-pack-copy-"));
    cpSync(root, copy, { recursive: true, verbatimSymlinks: true });
    utimesSync(join(copy, "app.py"), new Date(2001, 1, 1), new Date(2001, 1, 1));
    const second = await packDirectory(copy, 10 * 1024 * 1024);
    expect((await tarballBytes(second.tarball)).equals(await tarballBytes(first.tarball))).toBe(true);
    expect(second.tarball.sha256).toBe(first.tarball.sha256);
  });

  it("a project of many gzip members: the same bytes and sha256 for the same files, read whole by tar", async () => {
    // About 6 MiB of files that compress poorly and well: several members, several in flight.
    const files: Record<string, string | Buffer> = {};
    let state = 7;
    for (let i = 0; i < 60; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      files[`pkg${i % 7}/module_${i}.py`] = `value_${state} = ${i}\n`.repeat(2000 + (state % 3000));
      if (i % 10 === 0) files[`assets/blob_${i}.bin`] = Buffer.alloc(300_000, state % 251);
    }
    const root = tree(files);
    const copy = mkdtempSync(join(tmpdir(), "cpctl-pack-copy-"));
    cpSync(root, copy, { recursive: true });
    utimesSync(join(copy, "pkg0/module_0.py"), new Date(2001, 1, 1), new Date(2001, 1, 1));
    const first = await packDirectory(root, 100 << 20);
    const second = await packDirectory(copy, 100 << 20);
    const bytes = await tarballBytes(first.tarball);
    expect(first.contentBytes).toBeGreaterThan(5 << 20);
    expect(second.tarball.sha256).toBe(first.tarball.sha256);
    expect((await tarballBytes(second.tarball)).equals(bytes)).toBe(true);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(first.tarball.sha256);
    expect(bytes.length).toBe(first.tarball.bytes);
    const listing = execFileSync("tar", ["-tzf", "-"], {
      input: bytes,
      encoding: "utf8",
      maxBuffer: 64 << 20,
    });
    expect(
      listing
        .split("\n")
        .filter((line) => line && !line.endsWith("/"))
        .sort(),
    ).toEqual(Object.keys(files).sort());
    first.tarball.dispose();
    second.tarball.dispose();
  });

  it("changes when a file's content changes", async () => {
    const root = project();
    const before = await packDirectory(root, 10 * 1024 * 1024);
    writeFileSync(join(root, "app.py"), "print('bye')\n");
    expect((await packDirectory(root, 10 * 1024 * 1024)).tarball.sha256).not.toBe(before.tarball.sha256);
  });

  it("stops at the size limit with the largest files named", async () => {
    const root = tree({
      "small.txt": "s",
      "data/big.bin": randomBytes(200_000),
      "data/medium.bin": randomBytes(50_000),
    });
    const tooLarge = await failure(packDirectory(root, 64 * 1024), TooLargeError);
    expect(tooLarge.limit).toBe(64 * 1024);
    expect(tooLarge.bytes).toBeGreaterThan(64 * 1024);
    expect(tooLarge.atLeast).toBe(true);
    expect(tooLarge.largest.map((f) => f.path)).toEqual(["data/big.bin", "data/medium.bin", "small.txt"]);
  });
});

describe("packDirectory: what it tells before compression ends (onFilesRead)", () => {
  it("once, after every file was read: what changes then is not in the tarball", async () => {
    const root = tree({ "a.txt": "first", "sub/b.txt": "second" });
    let calls = 0;
    const packed = await packDirectory(root, 1 << 20, {
      onFilesRead: () => {
        calls++;
        writeFileSync(join(root, "sub/b.txt"), "changed after it was read");
      },
    });
    expect(calls).toBe(1);
    const entries = readTarGz(await tarballBytes(packed.tarball));
    expect(entries.find((e) => e.path === "sub/b.txt")?.content.toString()).toBe("second");
  });

  it("not while the tarball could still pass the limit, though it ends under it", async () => {
    // 300 KiB of zeros gzip to a few hundred bytes, but only compressing them tells.
    const root = tree({ "zeros.bin": Buffer.alloc(300 * 1024) });
    let calls = 0;
    const packed = await packDirectory(root, 100 * 1024, { onFilesRead: () => calls++ });
    expect(packed.tarball.bytes).toBeLessThan(100 * 1024);
    expect(calls).toBe(0);
  });

  it("not for a directory with nothing to pack, refused before any packing", async () => {
    const root = tree({ ".gitignore": "*\n" });
    let calls = 0;
    const error = await failure(
      packDirectory(root, 1 << 20, { onFilesRead: () => calls++ }),
      NothingToPackError,
    );
    expect(error.walk.ignored).toEqual([".gitignore"]);
    expect(calls).toBe(0);
  });
});

describe("readTarball", () => {
  it("takes a .tar.gz or .tgz as it is", async () => {
    const root = tree({ "a.tgz": gzipSync("tar bytes"), "b.TAR.GZ": gzipSync("x") });
    const tarball = await readTarball(join(root, "a.tgz"), "a.tgz", 1024);
    expect((await tarballBytes(tarball)).equals(gzipSync("tar bytes"))).toBe(true);
    await expect(readTarball(join(root, "b.TAR.GZ"), "b.TAR.GZ", 1024)).resolves.toBeTruthy();
  });

  it("refuses other names and data that is not gzip", async () => {
    const root = tree({ "source.zip": "PK", "fake.tgz": "not gzip" });
    await expect(readTarball(join(root, "source.zip"), "source.zip", 1024)).rejects.toThrow(SourceError);
    await expect(readTarball(join(root, "fake.tgz"), "fake.tgz", 1024)).rejects.toThrow(
      /not gzip data .*1f 8b/,
    );
  });

  it("checks the size before reading", async () => {
    const root = tree({ "big.tgz": Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(2000)]) });
    const error = (await readTarball(join(root, "big.tgz"), "big.tgz", 1000).catch(
      (e: unknown) => e,
    )) as TooLargeError;
    expect(error).toBeInstanceOf(TooLargeError);
    expect(error).toMatchObject({ bytes: 2002, limit: 1000, atLeast: false });
  });
});

describe("prepareSource", () => {
  it("turns every local problem into a usage error", async () => {
    const root = tree({ "notes.txt": "x", "empty/": "", "ignored/.gitignore": "*\n", "ignored/a.txt": "a" });
    const failure = (path: string) =>
      prepareSource(root, path, 1024).then(
        () => {
          throw new Error(`${path} was accepted`);
        },
        (e: unknown) => e as UsageError,
      );
    expect(await failure("missing")).toMatchObject({ message: "missing: no such file or directory" });
    expect((await failure("notes.txt")).message).toMatch(
      /neither a directory nor a \.tar\.gz\/\.tgz tarball/,
    );
    expect((await failure("empty")).message).toBe("empty has no files to upload");
    const everythingIgnored = await failure("ignored");
    expect(everythingIgnored.message).toBe("ignored has no files to upload");
    expect(everythingIgnored.hints.join("\n")).toMatch(
      /\.gitignore rules leave out everything: \.gitignore, a\.txt/,
    );
    for (const path of ["missing", "notes.txt", "empty"])
      expect(await failure(path)).toBeInstanceOf(UsageError);
  });

  it("names the size and the limit when a tarball is too large", async () => {
    const root = tree({
      "big.tgz": Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(3 * 1024 * 1024)]),
    });
    const error = (await prepareSource(root, "big.tgz", 2 * 1024 * 1024).catch(
      (e: unknown) => e,
    )) as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(
      "big.tgz is 3 MiB (3145730 bytes), over the upload limit of 2 MiB (2097152 bytes); nothing was sent",
    );
    expect(error.hints.join("\n")).toMatch(/--max-size/);
  });

  it("names the limit and the largest files when a directory packs too large", async () => {
    const root = tree({ "app.py": "x", "model.bin": randomBytes(300_000) });
    const error = await failure(prepareSource(root, ".", 100 * 1024), UsageError);
    expect(error.message).toBe(
      "the tarball of . is over the upload limit of 100 KiB (102400 bytes) gzipped; nothing was sent",
    );
    expect(error.hints[0]).toMatch(
      /holds 293 KiB of files before compression; the largest: model\.bin \(293 KiB\), app\.py \(1 B\)/,
    );
  });

  it("accepts an absolute path", async () => {
    const root = tree({ "app.py": "x" });
    const prepared = await prepareSource("/nonexistent-cwd", root, 1024 * 1024);
    expect(prepared.kind).toBe("directory");
    expect(readTarGz(await tarballBytes(prepared.tarball)).map((e) => e.path)).toEqual(["app.py"]);
  });
});
