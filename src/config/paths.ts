// Where config files live. Finding them costs a handful of stat calls and no imports, so
// that a run with no config file pays nothing for configuration.
import { statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { type Env, readRegularFile } from "../io.js";

/** Project file names, in the order they are tried in each directory. */
export const PROJECT_FILE_NAMES = [
  ".cpctlrc",
  ".cpctlrc.yaml",
  ".cpctlrc.yml",
  ".cpctlrc.json",
  "cpctl.config.mjs",
  "package.json",
] as const;

/**
 * The project files that are cpctl's alone (all but package.json): never part of what a
 * project ships (upload/walk.ts leaves them out of a tarball's root).
 */
export const CPCTL_PROJECT_FILES: readonly string[] = PROJECT_FILE_NAMES.filter(
  (name) => name !== "package.json",
);

/** The field of package.json that holds the config. */
export const PACKAGE_FIELD = "cpctl";

/** `$XDG_CONFIG_HOME/cpctl/config.yaml`, or `~/.config/cpctl/config.yaml` (a relative XDG_CONFIG_HOME is ignored, as the XDG spec says). */
export function userConfigPath(homeDir: string, env: Env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homeDir, ".config");
  return join(base, "cpctl", "config.yaml");
}

export function isFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

/**
 * Something other than a directory is there (a regular file, or a FIFO or a device that the
 * reading then refuses, naming it: a clone can ship `.cpctlrc.yaml -> /dev/zero`).
 */
export function isPresent(path: string): boolean {
  try {
    const info = statSync(path, { throwIfNoEntry: false });
    return info !== undefined && !info.isDirectory();
  } catch {
    return false;
  }
}

/** The most cpctl reads from a config file (and from a package.json, looking for its field). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Whether a project file can exist from `cwd` upward: a stat call per place, and no imports,
 * so that a run with no config file never loads a parser. The walk goes up to the home
 * directory when `cwd` is inside it, else up to the root (as cosmiconfig's "global" strategy,
 * which cpctl used before, did). A package.json counts only when it is a regular file with a `cpctl`
 * field. Returns the places that exist, nearest first, each directory's in the order of
 * PROJECT_FILE_NAMES.
 */
export function projectFileCandidates(cwd: string, homeDir: string): string[] {
  const found: string[] = [];
  for (const dir of searchedDirectories(cwd, homeDir)) {
    for (const name of PROJECT_FILE_NAMES) {
      const path = join(dir, name);
      if (name === "package.json" ? packageHasField(path) : isPresent(path)) found.push(path);
    }
  }
  return found;
}

/** The directories searched from `cwd`, nearest first: a project file is in one of them. */
export function searchedDirectories(cwd: string, homeDir: string): Set<string> {
  const home = resolve(homeDir);
  const dirs = new Set<string>();
  let dir = resolve(cwd);
  for (;;) {
    dirs.add(dir);
    const parent = dirname(dir);
    if (dir === home || parent === dir) return dirs;
    dir = parent;
  }
}

/** The parsed `cpctl` field of a package.json, or undefined when it has none. */
export function packageField(text: string): unknown {
  const parsed: unknown = JSON.parse(text);
  return parsed !== null && typeof parsed === "object" && Object.hasOwn(parsed, PACKAGE_FIELD)
    ? (parsed as Record<string, unknown>)[PACKAGE_FIELD]
    : undefined;
}

function packageHasField(path: string): boolean {
  try {
    return packageField(readRegularFile(path, MAX_CONFIG_BYTES).toString("utf8")) !== undefined;
  } catch {
    // Not cpctl's file to report: missing, unreadable, broken, not a regular file (a FIFO, a
    // link to /dev/zero), or over the size cpctl reads looking for its field.
    return false;
  }
}
