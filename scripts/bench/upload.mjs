// Packing and uploading (issue 26): `deploy upload ID DIR` of source trees of 50, 3,000 and
// 10,000 files (source-tree.mjs; the largest with a .git and a node_modules that are left
// out), against floors measured in the same run, alternating:
//
// - `tar -czf` + PUT: a shell script packs with tar and gzip, then a bare node:http script
//   (floors/upload.mjs) asks for an upload URL and PUTs the file: what a Node program cannot
//   do with less, as the start-up figures' floors are bare node:http scripts;
// - the same with pigz (every core) where it is installed;
// - the public clients (peers.mjs), where they could be built: their `deploy --remote`, which
//   packs and uploads the same way, then goes on (the bench does not wait for that).
//
// Every figure is from the spawn to the answer to the upload (its PUT), as the proxy in front
// of the emulator saw it (delay-proxy.mjs, no delay), so that the peers, which go on after it,
// are timed to the same point; cpctl and the floors exit right after it. Peak memory is read
// from cpctl's own runs (rss.mjs). The emulator keeps its state in a file: its tarballs are
// files there, with no quota.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startListening } from "./child.mjs";
import { exchange } from "./emulator.mjs";
import { benchEnv, command, median } from "./measure.mjs";
import { formatMb, formatMs } from "./report.mjs";
import { memoryGoal, peakRss } from "./rss.mjs";
import { writeSourceTree } from "./source-tree.mjs";

const KEY = "bench-upload";
const FLOORS = fileURLToPath(new URL("./floors/", import.meta.url));
export const TREES = [
  { label: "50 files", files: 50, bytes: 400e3, goal: 1.2 },
  { label: "3,000 files / 29 MB", files: 3_000, bytes: 29e6, goal: 1.0 },
  {
    label: "10,000 files / 80 MB (+ .git, node_modules)",
    files: 10_000,
    bytes: 80e6,
    extras: 2_000,
    goal: 1.0,
  },
];

/** { root, node, bin, home, cwd, work, runs, peers } -> rows. */
export async function uploadRows({ root, node, bin, home, cwd, work, runs, peers = [] }) {
  const rows = [];
  let emulator;
  let proxy;
  try {
    emulator = await startListening({
      what: "the emulator (--state)",
      argv: [
        node,
        bin,
        "emulator",
        "--port",
        "0",
        "--stage-ms",
        "0",
        "--state",
        join(work, "upload-state.json"),
      ],
      env: benchEnv({ HOME: home }),
      cwd: root,
    });
    proxy = await startListening({
      what: "the delay proxy",
      argv: [node, join(root, "scripts", "bench", "delay-proxy.mjs"), "--target", emulator.url],
      env: benchEnv(),
    });
    const id = await createDeployment(emulator.url);
    const floorScript = writeFloorScript(work, node);
    const pigz = hasCommand("pigz");
    console.log(
      `\npack + upload: tar -czf${pigz ? " and pigz" : ""} as floors; peers: ${peers.map((p) => p.name).join(", ") || "none"}`,
    );
    for (const tree of TREES) {
      const dir = join(work, `tree-${tree.files}`);
      const written = writeSourceTree(dir, {
        files: tree.files,
        totalBytes: tree.bytes,
        extras: tree.extras,
      });
      const env = benchEnv({ HOME: home, CPCTL_BASE_URL: proxy.url, CPCTL_API_KEY: KEY });
      const archive = join(work, `floor-${tree.files}.tgz`);
      const cmds = [
        command("tar -czf + PUT", ["sh", floorScript, id, dir, archive, "gzip"], { env, cwd }),
        ...(pigz ? [command("pigz + PUT", ["sh", floorScript, id, dir, archive, "pigz"], { env, cwd })] : []),
        command("cpctl deploy upload", [node, bin, "deploy", "upload", id, dir], { env, cwd }),
        ...peers.map((peer) => peer.upload({ url: proxy.url, key: KEY, id, dir })),
      ];
      rows.push(
        ...(await measureTree({
          proxyUrl: proxy.url,
          tree,
          written,
          cmds,
          runs,
          id,
          dir,
          env,
          node,
          bin,
          cwd,
        })),
      );
    }
  } catch (error) {
    console.log(`pack + upload: failed: ${error.message.split("\n")[0]}`);
    rows.push({ figure: "pack + upload", goal: "measured", pass: null, note: error.message.split("\n")[0] });
  } finally {
    await proxy?.close();
    await emulator?.close();
  }
  return rows;
}

async function measureTree({ proxyUrl, tree, written, cmds, runs, id, dir, env, node, bin, cwd }) {
  const label = `pack + upload, ${tree.label}`;
  const [floor, ...others] = cmds;
  const cpctl = cmds.find((cmd) => cmd.label === "cpctl deploy upload");
  process.stdout.write(
    `timing ${label} (${(written.bytes / 1e6).toFixed(1)} MB of files, ${runs} runs) against ${cmds.map((c) => c.label).join(", ")} ... `,
  );
  // Checked once: each uploads (its PUT answered 200); a peer that fails to is left out.
  const usable = [];
  const notes = [];
  for (const cmd of cmds) {
    const run = await uploadRun(proxyUrl, cmd);
    if (run.ms !== null) usable.push(cmd);
    else notes.push(`${cmd.label}: ${run.problem}`);
  }
  if (!usable.includes(floor) || !usable.includes(cpctl)) {
    console.log("not measured");
    return [{ figure: label, goal: `<= ${tree.goal.toFixed(2)}x`, pass: null, note: notes.join("; ") }];
  }
  const samples = new Map(usable.map((cmd) => [cmd, []]));
  for (let round = 0; round < runs; round++) {
    for (const cmd of usable) {
      const run = await uploadRun(proxyUrl, cmd);
      if (run.ms === null) throw new Error(`${cmd.label}: ${run.problem}`);
      samples.get(cmd).push(run.ms);
    }
  }
  const ms = (cmd) => median(samples.get(cmd));
  console.log(usable.map((cmd) => `${cmd.label} ${formatMs(ms(cmd))}`).join(", "));
  const ratio = ms(cpctl) / ms(floor);
  const rows = [
    {
      figure: label,
      median: formatMs(ms(cpctl)),
      floor: `${formatMs(ms(floor))} (${floor.label})`,
      ratio: `${ratio.toFixed(2)}x`,
      goal: `<= ${tree.goal.toFixed(2)}x`,
      pass: ratio <= tree.goal,
    },
  ];
  for (const other of others.filter((cmd) => cmd !== cpctl && usable.includes(cmd))) {
    const peer = other.label !== "pigz + PUT";
    rows.push({
      figure: `  vs ${other.label}`,
      median: formatMs(ms(cpctl)),
      floor: formatMs(ms(other)),
      ratio: `${(ms(cpctl) / ms(other)).toFixed(2)}x`,
      goal: peer && tree.goal === 1.0 ? "faster (< 1.00x)" : "-",
      pass: peer && tree.goal === 1.0 ? ms(cpctl) < ms(other) : "info",
    });
  }
  for (const note of notes) rows.push({ figure: `  ${note.split(":")[0]}`, goal: "-", pass: "info", note });
  // Peak memory: cpctl's own process, a few runs straight to the emulator's proxy.
  const rss = [];
  for (let i = 0; i < Math.max(3, Math.min(runs, 5)); i++)
    rss.push(peakRss(command("rss", [node, bin, "deploy", "upload", id, dir], { env, cwd })).kb);
  rows.push({
    figure: `  peak RSS, ${tree.label}`,
    median: formatMb(median(rss)),
    floor: "-",
    ratio: "-",
    ...memoryGoal(median(rss)),
  });
  return rows;
}

/**
 * Spawns `cmd` and waits for its upload's answer (a PUT through the proxy) or its exit; a run
 * that goes on after the upload (a peer) is stopped there. { ms } from spawn to the answer, or
 * { ms: null, problem }.
 */
async function uploadRun(proxyUrl, cmd) {
  await control(proxyUrl, "POST", "/_delay/reset");
  const started = performance.timeOrigin + performance.now();
  const child = spawn(cmd.argv[0], cmd.argv.slice(1), {
    env: cmd.env,
    cwd: cmd.cwd,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
  let put = null;
  let code = null;
  for (let waited = 0; waited < 120_000 && put === null; waited += 50) {
    const stats = JSON.parse(await control(proxyUrl, "GET", "/_delay/stats"));
    put = stats.requests.find((r) => r.method === "PUT" && r.done !== null) ?? null;
    if (put) put = { ...put, done: stats.since + put.done };
    code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(null), 50))]);
    if (code !== null && put === null) {
      const last = JSON.parse(await control(proxyUrl, "GET", "/_delay/stats"));
      const found = last.requests.find((r) => r.method === "PUT" && r.done !== null);
      if (found) put = { ...found, done: last.since + found.done };
      break;
    }
  }
  if (code === null) child.kill("SIGKILL");
  await exited;
  if (!put)
    return { ms: null, problem: `no upload (exit ${code}): ${stderr.trim().split("\n").at(-1) ?? ""}` };
  if (put.status !== 200) return { ms: null, problem: `its upload was answered ${put.status}` };
  return { ms: put.done - started };
}

async function createDeployment(url) {
  const answer = await exchange(false, `${url}/v2/deployments`, {
    method: "POST",
    headers: { "X-Api-Key": KEY, "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({
      name: "bench-upload",
      source: "internal_source",
      source_config: {},
      source_revision_config: { agent_config_path: "agent.json" },
      secrets: [],
    }),
  });
  if (answer.status !== 201) throw new Error(`POST /v2/deployments: ${answer.status} ${answer.body}`);
  return JSON.parse(answer.body).id;
}

/** The floor: the tarball (tar with gzip or pigz), then the upload URL and the PUT (node:http). */
function writeFloorScript(work, node) {
  const path = join(work, "floor-upload.sh");
  mkdirSync(work, { recursive: true });
  writeFileSync(
    path,
    `#!/bin/sh
# usage: floor-upload.sh DEPLOYMENT_ID DIR ARCHIVE gzip|pigz
set -e
if [ "$4" = pigz ]; then
  tar -cf - -C "$2" --exclude=.git --exclude=node_modules . | pigz -6 > "$3"
else
  tar -czf "$3" -C "$2" --exclude=.git --exclude=node_modules .
fi
exec ${JSON.stringify(node)} ${JSON.stringify(join(FLOORS, "upload.mjs"))} "$1" "$3"
`,
  );
  return path;
}

function hasCommand(name) {
  return (process.env.PATH ?? "").split(":").some((dir) => dir && existsSync(join(dir, name)));
}

function control(baseUrl, method, path, body) {
  return exchange(false, `${baseUrl}${path}`, {
    method,
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((answer) => {
    if (answer.status < 200 || answer.status >= 300)
      throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
    return answer.body;
  });
}
