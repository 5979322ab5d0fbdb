#!/usr/bin/env node
// The command users run (package.json "bin"): checks the Node.js version, answers `--version`
// itself, turns on Node's compile cache and runs dist/cli.js (scripts/build.mjs).
//
// The check comes first, in syntax that old Nodes parse (a file that does not parse never runs
// it): an older Node gets one line naming the Node cpctl needs and exit 1, not a stack trace
// from the bundle (Node 18, and 20 before 20.16, have no process.getBuiltinModule).
"use strict";

if (!isSupportedNode(process.versions.node)) {
  require("node:fs").writeSync(
    2,
    `cpctl needs Node.js 22 (22.12 or later), 24 or 26, or 20 (20.19 or later); this is Node.js ${process.version}\n`,
  );
  process.exitCode = 1;
} else if (process.argv.length === 3 && (process.argv[2] === "--version" || process.argv[2] === "-V")) {
  // Exactly `--version`: package.json's version, without the bundle (any other spelling is
  // commander's, with the version the bundle was built with: the same).
  writeStdout(`${require("../package.json").version}\n`);
} else {
  // Node 22.1 and later keep the code V8 compiles for dist/ between runs, in the directory
  // NODE_COMPILE_CACHE names or else under the system's temporary directory
  // (NODE_DISABLE_COMPILE_CACHE=1 turns it off). Node 20 has no such cache.
  const { enableCompileCache } = require("node:module");
  if (enableCompileCache) enableCompileCache();
  import("../dist/cli.js").then((cli) => cli.main());
}

/**
 * The Nodes package.json "engines" allows ("^20.19.0 || ^22.12.0 || ^24.0.0 || ^26.0.0"), and
 * the odd majors after 22 and any later major, which npm warns about but which run cpctl: only
 * a Node below what engines allows is refused. README.md, "Node.js versions", says why 20 is
 * still among them.
 */
function isSupportedNode(version) {
  const parts = version.split(".");
  const major = Number(parts[0]);
  const minor = Number(parts[1]);
  if (major === 20) return minor >= 19;
  if (major === 22) return minor >= 12;
  return major > 22;
}

/** Straight to fd 1, without creating the process.stdout stream (a few ms). */
function writeStdout(text) {
  try {
    require("node:fs").writeSync(1, text);
  } catch (error) {
    // A closed reader (`| true`) is not worth an error; a full non-blocking pipe (EAGAIN)
    // gets the ordinary stream.
    if (error.code === "EAGAIN") process.stdout.write(text);
    else if (error.code !== "EPIPE") throw error;
  }
}
