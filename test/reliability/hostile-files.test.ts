// Files cpctl finds by itself in a checkout (package.json, .cpctlrc*, the user config) that are
// not what they seem: a FIFO nobody writes to, a link to /dev/stdin, /dev/zero or /dev/urandom,
// a sparse file of 2 GB. Git stores symbolic links, so a clone can ship any of these. Each
// run of the built binary must end promptly with a clear message and bounded memory, never
// wait deaf to Ctrl-C and SIGTERM or read for good. And a file the user names that waits (-f
// FIFO, -f /dev/stdin) ends with exit 130 on SIGTERM as on Ctrl-C, as the docs say.
import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { expectCleanOutput, killSpawnedClis, report, spawnBuiltCli } from "./helpers.js";

const root = mkdtempSync(join(tmpdir(), "cpctl-hostile-files-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => killSpawnedClis());

const linux = existsSync("/proc/self/fd") && spawnSync("mkfifo", [join(root, "probe")]).status === 0;
const DRY = ["deploy", "create", "--dry-run", "--name", "n", "--source", "internal_container"];
const IMAGE = ["--image-uri", "r.example.com/a:1", "--base-url", "http://127.0.0.1:9", "-o", "json"];
/** Well past a start and a dry run on a busy machine; a blocked or endless read never ends. */
const PROMPT_MS = 15_000;
/** The most a run may take: the heap stays small when every read is bounded. */
const HEAP = ["--max-old-space-size=128"];

let counter = 0;
/** A home with a user config, and a project directory in it; `plant` puts the hostile file there. */
function checkout(plant: (dir: string) => void): { home: string; cwd: string } {
  const home = join(root, `home-${++counter}`);
  const cwd = join(home, "src", "app");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, ".config", "cpctl"), { recursive: true });
  // A config file exists, so that the configuration is read (and the project search made).
  writeFileSync(join(home, ".config", "cpctl", "config.yaml"), "profiles:\n  dev:\n    output: json\n");
  plant(cwd);
  return { home, cwd };
}

/** Runs the built CLI in `cwd`, stdin a pipe left open and silent; ends it if it is not done in time. */
async function runIn(where: { home: string; cwd: string }, args: string[] = [...DRY, ...IMAGE]) {
  const run = spawnBuiltCli(args, {
    env: { HOME: where.home, NODE_OPTIONS: HEAP.join(" ") },
    stdin: "pipe",
    cwd: where.cwd,
  });
  const timer = setTimeout(() => run.child.kill("SIGKILL"), PROMPT_MS);
  const [code, signal] = await run.exited;
  clearTimeout(timer);
  return { code, signal, ...run.out };
}

const mkfifo = (path: string) => expect(spawnSync("mkfifo", [path]).status).toBe(0);
const figures = { runs: 0, endedPromptly: 0 };
afterAll(() => report("hostile files in a checkout", figures));

describe.skipIf(!linux)("files cpctl finds by itself", () => {
  const projectFiles: [string, (dir: string) => void, RegExp | null][] = [
    ["package.json, a FIFO", (dir) => mkfifo(join(dir, "package.json")), null],
    ["package.json -> /dev/stdin", (dir) => symlinkSync("/dev/stdin", join(dir, "package.json")), null],
    ["package.json -> /dev/zero", (dir) => symlinkSync("/dev/zero", join(dir, "package.json")), null],
    ["package.json -> /dev/urandom", (dir) => symlinkSync("/dev/urandom", join(dir, "package.json")), null],
    [
      "package.json of 2 GB (sparse)",
      (dir) => {
        writeFileSync(join(dir, "package.json"), "");
        truncateSync(join(dir, "package.json"), 2 * 1024 ** 3);
      },
      null,
    ],
    [
      ".cpctlrc.yaml, a FIFO",
      (dir) => mkfifo(join(dir, ".cpctlrc.yaml")),
      /\.cpctlrc\.yaml: not a regular file \(a FIFO\)/,
    ],
    [
      ".cpctlrc.yaml -> /dev/zero",
      (dir) => symlinkSync("/dev/zero", join(dir, ".cpctlrc.yaml")),
      /\.cpctlrc\.yaml: not a regular file \(a device\)/,
    ],
    [
      ".cpctlrc.json -> /dev/stdin",
      (dir) => symlinkSync("/dev/stdin", join(dir, ".cpctlrc.json")),
      /\.cpctlrc\.json: not a regular file \(a (FIFO|socket)\)/,
    ],
    [
      ".cpctlrc of 2 GB (sparse)",
      (dir) => {
        writeFileSync(join(dir, ".cpctlrc"), "");
        truncateSync(join(dir, ".cpctlrc"), 2 * 1024 ** 3);
      },
      /\.cpctlrc: the config file is 2147483648 bytes, more than the 1 MiB cpctl reads from one/,
    ],
  ];
  for (const [name, plant, refusal] of projectFiles) {
    it(`${name}: the run ends at once${refusal ? ", refusing the file" : ", passing over it"}`, async () => {
      const r = await runIn(checkout(plant));
      figures.runs++;
      expect(r.signal, `${name}: ${r.stderr}`).toBeNull();
      figures.endedPromptly++;
      expectCleanOutput({ code: r.code ?? -1, stdout: r.stdout, stderr: r.stderr });
      if (refusal) {
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(refusal);
      } else {
        // Not cpctl's file: no word about it, and the dry run is made.
        expect(r.stderr).not.toContain("package.json");
        expect(r.stderr).toContain("dry run: the request is valid; nothing was sent");
        expect(r.code).toBe(0);
      }
    }, 30_000);
  }

  it("the user config file a FIFO or a link to /dev/zero: refused, naming it", async () => {
    for (const plant of [(path: string) => mkfifo(path), (path: string) => symlinkSync("/dev/zero", path)]) {
      const where = checkout(() => {});
      const userFile = join(where.home, ".config", "cpctl", "config.yaml");
      rmSync(userFile);
      plant(userFile);
      const r = await runIn(where, [...DRY, ...IMAGE, "--profile", "dev"]);
      figures.runs++;
      expect(r.signal, r.stderr).toBeNull();
      figures.endedPromptly++;
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${userFile}: not a regular file`);
    }
  }, 30_000);
});

describe.skipIf(!linux)("a file the user names that waits: SIGTERM and Ctrl-C end it with 130", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`-f FIFO with no writer, ${signal}: exit 130, not killed by the signal`, async () => {
      const fifo = join(root, `wait-${++counter}`);
      mkfifo(fifo);
      const { child, out, exited } = spawnBuiltCli([...DRY, "-f", fifo], {});
      await opened(child.pid!, fifo);
      child.kill(signal);
      const [code, killedBy] = await exited;
      expect({ code, killedBy }).toEqual({ code: 130, killedBy: null });
      expect(out.stderr).toContain("interrupted");
    });

    // A terminal nobody types into is alike; before, a thread waited in the read and the run
    // could end only by the signal itself.
    it(`-f /dev/stdin, stdin a pipe nobody writes to, ${signal}: exit 130`, async () => {
      const fifo = join(root, `stdin-${++counter}`);
      mkfifo(fifo);
      // Opened for reading and writing: nothing blocks here, and the child never sees its end.
      const stdin = openSync(fifo, "r+");
      const { child, exited } = spawnBuiltCli([...DRY, "-f", "/dev/stdin"], { stdin });
      closeSync(stdin);
      await opened(child.pid!, fifo, 1);
      child.kill(signal);
      const [code, killedBy] = await exited;
      expect({ code, killedBy }).toEqual({ code: 130, killedBy: null });
    });
  }

  it("-f FIFO whose writer comes later: read whole, as before", async () => {
    const fifo = join(root, `late-${++counter}`);
    mkfifo(fifo);
    const { child, out, exited } = spawnBuiltCli(
      ["deploy", "create", "--dry-run", "-o", "json", "-f", fifo],
      {},
    );
    await opened(child.pid!, fifo);
    writeFileSync(
      fifo,
      JSON.stringify({
        name: "late",
        source: "internal_container",
        source_revision_config: { image_uri: "r.example.com/a:1" },
      }),
    );
    const [code] = await exited;
    expect(code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ name: "late" });
  });
});

/** Resolves once process `pid` holds `path` open `times` times beyond stdin (Linux /proc). */
async function opened(pid: number, path: string, times = 1): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const holding = readdirSync(`/proc/${pid}/fd`).filter((entry) => {
      try {
        return Number(entry) > 0 && readlinkSync(`/proc/${pid}/fd/${entry}`) === path;
      } catch {
        return false;
      }
    });
    if (holding.length >= times) return;
    if (Date.now() > deadline) throw new Error(`process ${pid} never opened ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
