// What a project file may not do with the user's credentials (CLI.md; config/trust.ts holds
// the trust lists). A project file comes with a checkout anyone may have written: it may say
// where requests go and add safety, but it may not send the user's credentials to a host the
// user did not trust, nor choose which of the user's credentials a command uses, nor make the
// user's commands act in an account of its choosing on the user's own control plane.
// (`confirm` is settings.ts's: a project file can turn it on, never off; `caFile`, trustedHosts
// and trustedDirectories are refused in a project file outright: files.ts and schema.ts.)
import { dirname } from "node:path";
import { UsageError } from "../errors.js";
import { shellQuote } from "../util/shell.js";
import { CREDENTIAL_KEYS, SETTING_KEYS } from "./keys.js";
import { defaultProfileOrigin } from "./profiles.js";
import type { Settings } from "./settings.js";
import { isTrustedDirectory, isTrustedHost, trustEntryFor } from "./trust.js";
import { displayUrl } from "./values.js";

/** Both checks below, before any request. */
export function checkProjectFile(settings: Settings, userPath: string): void {
  checkProjectAddress(settings, userPath);
  checkProjectCredentialChoice(settings, userPath);
}

/**
 * Refuses to send anything of the user's to an address a project file chose, unless the user
 * config trusts that host (and scheme): credentials from the user file, the environment or
 * --api-key-file, and any value the project file itself read from the environment with
 * `${env:NAME}`. A credential written out in the project file is the project's own and may go
 * to its host, as may the built-in `local` profile's public placeholder key.
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
  const entry = trustEntryFor(baseUrl);
  const plain = baseUrl.startsWith("http:")
    ? " (plain http://: anyone on the way could read what is sent; trusted hosts are https:// unless written http://)"
    : "";
  throw new UsageError(
    `the address ${displayUrl(baseUrl)} comes from a project file (${origin.baseUrl}), and your user config does not trust ${entry}${plain}: cpctl sends nothing of yours to a host a project file chose, here ${carried.join(" and ")}`,
  )
    .withHint(`If you trust this project's control plane: cpctl config set trustedHosts ${entry}`)
    .withHint(
      `(that adds it under trustedHosts: in ${userPath}). Or choose the address yourself with --base-url or CPCTL_BASE_URL.`,
    );
}

/**
 * Which of the user's credentials a command uses is the user's choice:
 * - a project file's defaultProfile may not pick a profile whose credentials come from the
 *   user file, unless it is the user's own default (a clone saying `defaultProfile: prod` must
 *   not turn every command in it into one on production with production's key);
 * - a credential written out in a project file may not be used against an address that is not
 *   the project's own (the user's commands, secrets included, would go to an account the
 *   project chose on the user's control plane).
 * A project in a directory the user trusts (trustedDirectories: its code may run anyway) may.
 */
export function checkProjectCredentialChoice(settings: Settings, userPath: string): void {
  const files = settings.config;
  const project = files?.project;
  if (!files || !project || settings.profile === null) return;
  const trustedDirs = files.user?.trustedDirectories ?? [];
  const trusted = () => isTrustedDirectory(dirname(project.path), trustedDirs);
  const { origin, originKind, fromEnvReference, profile } = settings;
  const inUse = CREDENTIAL_KEYS.filter((key) => settings[key] !== null);

  const fromUser = inUse.filter((key) => originKind[key] === "user");
  const chosenByProject = settings.profileOrigin === defaultProfileOrigin(project);
  if (chosenByProject && fromUser.length > 0 && files.user?.defaultProfile !== profile && !trusted()) {
    throw new UsageError(
      `the profile ${profile} was chosen by a project file (defaultProfile in ${project.path}), and its credentials are yours (${fromUser.map((key) => `${key}: ${origin[key]}`).join(", ")}): a project file does not choose which of your credentials a command uses`,
    )
      .withHint(
        `Choose it yourself: --profile ${profile}, or export CPCTL_PROFILE=${profile} for this shell.`,
      )
      .withHint(
        `To make it your default, add \`defaultProfile: ${profile}\` to ${userPath}; to trust this project's files, cpctl config set trustedDirectories ${shellQuote(dirname(project.path))}`,
      );
  }

  const projectOwn = inUse.filter((key) => originKind[key] === "project" && !fromEnvReference[key]);
  if (projectOwn.length > 0 && settings.baseUrl !== null && originKind.baseUrl !== "project" && !trusted()) {
    throw new UsageError(
      `${projectOwn.map((key) => `${key} comes from a project file (${origin[key]})`).join(" and ")}, but the address ${displayUrl(settings.baseUrl)} is yours (${origin.baseUrl}): a project file does not choose the account your commands act in on your control plane`,
    )
      .withHint(
        "Give the credential yourself (CPCTL_API_KEY, --api-key-file or your user config), or remove it from the project file.",
      )
      .withHint(
        `If you trust this project's files: cpctl config set trustedDirectories ${shellQuote(dirname(project.path))} (that adds it in ${userPath})`,
      );
  }
}
