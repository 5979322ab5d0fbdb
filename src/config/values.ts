// The keys a profile may hold, what each accepts, and `${env:NAME}` references in values.
// Shared by the loader (checking a file) and `config set` (checking before writing).
import { isOutputFormat, isUuid, OUTPUT_FORMATS } from "../model/enums.js";
import { tenantHeaderProblem } from "../tenant-header.js";
import { closest } from "../util/did-you-mean.js";
import { envReferences } from "../util/env-references.js";
import { SETTING_KEYS, type SettingKey } from "./keys.js";

export type ProfileValue = string | boolean;
export type ProfileValues = Partial<Record<SettingKey, ProfileValue>>;

export function isSettingKey(key: string): key is SettingKey {
  return (SETTING_KEYS as readonly string[]).includes(key);
}

/** A key spelled with other case or dashes (`base-url`, `apikey`): the key meant, for "did you mean". */
export function suggestKey(key: string): SettingKey | undefined {
  return (closest(key.replace(/[-_]/g, ""), SETTING_KEYS) as SettingKey | null) ?? undefined;
}

export { isLiteral } from "../util/env-references.js";

/** True when the value names an environment variable with `${env:NAME}`. */
export function hasEnvReference(value: string): boolean {
  return envReferences(value).length > 0;
}

/** What is wrong with a (final, interpolated) value for `key`, or null when it is fine. */
export function checkValue(key: SettingKey, value: ProfileValue): string | null {
  if (key === "confirm") {
    if (typeof value === "boolean" || value === "true" || value === "false") return null;
    return `'${value}' is not true or false`;
  }
  if (typeof value !== "string") return `must be a string, not ${typeof value}`;
  switch (key) {
    case "baseUrl":
      return urlProblem(value);
    case "tenantId":
      return isUuid(value) ? null : `'${value}' is not a tenant UUID (8-4-4-4-12 hexadecimal digits)`;
    case "tenantHeader":
      return tenantHeaderProblem(value);
    case "output":
      return isOutputFormat(value)
        ? null
        : `'${value}' is not an output format; use one of ${OUTPUT_FORMATS.join(", ")}`;
    case "apiKey":
    case "bearerToken":
      return /[\r\n]/.test(value) ? "must be on one line" : null;
    case "caFile":
      return /[\r\n\0]/.test(value) ? "must be a file path" : null;
  }
}

/** What is wrong with a control plane address, or null: the one check of --base-url, CPCTL_BASE_URL and a profile's baseUrl. */
export function urlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `'${value}' is not a URL; give the control plane address, e.g. https://api.example.com`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `'${value}' must be an http:// or https:// address`;
  return null;
}

/** The host part of a base URL for messages: scheme, host, port and path, never a user or password. */
export function displayUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    url.username = "";
    url.password = "";
    url.search = "";
    url.hash = "";
    return url.toString().replace(/\/$/, "");
  } catch {
    return baseUrl;
  }
}
