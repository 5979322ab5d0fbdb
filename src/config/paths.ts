// Where config files live. Finding them costs a handful of stat calls and no imports, so
// that a run with no config file pays nothing for configuration.
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

export type Env = Readonly<Record<string, string | undefined>>;

/** Project file names, in the order they are tried in each directory. */
export const PROJECT_FILE_NAMES = [
  ".cpctlrc",
  ".cpctlrc.yaml",
  ".cpctlrc.yml",
  ".cpctlrc.json",
  "cpctl.config.mjs",
  "package.json",
] as const;

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
 * Whether a project file can exist from `cwd` upward: a stat call per place, and no imports,
 * so that a run with no config file never loads cosmiconfig (which then does the search
 * itself, by its own rules). The walk is the one cosmiconfig's "global" strategy takes: up to
 * the home directory when `cwd` is inside it, else up to the root. A package.json counts only
 * when it has a `cpctl` field. Returns the places that exist, for the size check.
 */
export function projectFileCandidates(cwd: string, homeDir: string): string[] {
  const home = resolve(homeDir);
  let dir = resolve(cwd);
  const found: string[] = [];
  for (;;) {
    for (const name of PROJECT_FILE_NAMES) {
      const path = join(dir, name);
      if (isFile(path) && (name !== "package.json" || packageHasField(path))) found.push(path);
    }
    const parent = dirname(dir);
    if (dir === home || parent === dir) return found;
    dir = parent;
  }
}

/** The directories cosmiconfig searches from `cwd`: a project file is in one of them. */
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

function packageHasField(path: string): boolean {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    return parsed !== null && typeof parsed === "object" && Object.hasOwn(parsed, PACKAGE_FIELD);
  } catch {
    // An unreadable or broken package.json is not ours to report.
    return false;
  }
}
