// The keys a profile may hold: a leaf module, so that what reads them (settings, values,
// the file schema) imports no module that imports it back.

export const SETTING_KEYS = [
  "baseUrl",
  "apiKey",
  "bearerToken",
  "tenantId",
  "tenantHeader",
  "output",
  "confirm",
  "caFile",
] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

/** Settings whose values are credentials: masked wherever they are shown. */
export const CREDENTIAL_KEYS: readonly SettingKey[] = ["apiKey", "bearerToken"];
