// The public clients of the same service, built here to be measured beside cpctl (never
// committed, never part of the package):
//
// - langgraph-cli (Python), from langchain-ai/langgraph `libs/cli`, run as it is with Debian's
//   python3 and packages: python3-click python3-httpx python3-pathspec python3-dotenv
//   python3-typing-extensions (`apt-get install ...`);
// - langgraphjs, from langchain-ai/langgraphjs `libs/langgraph-cli`: its dependencies from the
//   npm registry (`npm install`), its `deploy` commands bundled with esbuild.
//
// Where the repositories are: CPCTL_BENCH_PEERS=DIR, a directory holding `langgraph` and
// `langgraphjs` (clones, or bare git directories). Each is built once per commit under
// ~/.cache/cpctl-bench/peers. A client that cannot be built is left out, and the bench says why.
// Their analytics are off (LANGGRAPH_CLI_NO_ANALYTICS=1) and they get no terminal.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { benchEnv, command } from "./measure.mjs";

const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "cpctl-bench", "peers");
const PYTHON = "/usr/bin/python3";

/**
 * The peers that could be made ready: { name, upload({url, key, id, dir}), follow({url, key,
 * id}) } (each gives a command, see measure.mjs), and the reasons for those that could not.
 */
export function preparePeers({ root, home, cwd }) {
  const peers = [];
  const missing = [];
  const repos = process.env.CPCTL_BENCH_PEERS;
  if (!repos) {
    missing.push(
      "CPCTL_BENCH_PEERS is not set (a directory holding the langgraph and langgraphjs repositories)",
    );
    return { peers, missing };
  }
  const env = (extra = {}) => benchEnv({ HOME: home, LANGGRAPH_CLI_NO_ANALYTICS: "1", ...extra });
  try {
    const dir = pythonPeer(join(repos, "langgraph"));
    const python = (args) =>
      command("langgraph-cli (Python)", [PYTHON, "-c", "from langgraph_cli.cli import cli; cli()", ...args], {
        env: env({ PYTHONPATH: dir }),
        cwd,
      });
    peers.push({
      name: "langgraph-cli (Python)",
      upload: ({ url, key, id, dir: source }) =>
        command(
          "langgraph-cli (Python)",
          [PYTHON, "-c", "from langgraph_cli.cli import cli; cli()", ...deployArgs({ url, key, id })],
          { env: env({ PYTHONPATH: dir }), cwd: source },
        ),
      follow: ({ url, key, id }) =>
        python(["deploy", "logs", "--deployment-id", id, "--api-key", key, "--host-url", url, "--follow"]),
    });
  } catch (error) {
    missing.push(`langgraph-cli (Python): ${error.message.split("\n")[0]}`);
  }
  try {
    const bundle = jsPeer(join(repos, "langgraphjs"), root);
    peers.push({
      name: "langgraphjs",
      upload: ({ url, key, id, dir: source }) =>
        command("langgraphjs", [process.execPath, bundle, ...deployArgs({ url, key, id })], {
          env: env(),
          cwd: source,
        }),
      follow: ({ url, key, id }) =>
        command(
          "langgraphjs",
          [
            process.execPath,
            bundle,
            "deploy",
            "logs",
            "--deployment-id",
            id,
            "--api-key",
            key,
            "--host-url",
            url,
            "--follow",
          ],
          { env: env(), cwd },
        ),
    });
  } catch (error) {
    missing.push(`langgraphjs: ${error.message.split("\n")[0]}`);
  }
  return { peers, missing };
}

/**
 * `deploy` of the working directory to an existing deployment, built remotely: both clients
 * take the same options. It packs, asks for an upload URL, uploads, then patches the deployment
 * (which the emulator refuses: they send `langgraph_config_path`); the bench times it to the
 * upload's answer.
 */
function deployArgs({ url, key, id }) {
  return [
    "deploy",
    "--remote",
    "--deployment-id",
    id,
    "--api-key",
    key,
    "--host-url",
    url,
    "--no-wait",
    "--no-input",
    "--config",
    "langgraph.json",
  ];
}

function commitOf(repo) {
  return execFileSync("git", ["-C", repo, "rev-parse", "HEAD"], { encoding: "utf8" }).trim().slice(0, 12);
}

function extract(repo, subdir, into) {
  mkdirSync(into, { recursive: true });
  const archive = spawnSync("git", ["-C", repo, "archive", "HEAD", subdir], { maxBuffer: 512 << 20 });
  if (archive.status !== 0) throw new Error(`git archive of ${repo} failed: ${archive.stderr}`);
  execFileSync("tar", ["-x", "-C", into], { input: archive.stdout });
}

/** The Python client's sources, checked to import with this machine's python3 and packages. */
function pythonPeer(repo) {
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is not installed`);
  const dir = join(CACHE, `langgraph-${commitOf(repo)}`);
  const sources = join(dir, "libs", "cli");
  if (!existsSync(join(sources, "langgraph_cli"))) {
    rmSync(dir, { recursive: true, force: true });
    extract(repo, "libs/cli/langgraph_cli", dir);
  }
  const check = spawnSync(PYTHON, ["-c", "import langgraph_cli.deploy"], {
    env: { ...process.env, PYTHONPATH: sources },
    encoding: "utf8",
  });
  if (check.status !== 0) {
    throw new Error(
      `it does not import (${check.stderr.trim().split("\n").at(-1)}): apt-get install python3-click python3-httpx python3-pathspec python3-dotenv python3-typing-extensions`,
    );
  }
  return sources;
}

/** The JS client's deploy commands, bundled once; returns the bundle's path. */
function jsPeer(repo, root) {
  const dir = join(CACHE, `langgraphjs-${commitOf(repo)}`);
  const bundle = join(dir, "peer.mjs");
  if (existsSync(bundle)) return bundle;
  rmSync(dir, { recursive: true, force: true });
  extract(repo, "libs/langgraph-cli", join(dir, "repo"));
  const cli = join(dir, "repo", "libs", "langgraph-cli");
  const manifest = JSON.parse(readFileSync(join(cli, "package.json"), "utf8"));
  const dependencies = Object.fromEntries(
    Object.entries(manifest.dependencies ?? {}).filter(
      ([, version]) => !String(version).startsWith("workspace:"),
    ),
  );
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "peer", private: true, type: "module", dependencies }),
  );
  const install = spawnSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
    {
      cwd: dir,
      encoding: "utf8",
      timeout: 300_000,
    },
  );
  if (install.status !== 0)
    throw new Error(`npm install failed: ${install.stderr.trim().split("\n").at(-1)}`);
  const entry = join(cli, "src", "cli", "bench-entry.mts");
  writeFileSync(
    entry,
    'import { builder } from "./utils/builder.mjs";\nimport "./deploy.mjs";\nbuilder.parse();\n',
  );
  const esbuild = join(root, "node_modules", ".bin", "esbuild");
  const built = spawnSync(
    esbuild,
    [
      entry,
      "--bundle",
      "--platform=node",
      "--format=esm",
      "--packages=external",
      `--outfile=${bundle}`,
      "--log-level=error",
    ],
    { encoding: "utf8" },
  );
  if (built.status !== 0) throw new Error(`esbuild failed: ${built.stderr.trim().split("\n")[0]}`);
  return bundle;
}
