// Config files: the user file ($XDG_CONFIG_HOME/cpctl/config.yaml) and the nearest project
// file (.cpctlrc, .cpctlrc.yaml, .cpctlrc.json, cpctl.config.mjs, package.json "cpctl"),
// read by cpctl itself (regular files only, bounded) and parsed as JSON, or as YAML with the
// `yaml` library. They become the "project" and "user" layers of settings.ts for the profile
// in use (which one, profiles.ts chooses). With no file present this costs a few stat calls
// and no imports.
import { statSync } from "node:fs";
import { basename, dirname, extname, resolve } from "node:path";
import { UsageError } from "../errors.js";
import { type Env, FileTooLargeError, NotRegularFileError, readRegularFile } from "../io.js";
import { interpolateEnv, malformedReferenceMessage } from "../util/env-references.js";
import { isPresent, MAX_CONFIG_BYTES, packageField, projectFileCandidates, userConfigPath } from "./paths.js";
import { chooseProfile, LOCAL_API_KEY, LOCAL_BASE_URL, LOCAL_PROFILE } from "./profiles.js";
import { type ConfigFile, type ConfigFiles, type ConfigLocations, parseConfig } from "./schema.js";
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
    userPresent: isPresent(userPath),
    // The nearest place that exists; reading has the last word (it passes over an empty
    // file, say).
    projectPath: candidates[0] ?? null,
    cwd: options.cwd,
    homeDir: options.homeDir,
    candidates,
  };
}

/**
 * Reads the files: the user file by its path, then the nearest project file from the working
 * directory up to home (paths.ts lists them: each directory's names in order, an empty file or
 * one that holds nothing passed over, a package.json only with a "cpctl" field). cpctl reads
 * each itself, a regular file only, at most 1 MiB (io.ts's readRegularFile: a FIFO or a link
 * to /dev/zero in a clone is refused, never read), and parses it (parseData; the YAML library
 * is loaded only when a file needs it). A file's `$import` is an unknown key like any other:
 * it is never followed to another file (the user's, whose credentials would then count as the
 * project's own). The user file comes first: it says whether
 * a project's cpctl.config.mjs may run (config/trust.ts). An untrusted one is not run: a
 * ConfigError that still carries the user file, so that `config path`, `config list` and
 * `config set trustedDirectories` work in that directory.
 */
async function readConfigFiles(locations: ConfigLocations): Promise<ConfigFiles> {
  const { userPath, userPresent } = locations;
  const files: ConfigFiles = { ...locations, user: null, project: null };
  if (userPresent) {
    const user = await loadFile(userPath);
    files.user = parseConfig(user?.config, userPath, "user", "", null);
  }
  files.project = await firstProjectFile(
    locations.candidates,
    files.user?.trustedDirectories ?? [],
    (path) => {
      throw new ConfigError(untrustedCodeConfig(path, dirname(path), userPath), locations, files);
    },
  );
  files.projectPath = files.project?.path ?? null;
  return files;
}

/**
 * The first of `candidates` (project file places, nearest first) that holds something, read
 * and parsed; null when none does. A cpctl.config.mjs outside `trusted` is not run: `untrusted`
 * throws.
 */
async function firstProjectFile(
  candidates: readonly string[],
  trusted: readonly string[],
  untrusted: (path: string) => never,
): Promise<ConfigFile | null> {
  for (const path of candidates) {
    if (isCode(path) && !isTrustedDirectory(dirname(path), trusted)) untrusted(path);
    const loaded = await loadFile(path, { passOverUnreadable: true });
    if (loaded === null) continue; // empty, holds nothing, or gone: the search goes on up
    const isPackage = basename(path) === "package.json";
    return parseConfig(loaded.config, path, "project", isPackage ? "cpctl." : "", loaded.sourceText);
  }
  return null;
}

/**
 * The project file a run in `dir` reads (the nearest from `dir` up, as loadConfigLayers finds
 * it from the working directory), or null. `files`: this run's, for the user file's trust and
 * to reuse what was read when `dir` is the working directory.
 */
export async function projectFileOf(dir: string, files: ConfigFiles): Promise<ConfigFile | null> {
  if (resolve(dir) === resolve(files.cwd)) return files.project;
  const trusted = files.user?.trustedDirectories ?? [];
  return firstProjectFile(projectFileCandidates(dir, files.homeDir), trusted, (path) => {
    throw untrustedCodeConfig(path, dirname(path), files.userPath);
  });
}

/** What the search passes over: a place gone or not to be read. */
const PASSED_OVER = new Set(["ENOENT", "ENOTDIR", "EISDIR", "EACCES"]);

/**
 * One config file's value, or null when it holds nothing (empty, only comments, `null`, a
 * package.json without the field, a module without a default export), or, for a project
 * file with `passOverUnreadable`, when it is gone or may not be read.
 */
async function loadFile(
  path: string,
  { passOverUnreadable = false } = {},
): Promise<{ config: unknown; sourceText: string | null } | null> {
  let text: string;
  try {
    text = readRegularFile(path, MAX_CONFIG_BYTES).toString("utf8");
  } catch (error) {
    if (passOverUnreadable && PASSED_OVER.has((error as NodeJS.ErrnoException).code ?? "")) return null;
    throw unreadable(path, error);
  }
  if (text.trim() === "") return null;
  let config: unknown;
  try {
    if (basename(path) === "package.json") config = packageField(text);
    else if (isCode(path)) config = await importModule(path);
    else config = await parseData(path, text);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${path}: cannot read this config file: ${loadErrorMessage(error)}`).withHint(
      FIX_HINT,
    );
  }
  if (config === null || config === undefined) return null;
  return { config, sourceText: isCode(path) ? text : null };
}

const FIX_HINT = "Fix the file, or move it aside; `cpctl config path` lists the files cpctl reads.";

/** A file that could not be read at all: not a regular file, too large, or Node's error. */
function unreadable(path: string, error: unknown): UsageError {
  if (error instanceof FileTooLargeError)
    return new UsageError(
      `${path}: the config file is ${error.size} bytes, more than the ${MAX_CONFIG_BYTES / 1024 / 1024} MiB cpctl reads from one`,
    );
  if (error instanceof NotRegularFileError)
    return new UsageError(
      `${path}: not a regular file (${error.kind}); cpctl reads config files only from regular files`,
    ).withHint(FIX_HINT);
  const code = (error as NodeJS.ErrnoException).code;
  return new UsageError(`${path}: cannot read this config file (${code ?? String(error)})`).withHint(
    FIX_HINT,
  );
}

/**
 * A data file's value: JSON for .json, else YAML (.yaml, .yml and the extensionless
 * .cpctlrc), one document, by the `yaml` library that the rest of cpctl uses, loaded only then.
 * A syntax error says where and what, never a character of the file, which may hold a
 * credential (util/syntax-error.ts, loaded then: every command reads the config).
 */
async function parseData(path: string, text: string): Promise<unknown> {
  if (extname(path) === ".json") {
    try {
      return JSON.parse(text);
    } catch (error) {
      const { jsonSyntaxProblem } = await import("../util/syntax-error.js");
      const { line, column, reason } = jsonSyntaxProblem(text, error as Error);
      throw new Error(`not valid JSON (line ${line}, column ${column}: ${reason})`);
    }
  }
  const { parseDocument } = await import("yaml");
  const document = parseDocument(text);
  const problem = document.errors[0];
  if (problem) {
    const { yamlProblem } = await import("../util/syntax-error.js");
    const at = problem.linePos?.[0];
    throw new Error(
      `not valid YAML (${at ? `line ${at.line}, column ${at.col}: ` : ""}${yamlProblem(problem.code)})`,
    );
  }
  try {
    return document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // An alias without its anchor, or too many aliases: the library's message names the alias.
    const excessive = (error as Error).message.startsWith("Excessive alias count");
    throw new Error(
      `not a usable YAML document (${excessive ? "too many aliases" : "an alias refers to an anchor that is not set before it"})`,
    );
  }
}

/** A project file that is a module: importing it runs it. */
function isCode(path: string): boolean {
  return path.endsWith(".mjs");
}

/** A cpctl.config.mjs file, through a module loaded only then (see config/import-module.ts). */
async function importModule(path: string): Promise<unknown> {
  return (await import("./import-module.js")).importModule(path);
}

function loadErrorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s*\n\s*/g, " ").trim();
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
