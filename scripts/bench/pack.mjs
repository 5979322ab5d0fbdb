// The packed package: `npm pack`, then `npm install` of the tarball into an empty project,
// offline and with an EMPTY npm cache, so that any runtime dependency npm would have to
// fetch makes the install fail (a warm cache would hide it).
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
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
  const result = spawnSync("npm", args, { cwd, env, encoding: "utf8", timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return { ...result, ms: performance.now() - start };
}

/** `npm pack` of `dir` into `dest` (scripts not run: the caller has just built). */
export function pack(dir, dest, env) {
  mkdirSync(dest, { recursive: true });
  const result = npm(["pack", "--ignore-scripts", "--json", "--pack-destination", dest], { cwd: dir, env });
  if (result.status !== 0) throw new Error(`npm pack failed:\n${result.stderr}`);
  const [info] = JSON.parse(result.stdout);
  return { tarball: join(dest, info.filename), size: info.size, unpackedSize: info.unpackedSize, files: info.files.map((f) => f.path) };
}

/** Installs `tarball` into a fresh project `dir`; never throws on an npm failure. */
export function installTarball(tarball, dir, env) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "cpctl-bench-install", private: true }, null, 2)}\n`);
  const result = npm(["install", "--offline", "--no-audit", "--no-fund", tarball], { cwd: dir, env });
  const installed = result.status === 0 ? readdirSync(join(dir, "node_modules")).filter((n) => !n.startsWith(".")) : [];
  const reason = result.status === 0 ? "" : (/(ENOTCACHED|E\w+)[^\n]*/.exec(result.stderr)?.[0] ?? result.stderr.trim().split("\n").pop());
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
 * What the built files load from outside themselves: every static or dynamic ESM import
 * specifier that is neither relative nor a Node builtin, and whether the CommonJS `require`
 * the bundle gives its bundled CommonJS code can reach anything but builtins.
 */
export function scanBundle(distDir) {
  const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
  const foreign = new Set();
  let createRequire = false;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".js")) {
        const text = readFileSync(path, "utf8");
        if (/createRequire/.test(text)) createRequire = true;
        for (const match of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["']([^"']+)["']/g)) {
          const specifier = match[1];
          if (!specifier.startsWith(".") && !specifier.startsWith("/") && !builtins.has(specifier)) foreign.add(specifier);
        }
      }
    }
  };
  walk(distDir);
  return { foreignImports: [...foreign].sort(), createRequire };
}

/** Copies a file next to an install so that commands can be run from there. */
export function copyInto(file, dir) {
  const target = join(dir, file.split("/").pop());
  cpSync(file, target);
  return target;
}
