// Every supported Node (docs/performance.md "Every supported Node"): the start-up figures on
// the Node 22 and 24 binaries that `npm ci --prefix test/node-versions` installs (the ones
// test/e2e/node-versions.test.ts runs), each against its floor on the same binary, with the
// goals they have on Node 20. Without the binaries the figures are skipped, with a note.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { command } from "./measure.mjs";

export const MAJORS = ["22", "24"];

/** The binary of `major` under test/node-versions, or null when it is not installed. */
export function nodeBinary(root, major) {
  const path = join(root, "test", "node-versions", "node_modules", `node-${major}`, "bin", "node");
  return existsSync(path) ? path : null;
}

/**
 * For each major: `cpctl --version` and `--help` against `node -e 0`, `deploy list -o json`
 * against the bare node:http list script, all on that binary. `timedRows` and `checkOutput`
 * are the benchmark's own (scripts/bench.mjs); `rows` receives the skip notes.
 * { root, bin, env, cwd, bareList (the script's path), version (package.json's), timedRows,
 *   checkOutput, rows }
 */
export function nodeVersionRows({ root, bin, env, cwd, bareList, version, timedRows, checkOutput, rows }) {
  for (const major of MAJORS) {
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
    const on = (label, argv) => command(label, [node, ...argv], { env, cwd });
    const nodeE0 = on(`node ${actual} -e 0`, ["-e", "0"]);
    const versionCmd = on(`cpctl --version (Node ${major})`, [bin, "--version"]);
    const help = on(`cpctl --help (Node ${major})`, [bin, "--help"]);
    const list = on(`cpctl deploy list -o json (Node ${major})`, [bin, "deploy", "list", "-o", "json"]);
    const bare = on(`node:http script (Node ${major})`, [bareList]);
    checkOutput(versionCmd, (out) => out.trim() === version, `prints ${version}`);
    checkOutput(help, (out) => out.startsWith("Usage: cpctl"), "prints the usage");
    // The checked runs also write each command's compile cache for this Node.
    checkOutput(list, (out) => JSON.parse(out).length === 20, "prints the first page (20)");
    checkOutput(bare, (out) => JSON.parse(out).length === 20, "prints the first page (20)");
    timedRows(nodeE0, [
      { figure: `Node ${major}: cpctl --version`, subject: versionCmd, goal: 1.3 },
      { figure: `Node ${major}: cpctl --help`, subject: help, goal: 1.5 },
    ]);
    timedRows(bare, [{ figure: `Node ${major}: deploy list -o json`, subject: list, goal: 1.5 }]);
  }
}
