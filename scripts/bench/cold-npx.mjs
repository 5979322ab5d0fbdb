// The package (docs/performance.md "The package, cold"): what a first `npx` of cpctl costs.
// cpctl's packed tarball, `npx --package TARBALL -- cpctl --version`, against the same for a
// tiny packed package whose bin is an empty script (the floor: npm's own work for any
// package), alternating, each run offline with a fresh empty npm cache of its own, so that
// each one unpacks its tarball into the cache as a first run does. Also reported: the
// tarball's packed and unpacked sizes, and that it holds no source map (dist/ keeps them for
// development: package.json "files" leaves them out).
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { capture, command, median, timeOnce } from "./measure.mjs";
import { npmEnv, pack } from "./pack.mjs";
import { formatMs } from "./report.mjs";

export const COLD_NPX_GOAL = 1.3;

/**
 * { root, work, env (the child environment: HOME...), version, runs }
 * Returns rows: the tarball's contents, and the cold npx figure.
 */
export function coldNpxRows({ root, work, env, version, runs }) {
  const dir = join(work, "cold-npx");
  const caches = join(dir, "caches");
  const cwd = join(dir, "cwd");
  mkdirSync(caches, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const rows = [];
  const tarballFigure = "packed tarball: no source maps";
  const npxFigure = "cold npx of the tarball --version, offline";
  const npxGoal = `<= ${COLD_NPX_GOAL.toFixed(2)}x`;

  let packed;
  let empty;
  try {
    // Packed here, scripts not run (the benchmark has just built); the empty cache is only
    // for npm pack's own use.
    const packEnv = npmEnv(env, mkdtempSync(join(caches, "pack-")));
    packed = pack(root, join(dir, "out"), packEnv);
    empty = pack(writeEmptyPackage(join(dir, "empty")), join(dir, "out"), packEnv);
  } catch (error) {
    const note = error.message.split("\n")[0];
    return [
      { figure: tarballFigure, goal: "no .map files", pass: null, note },
      { figure: npxFigure, goal: npxGoal, pass: null, note },
    ];
  }
  const maps = packed.files.filter((f) => f.path.endsWith(".map"));
  const devMaps = countMaps(join(root, "dist"));
  const kb = (bytes) => `${(bytes / 1024).toFixed(0)} kB`;
  console.log(
    `cold npx: ${packed.tarball.split("/").pop()} ${kb(packed.size)} packed, ${kb(packed.unpackedSize)} unpacked, ${packed.files.length} files, ${maps.length} .map (dist/ has ${devMaps} for development); floor ${empty.tarball.split("/").pop()} ${empty.size} B`,
  );
  rows.push({
    figure: tarballFigure,
    median: `${kb(packed.size)} packed`,
    floor: `${kb(packed.unpackedSize)} unpacked, ${packed.files.length} files`,
    ratio: "-",
    goal: "no .map files",
    pass: maps.length === 0 && devMaps > 0,
    note:
      maps.length > 0
        ? `${maps.length} .map files in the tarball (${maps[0].path}...)`
        : devMaps === 0
          ? "dist/ has no source maps: the development build should keep them"
          : undefined,
  });

  // Each run gets a fresh, empty cache directory, made before the clock starts and removed
  // after it stops.
  const npx = (label, tarball, bin, cache) =>
    command(label, ["npx", "--yes", "--package", tarball, "--", bin, "--version"], {
      env: npmEnv(env, cache),
      cwd,
    });
  const floorOf = (cache) =>
    npx("npx --package EMPTY.tgz -- empty", empty.tarball, "cpctl-bench-empty", cache);
  const subjectOf = (cache) =>
    npx("npx --package cpctl.tgz -- cpctl --version", packed.tarball, "cpctl", cache);
  const fresh = () => mkdtempSync(join(caches, "run-"));
  const once = (make, check) => {
    const cache = fresh();
    try {
      const cmd = make(cache);
      if (!check) return timeOnce(cmd, 120_000);
      const result = capture(cmd, 120_000);
      if (result.code !== 0 || !check(result.stdout))
        throw new Error(
          `${cmd.label}: exit ${result.code ?? result.signal}, stdout ${JSON.stringify(result.stdout.slice(0, 80))}: ${result.stderr.trim().split("\n").slice(-2).join(" / ")}`,
        );
      return 0;
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  };
  process.stdout.write(`  timing cold npx, a fresh empty npm cache for every run (${runs} runs) ... `);
  try {
    once(floorOf, (out) => out === "");
    once(subjectOf, (out) => out.trim() === version);
    const floorMs = [];
    const subjectMs = [];
    for (let round = -1; round < runs; round++) {
      const f = once(floorOf);
      const s = once(subjectOf);
      if (round >= 0) {
        floorMs.push(f);
        subjectMs.push(s);
      }
    }
    const ratio = median(subjectMs) / median(floorMs);
    console.log(`${formatMs(median(subjectMs))} vs ${formatMs(median(floorMs))}`);
    rows.push({
      figure: npxFigure,
      median: formatMs(median(subjectMs)),
      floor: `${formatMs(median(floorMs))} (npx of an empty script's package)`,
      ratio: `${ratio.toFixed(2)}x`,
      goal: npxGoal,
      pass: ratio <= COLD_NPX_GOAL,
      raw: { floorMs, subjectMs },
    });
  } catch (error) {
    console.log("failed");
    rows.push({ figure: npxFigure, goal: npxGoal, pass: null, note: error.message.split("\n")[0] });
  } finally {
    rmSync(caches, { recursive: true, force: true });
  }
  return rows;
}

/** A package whose only bin is an empty script: npx's floor. */
function writeEmptyPackage(dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "cpctl-bench-empty", version: "1.0.0", bin: { "cpctl-bench-empty": "empty.js" } }, null, 2)}\n`,
  );
  writeFileSync(join(dir, "empty.js"), "#!/usr/bin/env node\n", { mode: 0o755 });
  return dir;
}

function countMaps(dir) {
  let count = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile() && entry.name.endsWith(".map")) count++;
  return count;
}
