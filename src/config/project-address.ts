// A project file may say where requests go; it may not send the user's credentials there
// unless the user trusts that host (CLI.md; config/trust.ts holds the trust lists).
import { UsageError } from "../errors.js";
import { CREDENTIAL_KEYS, SETTING_KEYS } from "./keys.js";
import type { Settings } from "./settings.js";
import { hostOf, isTrustedHost } from "./trust.js";
import { displayUrl } from "./values.js";

/**
 * Refuses to send anything of the user's to an address a project file chose, unless the user
 * config trusts that host: credentials from the user file, the environment or --api-key-file,
 * and any value the project file itself read from the environment with `${env:NAME}`. A
 * credential written out in the project file is the project's own and may go to its host, as
 * may the built-in `local` profile's public placeholder key.
 */
export function checkProjectAddress(settings: Settings, userPath: string): void {
  const { baseUrl, originKind, origin, fromEnvReference } = settings;
  if (baseUrl === null || originKind.baseUrl !== "project") return;
  if (isTrustedHost(baseUrl, settings.config?.user?.trustedHosts ?? [])) return;
  const carried: string[] = [];
  for (const key of SETTING_KEYS) {
    if (settings[key] === null || origin[key] === undefined) continue;
    const kind = originKind[key];
    const projectOwn = kind === "project" && !fromEnvReference[key];
    if (CREDENTIAL_KEYS.includes(key) ? kind !== "default" && !projectOwn : kind === "project" && !projectOwn)
      carried.push(`${key} (${origin[key]})`);
  }
  if (carried.length === 0) return;
  const host = hostOf(baseUrl);
  throw new UsageError(
    `the address ${displayUrl(baseUrl)} comes from a project file (${origin.baseUrl}), and your user config does not trust ${host}: cpctl sends nothing of yours to a host a project file chose, here ${carried.join(" and ")}`,
  )
    .withHint(`If you trust this project's control plane: cpctl config set trustedHosts ${host}`)
    .withHint(
      `(that adds it under trustedHosts: in ${userPath}). Or choose the address yourself with --base-url or CPCTL_BASE_URL.`,
    );
}
