// The start-up figures (docs/performance.md, "Goals"), on every supported Node: the bench's
// own Node and the Node 22, 24 and 26 binaries that `npm ci --prefix test/node-versions`
// installs (the ones test/e2e/node-versions.test.ts runs), each command against its floor on
// the same binary: `node -e 0`, or a bare node:http script that sends the same request and
// prints the same output. Goals: 1.5x on Node 22 and later, which have Node's compile cache
// (module.enableCompileCache); 2x on Node 20, which has none. Without a binary its figures
// are skipped, with a note.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { withProjectConfig } from "./config-file.mjs";
import { command } from "./measure.mjs";
import { throughProxy } from "./proxy.mjs";

/** The majors under test/node-versions, besides the bench's own Node. */
export const MAJORS = ["22", "24", "26"];

/** The goal of every start-up figure on `major`. */
export const startupGoal = (major) => (Number(major) >= 22 ? 1.5 : 2.0);

/** The binary of `major` under test/node-versions, or null when it is not installed. */
export function nodeBinary(root, major) {
  const path = join(root, "test", "node-versions", "node_modules", `node-${major}`, "bin", "node");
  return existsSync(path) ? path : null;
}

/**
 * The Nodes to measure: { major, node (the binary), version }; the bench's own first. A
 * missing binary is reported in `rows` and left out.
 */
export function startupNodes(root, rows) {
  const own = process.versions.node.split(".")[0];
  const nodes = [{ major: own, node: process.execPath, version: process.version }];
  for (const major of MAJORS) {
    if (major === own) continue;
    const node = nodeBinary(root, major);
    const actual = node ? spawnSync(node, ["--version"], { encoding: "utf8" }).stdout?.trim() : null;
    if (!node || !actual?.startsWith(`v${major}.`)) {
      const note = node
        ? `${node} answers ${actual || "nothing"} to --version`
        : "not installed: npm ci --prefix test/node-versions";
      console.log(`Node ${major}: skipped (${note})`);
      rows.push({
        figure: `Node ${major}: start-up figures`,
        goal: "-",
        pass: "info",
        note,
        median: "skipped",
      });
      continue;
    }
    nodes.push({ major, node, version: actual });
  }
  return nodes;
}

/**
 * The start-up rows of one Node. `timedRows` and `checkOutput` are the benchmark's own
 * (scripts/bench.mjs). { node: { major, node, version }, bin, env, cwd, work, emulatorUrl,
 * apiKey, files: { deployment, deploymentJson, bareList }, version (package.json's),
 * proxy (scripts/bench/proxy.mjs's, for the info row through it; or undefined), timedRows,
 * checkOutput }
 */
export async function startupRows({
  node: { major, node, version: nodeVersion },
  bin,
  env,
  cwd,
  work,
  emulatorUrl,
  apiKey,
  files,
  version,
  proxy,
  timedRows,
  checkOutput,
}) {
  const goal = startupGoal(major);
  const prefix = `Node ${major}: `;
  const on = (label, argv, extraEnv = {}) =>
    command(`${label} (Node ${major})`, [node, ...argv], { env: { ...env, ...extraEnv }, cwd });
  const cpctl = (label, argv) => on(label, [bin, ...argv]);
  // Without the compile cache: what the first run of a command after an install costs
  // (NODE_DISABLE_COMPILE_CACHE is Node's switch; CPCTL_COMPILE_CACHE=0 was that of the cache
  // bin/cpctl.cjs kept itself before issue 35, for figures of the older build).
  const uncached = (cmd) =>
    command(`${cmd.label}, no compile cache`, cmd.argv, {
      env: { ...cmd.env, NODE_DISABLE_COMPILE_CACHE: "1", CPCTL_COMPILE_CACHE: "0" },
      cwd: cmd.cwd,
    });

  const nodeE0 = on(`node ${nodeVersion} -e 0`, ["-e", "0"]);
  const bareList = on("node:http script, same request", [files.bareList]);
  const versionCmd = cpctl("cpctl --version", ["--version"]);
  const help = cpctl("cpctl --help", ["--help"]);
  const list = cpctl("cpctl deploy list -o json", ["deploy", "list", "-o", "json"]);
  const listUncached = uncached(list);
  // The same list from a project directory whose .cpctlrc.yaml names the emulator.
  const listWithConfig = withProjectConfig(list, { work, emulatorUrl, apiKey }).subject;
  const listProxied = proxy ? throughProxy(list, proxy.url) : null;
  const dryRun = (file) =>
    cpctl(`cpctl deploy create --dry-run -f ${file}`, ["deploy", "create", "--dry-run", "-f", file]);
  const dryRunYaml = dryRun(files.deployment);
  const dryRunJson = dryRun(files.deploymentJson);
  const dryRunJsonUncached = uncached(dryRunJson);

  // The checked runs also write each command's compile cache for this Node.
  const page = (out) => JSON.parse(out).length === 20;
  const sameBody = (out) => JSON.parse(out).name === "support-agent-prod";
  checkOutput(versionCmd, (out) => out.trim() === version, `print ${version}`);
  checkOutput(help, (out) => out.startsWith("Usage: cpctl"), "print the usage");
  for (const cmd of [list, listUncached, listWithConfig, bareList])
    checkOutput(cmd, page, "print the first page (20)");
  if (listProxied) {
    checkOutput(listProxied, page, "print the first page (20)");
    if (!listProxied.check && (await proxy.count()).forwarded === 0)
      listProxied.check = "the request did not go through the proxy";
  }
  for (const cmd of [dryRunYaml, dryRunJson, dryRunJsonUncached])
    checkOutput(cmd, sameBody, "print the request body");

  timedRows(nodeE0, [
    { figure: `${prefix}cpctl --version`, subject: versionCmd, goal },
    { figure: `${prefix}cpctl --help`, subject: help, goal },
    { figure: `${prefix}deploy create --dry-run -f FILE.yaml`, subject: dryRunYaml, goal },
    { figure: `${prefix}deploy create --dry-run -f FILE.json`, subject: dryRunJson, goal },
    {
      figure: `  ${prefix}create --dry-run -f FILE.json, no compile cache`,
      subject: dryRunJsonUncached,
      goal: null,
    },
  ]);
  timedRows(bareList, [
    { figure: `${prefix}deploy list -o json (1 request)`, subject: list, goal },
    { figure: `  ${prefix}deploy list -o json, no compile cache`, subject: listUncached, goal: null },
    { figure: `${prefix}deploy list -o json, project config file`, subject: listWithConfig, goal },
    ...(listProxied
      ? [{ figure: `  ${prefix}deploy list -o json, through HTTP_PROXY`, subject: listProxied, goal: null }]
      : []),
  ]);
}
