// The packed package: `npm pack`, then `npm install` of the tarball into an empty project,
// offline and with an EMPTY npm cache, so that any runtime dependency npm would have to
// fetch makes the install fail (a warm cache would hide it).
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** npm, offline, with its own empty cache, no audit, no fund, no update check. */
export function npmEnv(baseEnv, cacheDir) {
  return {
    ...baseEnv,
    npm_config_cache: cacheDir,
    npm_config_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    npm_config_loglevel: "error",
  };
}

function npm(args, { cwd, env, timeoutMs = 180_000 }) {
  const start = performance.now();
  const result = spawnSync("npm", args, {
    cwd,
    env,
    encoding: "utf8",
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { ...result, ms: performance.now() - start };
}

/** `npm pack` of `dir` into `dest` (scripts not run: the caller has just built). */
export function pack(dir, dest, env) {
  mkdirSync(dest, { recursive: true });
  const result = npm(["pack", "--ignore-scripts", "--json", "--pack-destination", dest], { cwd: dir, env });
  if (result.status !== 0) throw new Error(`npm pack failed:\n${result.stderr}`);
  const [info] = JSON.parse(result.stdout);
  return {
    tarball: join(dest, info.filename),
    size: info.size,
    unpackedSize: info.unpackedSize,
    files: info.files.map((f) => ({ path: f.path, size: f.size })),
  };
}

/** Installs `tarball` into a fresh project `dir`; never throws on an npm failure. */
export function installTarball(tarball, dir, env) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "cpctl-bench-install", private: true }, null, 2)}\n`,
  );
  const result = npm(["install", "--offline", "--no-audit", "--no-fund", tarball], { cwd: dir, env });
  const installed =
    result.status === 0 ? readdirSync(join(dir, "node_modules")).filter((n) => !n.startsWith(".")) : [];
  const reason =
    result.status === 0
      ? ""
      : (/(ENOTCACHED|E\w+)[^\n]*/.exec(result.stderr)?.[0] ?? result.stderr.trim().split("\n").pop());
  return { ok: result.status === 0, ms: result.ms, installed, reason, stderr: result.stderr };
}

/**
 * The same tarball with `dependencies` moved to `devDependencies` (what the bundle makes
 * possible): extracted, edited, packed again.
 */
export function packWithoutRuntimeDependencies(tarball, workDir, env) {
  const unpacked = join(workDir, "unpacked");
  mkdirSync(unpacked, { recursive: true });
  const tar = spawnSync("tar", ["xzf", tarball, "-C", unpacked], { encoding: "utf8" });
  if (tar.status !== 0) throw new Error(`tar xzf failed: ${tar.stderr}`);
  const dir = join(unpacked, "package");
  const manifestPath = join(dir, "package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  manifest.devDependencies = { ...manifest.dependencies, ...manifest.devDependencies };
  delete manifest.dependencies;
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return pack(dir, join(workDir, "out"), env);
}

/**
 * What the built files load from outside themselves: the static import specifiers of every
 * module (read by V8's own parser, vm.SourceTextModule, in a child process), its dynamic
 * `import("...")` and its `require("...")` calls, keeping those that are neither relative nor
 * Node builtins; and the
 * files that call createRequire (which could reach node_modules at run time).
 */
export function scanBundle(distDir) {
  const script = `
    const vm = require("node:vm"), fs = require("node:fs"), path = require("node:path");
    const { builtinModules } = require("node:module");
    const builtins = new Set(builtinModules.flatMap((n) => [n, "node:" + n]));
    const foreign = new Set(), createRequire = [], unparsed = [];
    const walk = (dir) => { for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".js")) {
        const text = fs.readFileSync(p, "utf8");
        let specifiers = [];
        try { specifiers = new vm.SourceTextModule(text).dependencySpecifiers; } catch { unparsed.push(e.name); }
        for (const m of text.matchAll(/\\bimport\\(\\s*["']([^"'\\s]+)["']\\s*\\)/g)) specifiers.push(m[1]);
        // The bundled CommonJS libraries' requires by name (through esbuild's helper, which
        // calls process.getBuiltinModule; the build fails if any of those is not a builtin).
        for (const m of text.matchAll(/\\brequire\\(\\s*["']([^"'\\s]+)["']\\s*\\)/g)) specifiers.push(m[1]);
        // Template placeholders ("\${x}", "{0}") are code that writes code (TypeScript's emitter), not imports.
        for (const s of specifiers) if (!/^[./]/.test(s) && !/[{}$]/.test(s) && !builtins.has(s)) foreign.add(s + " (" + e.name + ")");
        if (/\\bcreateRequire\\b/.test(text)) createRequire.push(e.name);
      } } };
    walk(process.argv[1]);
    process.stdout.write(JSON.stringify({ foreignImports: [...foreign].sort(), createRequire, unparsed }));
  `;
  const result = spawnSync(
    process.execPath,
    ["--experimental-vm-modules", "--no-warnings", "-e", script, distDir],
    {
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  if (result.status !== 0) throw new Error(`bundle scan failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}
