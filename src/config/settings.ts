// Resolves the effective settings from layers in precedence order:
// flag > environment > project config > user config > built-in default (CLI.md), except for
// `confirm`, which any file can turn on and none can turn off.
// Every value remembers where it came from, for `cpctl config show` and for error messages
// that name the place to fix.
import { UsageError } from "../errors.js";
import type { Env } from "../io.js";
import {
  DEFAULT_FORMAT,
  DEFAULT_TENANT_HEADER,
  FORMAT_ENV,
  isOutputFormat,
  isUuid,
  OUTPUT_FORMATS,
  type OutputFormat,
} from "../model/enums.js";
import { tenantHeaderProblem } from "../tenant-header.js";
import type { SettingKey } from "./keys.js";
import { describeChoice } from "./profiles.js";
import type { ConfigFiles } from "./schema.js";
import { urlProblem } from "./values.js";

export { CREDENTIAL_KEYS, SETTING_KEYS, type SettingKey } from "./keys.js";

export type RawValues = Partial<Record<SettingKey, string | boolean>>;

export interface Layer {
  /** Where these values came from, as a person would name it: "flag --base-url", "CPCTL_BASE_URL", "profile prod in ~/.config/cpctl/config.yaml". */
  describe: (key: SettingKey) => string;
  kind: "flag" | "env" | "project" | "user" | "default";
  values: RawValues;
  /** Keys whose value a file read from the environment with `${env:NAME}`. */
  viaEnv?: ReadonlySet<SettingKey>;
  /** Keys the file gives as `${env:NAME}` with NAME not set: what is missing, and where it is written. */
  unset?: Partial<Record<SettingKey, UnsetReference>>;
}

/** A setting written as `${env:NAME}` whose variable is not set. */
export interface UnsetReference {
  variable: string;
  /** "FILE: profiles.prod.apiKey". */
  at: string;
}

export interface Settings {
  profile: string | null;
  /** How the profile was chosen (profiles.ts, ProfileChoice). */
  profileOrigin?: string | null;
  baseUrl: string | null;
  apiKey: string | null;
  bearerToken: string | null;
  tenantId: string | null;
  tenantHeader: string;
  /** A PEM file of extra certificate authorities for https:// (user config only). */
  caFile: string | null;
  output: OutputFormat;
  confirm: boolean;
  /** For each key that has a value, the layer it came from. */
  origin: Partial<Record<SettingKey, string>>;
  /** For each key that has a value, the kind of layer it came from. */
  originKind: Partial<Record<SettingKey, Layer["kind"]>>;
  /** Keys whose value a config file took from the environment (`${env:NAME}`): the user's, not the file's. */
  fromEnvReference: Partial<Record<SettingKey, true>>;
  /**
   * Keys a config file gives as `${env:NAME}` with NAME not set: they have no value (a lower
   * layer does not stand in), and a command that needs one stops (requireSet).
   */
  unset: Partial<Record<SettingKey, UnsetReference>>;
  /** The config files found and read (for `cpctl config ...`). */
  config?: ConfigFiles;
}

/** The environment's layer (CLI.md's table). */
export function environmentLayer(env: Env): Layer {
  const names: Partial<Record<SettingKey, string>> = {
    baseUrl: "CPCTL_BASE_URL",
    apiKey: "CPCTL_API_KEY",
    bearerToken: "CPCTL_BEARER_TOKEN",
    tenantId: "CPCTL_TENANT_ID",
    tenantHeader: "CPCTL_TENANT_HEADER",
    output: FORMAT_ENV,
  };
  const values: RawValues = {};
  for (const [key, name] of Object.entries(names) as [SettingKey, string][]) {
    const value = env[name];
    if (value !== undefined && value !== "") values[key] = value;
  }
  return { kind: "env", values, describe: (key) => `environment variable ${names[key]}` };
}

export function defaultLayer(): Layer {
  return {
    kind: "default",
    values: { tenantHeader: DEFAULT_TENANT_HEADER, output: DEFAULT_FORMAT, confirm: false },
    describe: () => "built-in default",
  };
}

/** Layers must come highest precedence first. */
export function resolveSettings(
  layers: Layer[],
  profile: string | null,
  profileOrigin: string | null = null,
): Settings {
  const origin: Partial<Record<SettingKey, string>> = {};
  const originKind: Partial<Record<SettingKey, Layer["kind"]>> = {};
  const fromEnvReference: Partial<Record<SettingKey, true>> = {};
  const unset: Partial<Record<SettingKey, UnsetReference>> = {};
  const pick = (key: SettingKey): string | boolean | undefined => {
    for (const layer of layers) {
      const missing = layer.unset?.[key];
      if (missing) {
        origin[key] = layer.describe(key);
        originKind[key] = layer.kind;
        unset[key] = missing;
        return undefined;
      }
      const value = layer.values[key];
      if (value !== undefined && value !== null && value !== "") {
        origin[key] = layer.describe(key);
        originKind[key] = layer.kind;
        if (layer.viaEnv?.has(key)) fromEnvReference[key] = true;
        return value;
      }
    }
    return undefined;
  };
  const text = (key: SettingKey): string | null => {
    const value = pick(key);
    return value === undefined ? null : String(value);
  };

  const baseUrl = text("baseUrl");
  if (baseUrl !== null) checkBaseUrl(baseUrl, origin.baseUrl!);
  const tenantId = text("tenantId");
  if (tenantId !== null && !isUuid(tenantId)) {
    throw new UsageError(`${origin.tenantId} must be a tenant UUID, got '${tenantId}'`);
  }
  const tenantHeader = text("tenantHeader") ?? DEFAULT_TENANT_HEADER;
  const headerProblem = tenantHeaderProblem(tenantHeader);
  if (headerProblem) throw new UsageError(`${origin.tenantHeader}: ${headerProblem}`);
  const output = text("output") ?? DEFAULT_FORMAT;
  if (!isOutputFormat(output)) {
    throw new UsageError(
      `${origin.output}: '${output}' is not an output format; use one of ${OUTPUT_FORMATS.join(", ")}`,
    );
  }
  // A safety setting: any file may turn it on, none can turn it off. A project file comes with
  // a checkout, and its `confirm: false` must not undo the user's own `confirm: true`.
  const confirm = pickTrue(layers, "confirm", origin, originKind) ?? pick("confirm");
  return {
    profile,
    profileOrigin,
    baseUrl: baseUrl?.replace(/\/+$/, "") ?? null,
    apiKey: text("apiKey"),
    bearerToken: text("bearerToken"),
    tenantId,
    tenantHeader,
    caFile: text("caFile"),
    output,
    confirm: confirm === true || confirm === "true",
    origin,
    originKind,
    fromEnvReference,
    unset,
  };
}

/**
 * Stops a command that needs one of `keys` when a config file gives it as `${env:NAME}` and
 * NAME is not set, naming the file, the key, the variable and the profile (and why that one).
 * `config show` and commands that need none of them run as usual.
 */
export function requireSet(settings: Settings, keys: readonly SettingKey[]): void {
  for (const key of keys) {
    const missing = settings.unset[key];
    if (!missing) continue;
    throw new UsageError(
      `${missing.at} (${describeChoice({ name: settings.profile, origin: settings.profileOrigin ?? null })}): the environment variable ${missing.variable} is not set (used as \${env:${missing.variable}}); export it, or change the file`,
    );
  }
}

/** The hint every error about a missing setting ends with: the profile in use, and why that one. */
export function profileHint(settings: Settings): string {
  const choice = describeChoice({ name: settings.profile, origin: settings.profileOrigin ?? null });
  return `${choice.charAt(0).toUpperCase()}${choice.slice(1)}; \`cpctl config show\` shows every setting and where it comes from.`;
}

/** The first layer that sets `key` to true (and records it as the origin), or undefined. */
function pickTrue(
  layers: Layer[],
  key: SettingKey,
  origin: Partial<Record<SettingKey, string>>,
  originKind: Partial<Record<SettingKey, Layer["kind"]>>,
): true | undefined {
  const layer = layers.find((l) => l.values[key] === true || l.values[key] === "true");
  if (!layer) return undefined;
  origin[key] = layer.describe(key);
  originKind[key] = layer.kind;
  return true;
}

function checkBaseUrl(value: string, source: string): void {
  const problem = urlProblem(value);
  if (problem) throw new UsageError(`${source}: ${problem}`);
}
