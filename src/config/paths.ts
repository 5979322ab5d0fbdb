// Where config files live. Finding them costs a handful of stat calls and no imports, so
// that a run with no config file pays nothing for configuration.
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";

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
 * The nearest project file from `cwd` upward, stopping after the home directory (when `cwd`
 * is inside it) or at the filesystem root. A package.json counts only when it has a `cpctl`
 * field, as with cosmiconfig's own search.
 */
export function findProjectFile(cwd: string, homeDir: string): string | null {
  const home = resolve(homeDir);
  let dir = resolve(cwd);
  const insideHome = dir === home || dir.startsWith(home.endsWith(sep) ? home : `${home}${sep}`);
  for (;;) {
    for (const name of PROJECT_FILE_NAMES) {
      const path = join(dir, name);
      if (!isFile(path)) continue;
      if (name !== "package.json" || packageHasField(path)) return path;
    }
    const parent = dirname(dir);
    if ((insideHome && dir === home) || parent === dir) return null;
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
