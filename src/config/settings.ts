// Resolves the effective settings from layers in precedence order:
// flag > environment > project config > user config > built-in default (CLI.md), except for
// `confirm`, which any file can turn on and none can turn off.
// Every value remembers where it came from, for `cpctl config show` and for error messages
// that name the place to fix.
import { UsageError } from "../errors.js";
import { DEFAULT_TENANT_HEADER, isUuid } from "../model/enums.js";
import {
  DEFAULT_FORMAT,
  FORMAT_ENV,
  isOutputFormat,
  OUTPUT_FORMATS,
  type OutputFormat,
} from "../output/format.js";
import { tenantHeaderProblem } from "../tenant-header.js";
import type { SettingKey } from "./keys.js";
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
}

export interface Settings {
  profile: string | null;
  /** How the profile was chosen ("--profile", "environment variable CPCTL_PROFILE", "defaultProfile in FILE"). */
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
  /** The config files found and read (for `cpctl config ...`). */
  config?: ConfigFiles;
}

/** The environment's layer (CLI.md's table). */
export function environmentLayer(env: Readonly<Record<string, string | undefined>>): Layer {
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
  const pick = (key: SettingKey): string | boolean | undefined => {
    for (const layer of layers) {
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
  };
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
