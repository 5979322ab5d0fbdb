// The shape of a config file, checked by hand (zod would cost ~90 ms of start-up):
//
//   deployment: my-agent            # project file only: deploy push's name here (no --name)
//   defaultProfile: prod            # optional
//   trustedHosts: [cp.example.com]  # user file only (config/trust.ts)
//   trustedDirectories: [/home/me/src/app]
//   profiles:
//     prod:
//       baseUrl: https://api.example.com
//       apiKey: ${env:CPCTL_PROD_API_KEY}
//       confirm: true
//
// Errors name the file and the key. Values are checked for type here; what they mean (URL,
// UUID, format) is checked once `${env:NAME}` is resolved, for the profile in use.
import { UsageError } from "../errors.js";
import { SETTING_KEYS } from "./keys.js";
import { directoryEntryProblem, hostEntryProblem } from "./trust.js";
import { isSettingKey, type ProfileValues, suggestKey } from "./values.js";

export type Scope = "user" | "project";

export interface ConfigFile {
  path: string;
  scope: Scope;
  /** Prefix of key paths in messages: "" or, in package.json, "cpctl.". */
  keyPrefix: string;
  defaultProfile: string | null;
  /** Profile name -> its values, in file order. */
  profiles: Map<string, ProfileValues>;
  /** The file's text, when it is code (cpctl.config.mjs): to tell literal credentials from computed ones. */
  sourceText: string | null;
  /** Hosts a project file may point a profile at and still get the user's credentials (user file only). */
  trustedHosts: string[];
  /** Directories whose cpctl.config.mjs may run (user file only). */
  trustedDirectories: string[];
  /**
   * The deployment `deploy push` ships this file's directory to when --name is absent
   * (project file only; operations/remembered-name.ts).
   */
  deployment: string | null;
}

/** Lists only the user's own file may hold: a project file cannot vouch for itself. */
export const TRUST_KEYS = ["trustedHosts", "trustedDirectories"] as const;
export type TrustKey = (typeof TRUST_KEYS)[number];

/** The key of a project file that remembers its directory's deployment. */
export const DEPLOYMENT_KEY = "deployment";

const TOP_KEYS = [DEPLOYMENT_KEY, "defaultProfile", "profiles", ...TRUST_KEYS];

export function parseConfig(
  raw: unknown,
  path: string,
  scope: Scope,
  keyPrefix = "",
  sourceText: string | null = null,
): ConfigFile {
  const fail = (key: string, problem: string): never => {
    throw new UsageError(`${path}: ${keyPrefix}${key}: ${problem}`).withHint(
      "See `cpctl config path` for the files cpctl reads, and docs/configuration.md for their format.",
    );
  };
  const file: ConfigFile = {
    path,
    scope,
    keyPrefix,
    defaultProfile: null,
    profiles: new Map(),
    sourceText,
    trustedHosts: [],
    trustedDirectories: [],
    deployment: null,
  };
  if (raw === undefined || raw === null) return file;
  if (!isPlainObject(raw)) {
    throw new UsageError(
      `${path}: ${keyPrefix ? `${keyPrefix.slice(0, -1)} ` : ""}must be a mapping with a 'profiles' key, not ${describe(raw)}`,
    );
  }
  for (const key of Object.keys(raw)) {
    if (TOP_KEYS.includes(key)) continue;
    if (isSettingKey(key)) fail(key, `settings belong to a profile: put ${key} under profiles.NAME`);
    const norm = (text: string) => text.toLowerCase().replace(/s$/, "");
    const near = TOP_KEYS.find((known) => norm(known) === norm(key));
    fail(
      key,
      `unknown key; ${near ? `did you mean '${near}'? ` : ""}a config file holds ${TOP_KEYS.slice(0, -1).join(", ")} and ${TOP_KEYS.at(-1)}`,
    );
  }
  for (const key of TRUST_KEYS) {
    if (raw[key] === undefined || raw[key] === null) continue;
    if (scope === "project")
      fail(
        key,
        `only your user config can say what to trust; a project file cannot trust itself: remove ${key}`,
      );
    file[key] = parseTrustList(raw[key], key, fail);
  }
  const { defaultProfile, profiles, deployment } = raw;
  if (deployment !== undefined && deployment !== null) {
    if (scope === "user")
      fail(
        DEPLOYMENT_KEY,
        "a deployment belongs to a project's own file (in the directory deploy push ships), not to your user config: remove it here",
      );
    if (typeof deployment !== "string" || deployment.trim() === "")
      fail(DEPLOYMENT_KEY, `must be a deployment name, not ${describe(deployment)}`);
    file.deployment = deployment as string;
  }
  if (defaultProfile !== undefined && defaultProfile !== null) {
    if (typeof defaultProfile !== "string" || defaultProfile === "")
      fail("defaultProfile", `must be a profile name, not ${describe(defaultProfile)}`);
    file.defaultProfile = defaultProfile as string;
  }
  if (profiles === undefined || profiles === null) return file;
  if (!isPlainObject(profiles))
    return fail("profiles", `must map profile names to settings, not ${describe(profiles)}`);
  for (const [name, body] of Object.entries(profiles)) {
    if (name.trim() === "") fail("profiles", "a profile name is empty");
    file.profiles.set(name, parseProfile(body, `profiles.${name}`, fail));
  }
  return file;
}

function parseProfile(
  body: unknown,
  at: string,
  fail: (key: string, problem: string) => never,
): ProfileValues {
  const values: ProfileValues = {};
  if (body === null || body === undefined) return values;
  if (!isPlainObject(body))
    return fail(at, `must be a mapping of settings (${SETTING_KEYS.join(", ")}), not ${describe(body)}`);
  for (const [key, value] of Object.entries(body)) {
    if (!isSettingKey(key)) {
      const near = suggestKey(key);
      fail(
        `${at}.${key}`,
        `unknown key; ${near ? `did you mean '${near}'? ` : ""}a profile holds ${SETTING_KEYS.join(", ")}`,
      );
      continue;
    }
    if (value === null || value === undefined) continue;
    if (key === "confirm") {
      if (typeof value !== "boolean" && typeof value !== "string")
        fail(`${at}.${key}`, `must be true or false, not ${describe(value)}`);
    } else if (typeof value !== "string") {
      fail(
        `${at}.${key}`,
        `must be a string, not ${describe(value)}${typeof value === "number" ? " (put it in quotes)" : ""}`,
      );
    }
    values[key] = value as string | boolean;
  }
  return values;
}

function parseTrustList(
  value: unknown,
  key: TrustKey,
  fail: (key: string, problem: string) => never,
): string[] {
  if (!Array.isArray(value)) return fail(key, `must be a list, not ${describe(value)}`);
  return value.map((entry, index) => {
    if (typeof entry !== "string" || entry.trim() === "")
      return fail(
        `${key}[${index}]`,
        `must be a ${key === "trustedHosts" ? "host name" : "directory path"}, not ${describe(entry)}`,
      );
    const problem = key === "trustedHosts" ? hostEntryProblem(entry) : directoryEntryProblem(entry);
    return problem ? fail(`${key}[${index}]`, problem) : entry.trim();
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** What kind of value was found, never the value itself (it may be a credential). */
function describe(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "string") return value === "" ? "an empty string" : "a string";
  return typeof value === "object" ? "a mapping" : `a ${typeof value}`;
}

export interface ConfigLocations {
  userPath: string;
  userPresent: boolean;
  /** The project file: before reading, the nearest that exists; after, the one read (or null). */
  projectPath: string | null;
  cwd: string;
  homeDir: string;
  /** The project file names that exist from cwd up to home (nearest first). */
  candidates: string[];
}

export interface ConfigFiles extends ConfigLocations {
  user: ConfigFile | null;
  project: ConfigFile | null;
}
