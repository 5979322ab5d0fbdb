// Config files: the user file ($XDG_CONFIG_HOME/cpctl/config.yaml) and the nearest project
// file (.cpctlrc, .cpctlrc.yaml, .cpctlrc.json, cpctl.config.mjs, package.json "cpctl"),
// read with cosmiconfig. They become the "project" and "user" layers of settings.ts for the
// profile in use (which one, profiles.ts chooses). With no file present this costs a few
// stat calls and no imports.
import { readFileSync, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { UsageError } from "../errors.js";
import { interpolateEnv, malformedReferenceMessage } from "../util/env-references.js";
import {
  type Env,
  isFile,
  PACKAGE_FIELD,
  PROJECT_FILE_NAMES,
  projectFileCandidates,
  searchedDirectories,
  userConfigPath,
} from "./paths.js";
import { chooseProfile, LOCAL_API_KEY, LOCAL_BASE_URL, LOCAL_PROFILE } from "./profiles.js";
import {
  type ConfigFile,
  type ConfigFiles,
  type ConfigLocations,
  parseConfig,
  type Scope,
} from "./schema.js";
import {
  CREDENTIAL_KEYS,
  type Layer,
  type RawValues,
  SETTING_KEYS,
  type SettingKey,
  type UnsetReference,
} from "./settings.js";
import { isTrustedDirectory, untrustedCodeConfig } from "./trust.js";
import { checkValue, isLiteral, type ProfileValues } from "./values.js";

export interface ConfigLoadOptions {
  cwd: string;
  homeDir: string;
  env: Env;
  /** The value of --profile, when given. CPCTL_PROFILE is read from `env`. */
  profileFlag?: string | undefined;
  warn: (message: string) => void;
}

export type { ConfigFiles, ConfigLocations } from "./schema.js";

/**
 * A problem with the configuration. It carries what was found, so that `config path`,
 * `config list` and `config set` can still work (and help fix the problem).
 */
export class ConfigError extends UsageError {
  constructor(
    cause: UsageError,
    readonly locations: ConfigLocations,
    /** The files as read, when reading them succeeded. */
    readonly files: ConfigFiles | null,
  ) {
    super(cause.message, cause.details);
    this.hints.push(...cause.hints);
  }
}

interface LoadedConfig {
  layers: Layer[];
  profile: string | null;
  profileOrigin: string | null;
  files: ConfigFiles;
}

/** Used by the context: the layers of the profile in use, highest precedence first. */
export async function loadConfigLayers(options: ConfigLoadOptions): Promise<LoadedConfig> {
  const locations = locateConfigFiles(options);
  let files: ConfigFiles | null = null;
  try {
    files = await readConfigFiles(locations);
    for (const warning of permissionWarnings(files)) options.warn(warning);
    const choice = chooseProfile(files, options.profileFlag, options.env);
    const layers = profileLayers(files, choice.name, options.env);
    return { layers, profile: choice.name, profileOrigin: choice.origin, files };
  } catch (error) {
    if (error instanceof UsageError && !(error instanceof ConfigError))
      throw new ConfigError(error, locations, files);
    throw error;
  }
}

/** Where the files can be, and whether they exist: a few stat calls, no reading. */
function locateConfigFiles(options: { cwd: string; homeDir: string; env: Env }): ConfigLocations {
  const userPath = userConfigPath(options.homeDir, options.env);
  const candidates = projectFileCandidates(options.cwd, options.homeDir);
  return {
    userPath,
    userPresent: isFile(userPath),
    // The nearest place that exists; cosmiconfig's search has the last word (it passes over
    // an empty file, say) once it is loaded.
    projectPath: candidates[0] ?? null,
    cwd: options.cwd,
    homeDir: options.homeDir,
    candidates,
  };
}

/**
 * Reads the files, with cosmiconfig (loaded only when a file can exist): the user file by its
 * path, the project file by cosmiconfig's search from the working directory up to home. The
 * user file comes first: it says whether a project's cpctl.config.mjs may run
 * (config/trust.ts), and the .mjs loader asks before importing anything. An untrusted one is
 * not run: a ConfigError that still carries the user file, so that `config path`, `config
 * list` and `config set trustedDirectories` work in that directory.
 */
async function readConfigFiles(locations: ConfigLocations): Promise<ConfigFiles> {
  const { userPath, userPresent } = locations;
  const files: ConfigFiles = { ...locations, user: null, project: null };
  if (!userPresent && locations.candidates.length === 0) return files;
  for (const path of [...(userPresent ? [userPath] : []), ...locations.candidates]) checkConfigSize(path);
  const loaded = await import("cosmiconfig");
  // A CommonJS package: in the esbuild bundle its exports come only as `default`.
  const { cosmiconfig, defaultLoaders } = loaded.default ?? loaded;
  let trusted: readonly string[] = [];
  const explorer = cosmiconfig("cpctl", {
    searchPlaces: [...PROJECT_FILE_NAMES],
    packageProp: PACKAGE_FIELD,
    searchStrategy: "global",
    stopDir: locations.homeDir,
    cache: false,
    // Only the formats cpctl reads; a module only from a trusted directory.
    loaders: {
      ".json": defaultLoaders[".json"],
      ".yaml": defaultLoaders[".yaml"],
      ".yml": defaultLoaders[".yml"],
      noExt: defaultLoaders.noExt,
      ".mjs": (path: string) => {
        if (!isTrustedDirectory(dirname(path), trusted)) throw new UntrustedCode(path);
        return importModule(path);
      },
    },
  });
  const parse = (path: string, config: unknown, scope: Scope): ConfigFile => {
    const isPackage = basename(path) === "package.json";
    const sourceText = isCode(path) ? readFileSync(path, "utf8") : null;
    return parseConfig(config, path, scope, isPackage ? "cpctl." : "", sourceText);
  };
  const unreadable = (path: string, error: unknown) =>
    new UsageError(`${path}: cannot read this config file: ${loadErrorMessage(error, path)}`).withHint(
      "Fix the file, or move it aside; `cpctl config path` lists the files cpctl reads.",
    );

  if (userPresent) {
    try {
      files.user = parse(userPath, (await explorer.load(userPath))?.config, "user");
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw unreadable(userPath, error);
    }
    trusted = files.user.trustedDirectories ?? [];
  }
  if (locations.candidates.length === 0) return files;
  let found: { filepath: string; config: unknown } | null;
  try {
    found = await explorer.search(locations.cwd);
  } catch (error) {
    if (error instanceof UntrustedCode)
      throw new ConfigError(untrustedCodeConfig(error.path, dirname(error.path), userPath), locations, files);
    throw unreadable((error as { filepath?: string }).filepath ?? locations.projectPath ?? "", error);
  }
  // The search ends in cosmiconfig's global directory, which is the user file: not a project's.
  const projectDirs = searchedDirectories(locations.cwd, locations.homeDir);
  if (!found || !projectDirs.has(dirname(found.filepath))) {
    files.projectPath = null;
    return files;
  }
  files.projectPath = found.filepath;
  files.project = parse(found.filepath, found.config, "project");
  return files;
}

/** A cpctl.config.mjs in a directory the user has not trusted: not imported. */
class UntrustedCode extends Error {
  constructor(readonly path: string) {
    super(`${path} is in a directory the user has not trusted`);
  }
}

/** A project file that is a module: importing it runs it. */
function isCode(path: string): boolean {
  return path.endsWith(".mjs");
}

/** Far more than any config file needs; a bigger one is a mistake or an attack (a slow start). */
const MAX_CONFIG_BYTES = 1024 * 1024;

function checkConfigSize(path: string): void {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return; // cosmiconfig reports it
  }
  if (size > MAX_CONFIG_BYTES)
    throw new UsageError(
      `${path}: the config file is ${size} bytes, more than the ${MAX_CONFIG_BYTES / 1024 / 1024} MiB cpctl reads from one`,
    );
}

/** A cpctl.config.mjs file, through a module loaded only then (see config/import-module.ts). */
async function importModule(path: string): Promise<unknown> {
  return (await import("./import-module.js")).importModule(path);
}

function loadErrorMessage(error: unknown, path: string): string {
  const text = error instanceof Error ? error.message : String(error);
  // cosmiconfig prefixes "YAML Error in PATH:\n" / "JSON Error in PATH:\n": the path is already said.
  return text
    .replace(`Error in ${path}:\n`, "Error: ")
    .replace(/\s*\n\s*/g, " ")
    .trim();
}

/** The layers of one profile: project file, user file, then the built-in `local` profile (as a default). */
function profileLayers(files: ConfigFiles, name: string | null, env: Env): Layer[] {
  if (name === null) return [];
  const layers: Layer[] = [];
  for (const file of [files.project, files.user]) {
    const values = file?.profiles.get(name);
    if (file && values) layers.push(fileLayer(file, name, values, env));
  }
  if (name === LOCAL_PROFILE) {
    layers.push({
      kind: "default",
      values: { baseUrl: LOCAL_BASE_URL, apiKey: LOCAL_API_KEY },
      describe: () => `built-in profile ${LOCAL_PROFILE}`,
    });
  }
  return layers;
}

/** `profiles.prod.baseUrl` (or `cpctl.profiles.prod.baseUrl` in package.json). */
function keyPath(file: ConfigFile, profile: string, key: string): string {
  return `${file.keyPrefix}profiles.${profile}.${key}`;
}

function fileLayer(file: ConfigFile, profile: string, raw: ProfileValues, env: Env): Layer {
  const values: RawValues = {};
  const via: Partial<Record<SettingKey, string>> = {};
  const unset: Partial<Record<SettingKey, UnsetReference>> = {};
  for (const key of SETTING_KEYS) {
    const value = raw[key];
    if (value === undefined) continue;
    const at = `${file.path}: ${keyPath(file, profile, key)}`;
    let final: string | boolean = value;
    if (typeof value === "string") {
      const result = interpolateEnv(value, env);
      if ("malformed" in result)
        throw new UsageError(`${at} (profile ${profile}): ${malformedReferenceMessage(result.malformed)}`);
      if ("unset" in result) {
        // Not an error yet: only a command that needs this setting stops (settings.ts, requireSet).
        unset[key] = { variable: result.unset, at };
        continue;
      }
      final = result.value;
      if (result.variables.length) via[key] = result.variables.map((n) => `\${env:${n}}`).join(", ");
    }
    // An empty value (e.g. an empty variable) is "not set": lower layers apply.
    if (final === "") continue;
    const problem = checkValue(key, final);
    if (problem) throw new UsageError(`${at} (profile ${profile}): ${problem}`);
    if (key === "caFile") {
      // Which authorities to trust is the user's to say, not a checkout's.
      if (file.scope === "project")
        throw new UsageError(
          `${at}: caFile is read from the user config only (a project file must not choose which certificate authorities to trust); move it to the user config (\`cpctl config path\` shows where)`,
        );
      // A relative path is relative to the file that names it, as kubeconfig's are.
      final = resolve(dirname(file.path), String(final));
    }
    values[key] = key === "confirm" ? final === true || final === "true" : final;
  }
  return {
    kind: file.scope,
    values,
    viaEnv: new Set(Object.keys(via) as SettingKey[]),
    unset,
    describe: (key) =>
      `${keyPath(file, profile, key)} in ${file.path}${via[key] ? ` (from ${via[key]})` : ""}`,
  };
}

/**
 * A warning for each file that holds a literal credential (not `${env:NAME}`) and that group
 * or others can read. In a cpctl.config.mjs a value counts as literal when it appears in the
 * file's text (a value computed from process.env does not).
 */
function permissionWarnings(files: ConfigFiles): string[] {
  if (process.platform === "win32") return [];
  const warnings: string[] = [];
  for (const file of [files.user, files.project]) {
    if (!file) continue;
    const literal = firstLiteralCredential(file);
    if (!literal) continue;
    let mode: number;
    try {
      mode = statSync(file.path).mode;
    } catch {
      continue;
    }
    if ((mode & 0o077) === 0) continue;
    warnings.push(
      `${file.path} holds a literal credential (${literal}) and can be read by others (mode ${(mode & 0o777).toString(8).padStart(4, "0")}): ` +
        `run \`chmod 600 ${file.path}\`, or write the value as \${env:NAME} and export NAME`,
    );
  }
  return warnings;
}

function firstLiteralCredential(file: ConfigFile): string | null {
  for (const [profile, values] of file.profiles) {
    for (const key of CREDENTIAL_KEYS) {
      const value = values[key];
      if (typeof value !== "string" || !isLiteral(value)) continue;
      if (file.sourceText !== null && !file.sourceText.includes(value)) continue;
      return keyPath(file, profile, key);
    }
  }
  return null;
}
