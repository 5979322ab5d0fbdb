// One line per profile for `cpctl config list`: where it is defined, its address, whether
// it is the default and whether it is the one in use.

import { interpolateEnv } from "../util/env-references.js";
import {
  type ConfigFiles,
  defaultProfile,
  LOCAL_BASE_URL,
  LOCAL_PROFILE,
  type ProfileChoice,
  profileNames,
} from "./files.js";
import type { Env } from "./paths.js";

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
    const rawConfirm = defined.map(({ values }) => values.confirm).find((v) => v !== undefined);
    return {
      name,
      selected: choice.name === name,
      default: fallback === name,
      baseUrl:
        typeof rawUrl === "string" ? shown(rawUrl, env) : name === LOCAL_PROFILE ? LOCAL_BASE_URL : null,
      confirm: rawConfirm === true || (typeof rawConfirm === "string" && shown(rawConfirm, env) === "true"),
      sources,
    };
  });
}

/** The value with `${env:NAME}` resolved, or as written when a variable is unset. */
function shown(value: string, env: Env): string {
  const result = interpolateEnv(value, env);
  return result.ok ? result.value : value;
}
