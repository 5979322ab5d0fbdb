// What the `cpctl config` commands share: the config state even when the settings cannot be
// resolved (so that `config path`, `list` and `set` help fix a broken setup), a printer that
// does not depend on the profile, and credential masking.
import { dirname, resolve } from "node:path";
import { ConfigError, type ConfigFiles, type ConfigLocations } from "../../config/files.js";
import { NO_PROFILE } from "../../config/profiles.js";
import { DEPLOYMENT_KEY } from "../../config/schema.js";
import { CREDENTIAL_KEYS, SETTING_KEYS, type SettingKey, type Settings } from "../../config/settings.js";
import { suggestKey } from "../../config/values.js";
import type { Ctx } from "../../context.js";
import { UsageError } from "../../errors.js";
import { colorEnabled, formatWithoutConfig } from "../../output/format.js";
import { Printer } from "../../output/printer.js";
import { maskBeforeShowing } from "../../output/workflow-commands.js";
import { MASK } from "../../secrets.js";

interface ConfigState {
  settings: Settings | null;
  files: ConfigFiles | null;
  locations: ConfigLocations;
  /** Why the settings could not be resolved. */
  error: ConfigError | null;
}

/** The settings when they resolve; otherwise the config error and whatever it found. Other errors are thrown. */
export async function configState(ctx: Ctx): Promise<ConfigState> {
  try {
    const settings = await ctx.settings();
    const files = settings.config!;
    return { settings, files, locations: files, error: null };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { settings: null, files: error.files, locations: error.locations, error };
  }
}

/**
 * A printer in the format of the flags and environment, for when the profile's own `output`
 * is what is broken (or an unset `${env:NAME}`); otherwise the context's.
 */
export async function plainPrinter(ctx: Ctx, settings: Settings | null = null): Promise<Printer> {
  if (settings && !settings.unset.output) return ctx.printer();
  return new Printer(ctx.io.stdout, {
    format: formatWithoutConfig(ctx.flags, ctx.env),
    showSecrets: Boolean(ctx.flags.showSecrets),
    color: colorEnabled({ isTTY: ctx.io.stdout.isTTY, env: ctx.env, colorFlag: ctx.flags.color !== false }),
    now: () => ctx.clock.now(),
  });
}

/**
 * Keys `config show` and `config get` know: the profile in use, every setting, and the
 * deployment the working directory's own project file remembers for `deploy push`.
 */
export const SHOWN_KEYS = ["profile", ...SETTING_KEYS, DEPLOYMENT_KEY] as const;
type ShownKey = (typeof SHOWN_KEYS)[number];

export function checkShownKey(key: string): ShownKey {
  if ((SHOWN_KEYS as readonly string[]).includes(key)) return key as ShownKey;
  const near = suggestKey(key);
  throw new UsageError(
    `unknown key '${key}'${near ? `; did you mean '${near}'?` : ""}; the keys are ${SHOWN_KEYS.join(", ")}`,
  );
}

export interface ShownValue {
  value: string | boolean | null;
  source: string | null;
  /** The variable a file names with `${env:NAME}` for this setting, when it is not set. */
  unset?: string;
}

/**
 * A setting's value (masked when it is a credential, unless --show-secrets) and where it came
 * from; for the profile, which one and why (or why none). A setting a file gives as an unset
 * `${env:NAME}` has no value, its file as source, and the variable's name.
 */
export function shownValue(settings: Settings, key: ShownKey, showSecrets: boolean): ShownValue {
  if (key === "profile")
    return {
      value: settings.profile,
      source: settings.profile ? (settings.profileOrigin ?? null) : NO_PROFILE,
    };
  if (key === DEPLOYMENT_KEY) {
    // The working directory's own file only: deploy push reads no file above the directory.
    const project = settings.config?.project;
    const own = project && dirname(project.path) === resolve(settings.config!.cwd) ? project : null;
    return own?.deployment
      ? { value: own.deployment, source: `${own.keyPrefix}${DEPLOYMENT_KEY} in ${own.path}` }
      : { value: null, source: null };
  }
  const missing = settings.unset[key];
  if (missing) return { value: null, source: settings.origin[key] ?? missing.at, unset: missing.variable };
  const value = settings[key];
  const source = settings.origin[key] ?? null;
  if (value === null) return { value: null, source: null };
  return { value: CREDENTIAL_KEYS.includes(key as SettingKey) && !showSecrets ? MASK : value, source };
}

/** With --show-secrets on GitHub Actions: the credentials among `keys` are masked before they are printed. */
export function maskShownCredentials(ctx: Ctx, settings: Settings, keys: readonly ShownKey[]): void {
  if (!ctx.flags.showSecrets) return;
  maskBeforeShowing(ctx.io.stdout, () =>
    keys
      .filter((key): key is SettingKey => CREDENTIAL_KEYS.includes(key as SettingKey))
      .map((key) => settings[key])
      .filter((value): value is string => typeof value === "string"),
  );
}
