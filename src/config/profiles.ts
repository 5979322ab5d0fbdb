// The profiles: the built-in `local` one, the names the files define, which one a command
// line uses (--profile > CPCTL_PROFILE > project defaultProfile > user defaultProfile; an
// unknown name is an error that lists the known ones), and one line per profile for
// `cpctl config list`.
import { UsageError } from "../errors.js";
import type { Env } from "../io.js";
import { interpolateEnv } from "../util/env-references.js";
import type { ConfigFile, ConfigFiles } from "./schema.js";

export const LOCAL_PROFILE = "local";
/** The emulator's default address (`cpctl emulator` with no --host/--port). */
export const LOCAL_BASE_URL = "http://127.0.0.1:8124";
/**
 * The emulator accepts any non-empty key unless started with --api-key, so the built-in
 * profile carries a fixed, public placeholder: `--profile local` works with no setup.
 */
export const LOCAL_API_KEY = "local-emulator";

export interface ProfileChoice {
  name: string | null;
  /**
   * How it was chosen: "--profile", "environment variable CPCTL_PROFILE", "defaultProfile in
   * the project file FILE", "defaultProfile in the user file FILE".
   */
  origin: string | null;
}

/** When no profile is chosen, why: what would have chosen one. */
export const NO_PROFILE =
  "no profile in use: no --profile, CPCTL_PROFILE or defaultProfile (`cpctl config use NAME` sets one)";

/** "profile prod, chosen by --profile", for messages about a setting: which profile, and why that one. */
export function describeChoice(choice: ProfileChoice): string {
  return choice.name === null
    ? NO_PROFILE
    : `profile ${choice.name}, chosen by ${choice.origin ?? "default"}`;
}

/** Profile names from both files and the built-in one, each once: user file order, then project-only, then `local`. */
export function profileNames(files: ConfigFiles): string[] {
  const names = new Set<string>();
  for (const file of [files.user, files.project])
    for (const name of file?.profiles.keys() ?? []) names.add(name);
  names.add(LOCAL_PROFILE);
  return [...names];
}

/** The effective defaultProfile (project over user) and the file that says so. */
export function defaultProfile(files: ConfigFiles): { name: string; file: ConfigFile } | null {
  for (const file of [files.project, files.user])
    if (file?.defaultProfile) return { name: file.defaultProfile, file };
  return null;
}

/** How a profile chosen by a file's defaultProfile says where it came from: which file, and whose. */
export function defaultProfileOrigin(file: ConfigFile): string {
  return `defaultProfile in the ${file.scope} file ${file.path}`;
}

/** --profile > CPCTL_PROFILE > project defaultProfile > user defaultProfile, known or not. */
export function pickProfile(files: ConfigFiles, profileFlag: string | undefined, env: Env): ProfileChoice {
  if (profileFlag !== undefined) {
    if (profileFlag.trim() === "") throw new UsageError("--profile: the profile name is empty");
    return { name: profileFlag, origin: "--profile" };
  }
  if (env.CPCTL_PROFILE) return { name: env.CPCTL_PROFILE, origin: "environment variable CPCTL_PROFILE" };
  const fallback = defaultProfile(files);
  if (fallback) return { name: fallback.name, origin: defaultProfileOrigin(fallback.file) };
  return { name: null, origin: null };
}

/** As pickProfile; an unknown name is a usage error listing the known ones (unless `lenient`: no profile then). */
export function chooseProfile(
  files: ConfigFiles,
  profileFlag: string | undefined,
  env: Env,
  lenient = false,
): ProfileChoice {
  const choice = pickProfile(files, profileFlag, env);
  if (choice.name === null || profileNames(files).includes(choice.name)) return choice;
  if (lenient) return { name: null, origin: null };
  throw unknownProfile(files, choice);
}

function unknownProfile(files: ConfigFiles, choice: ProfileChoice): UsageError {
  const from =
    choice.origin === "--profile"
      ? "--profile"
      : choice.origin?.startsWith("environment")
        ? "CPCTL_PROFILE"
        : choice.origin;
  return new UsageError(
    `unknown profile '${choice.name}' (from ${from}); known profiles: ${profileNames(files).join(", ")}`,
  ).withHint(
    `Define it under 'profiles:' in ${files.userPath} or a project file, e.g. \`cpctl config set baseUrl URL --profile ${choice.name}\`.`,
  );
}

export interface ProfileSummary {
  name: string;
  /** The profile commands use now (--profile, CPCTL_PROFILE or defaultProfile). */
  selected: boolean;
  /** Named by defaultProfile (the project file's wins over the user file's). */
  default: boolean;
  /** The merged baseUrl (project over user over built-in), `${env:NAME}` resolved when the variable is set. */
  baseUrl: string | null;
  confirm: boolean;
  /** The files that define it (project first), and "built-in" for `local`. */
  sources: string[];
}

export function summarizeProfiles(files: ConfigFiles, choice: ProfileChoice, env: Env): ProfileSummary[] {
  const fallback = defaultProfile(files)?.name ?? null;
  return profileNames(files).map((name) => {
    const defined = [files.project, files.user].flatMap((file) => {
      const values = file?.profiles.get(name);
      return file && values ? [{ file, values }] : [];
    });
    const sources = defined.map(({ file }) => file.path);
    if (name === LOCAL_PROFILE) sources.push("built-in");
    const rawUrl = defined.map(({ values }) => values.baseUrl).find((v) => typeof v === "string" && v !== "");
    // Either file may turn confirm on; neither can turn it off (settings.ts).
    const confirms = defined.map(({ values }) => values.confirm);
    return {
      name,
      selected: choice.name === name,
      default: fallback === name,
      baseUrl:
        typeof rawUrl === "string" ? shown(rawUrl, env) : name === LOCAL_PROFILE ? LOCAL_BASE_URL : null,
      confirm: confirms.some((v) => v === true || (typeof v === "string" && shown(v, env) === "true")),
      sources,
    };
  });
}

/** The value with `${env:NAME}` resolved, or as written when a variable is unset. */
function shown(value: string, env: Env): string {
  const result = interpolateEnv(value, env);
  return result.ok ? result.value : value;
}
