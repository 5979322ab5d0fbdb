import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { Argument } from "@commander-js/extra-typings";
import { completes } from "../../completion/values.js";
import { pickProfile, profileNames } from "../../config/profiles.js";
import { TRUST_KEYS, type TrustKey } from "../../config/schema.js";
import { CREDENTIAL_KEYS, SETTING_KEYS, type SettingKey } from "../../config/settings.js";
import { hostToTrust } from "../../config/trust.js";
import { checkValue, hasEnvReference, isLiteral, isSettingKey, suggestKey } from "../../config/values.js";
import { addToTrustList, setProfileValue } from "../../config/write.js";
import type { Ctx } from "../../context.js";
import { UsageError } from "../../errors.js";
import { MASK } from "../../secrets.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { configState, plainPrinter } from "./shared.js";

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export default defineCommand({
  configure: (command) =>
    command
      .addArgument(
        completes(new Argument("<key>", [...SETTING_KEYS, ...TRUST_KEYS].join(", ")), [
          ...SETTING_KEYS,
          ...TRUST_KEYS,
        ]),
      )
      .argument(
        "<value>",
        `the value; \${env:NAME} (in single quotes) to read it from the environment at each run`,
      )
      .addHelpText(
        "after",
        `
Writes one setting of one profile into the user config file ($XDG_CONFIG_HOME/cpctl/config.yaml,
created readable by you only), keeping the rest of the file. The profile is --profile, else
CPCTL_PROFILE, else defaultProfile; it is created when it does not exist yet. Project files are
never written: edit them by hand.

Keep credentials out of the file: store a reference, and export the variable where you run cpctl.
defaultProfile is not set by this command: it would change what every later command does in
every terminal. Edit the file to set it, or use --profile / CPCTL_PROFILE.

trustedHosts and trustedDirectories are lists of the user file, not settings of a profile: the
value is added to the list. A host there may receive your credentials when a project file
points a profile at it: a host or host:port is trusted for https:// only, and plain http must be
named (a URL keeps its scheme, host and port: http://127.0.0.1:8124). A directory there (and
everything below it) may run its cpctl.config.mjs, and its project files may choose which of
your profiles a command uses. A project file cannot trust anything itself.${examples(
          "cpctl config set baseUrl https://api.example.com --profile prod",
          `cpctl config set apiKey '\${env:CPCTL_PROD_API_KEY}' --profile prod`,
          "cpctl config set confirm true --profile prod",
          "cpctl config set tenantId 3f2b0c1e-7d4a-4b8e-9a61-0c2d3e4f5a6b --profile prod",
          "cpctl config set trustedHosts cp.example.com",
          "cpctl config set trustedHosts http://127.0.0.1:8124",
          "cpctl config set trustedDirectories .",
        )}`,
      ),
  run: async (ctx, [name, text]) => {
    const key = isTrustKey(name) ? name : checkKey(name);
    const state = await configState(ctx);
    // A bad value or an unknown profile is what `config set` is for; only unreadable files stop it.
    if (!state.files) throw state.error!;
    const files = state.files;
    if (isTrustKey(key)) return trust(ctx, files.userPath, key, text);
    const choice = pickProfile(files, ctx.flags.profile, ctx.env);
    if (choice.name === null) {
      throw new UsageError(
        `which profile? give --profile NAME (known profiles: ${profileNames(files).join(", ")})`,
      );
    }
    const profile = choice.name;
    if (!profileNames(files).includes(profile) && !PROFILE_NAME.test(profile)) {
      throw new UsageError(
        `'${profile}' is not a usable profile name: use letters, digits, '.', '_' and '-', starting with a letter or digit`,
      );
    }
    const value = parseValue(key, text);
    if (CREDENTIAL_KEYS.includes(key) && typeof value === "string") ctx.rememberSecret(value);

    const written = await setProfileValue(files.userPath, profile, key, value);
    const literalCredential = CREDENTIAL_KEYS.includes(key) && typeof value === "string" && isLiteral(value);
    const shown = literalCredential && !ctx.flags.showSecrets ? MASK : value;
    ctx.log.info(
      `set profiles.${profile}.${key} = ${String(shown)} in ${written.path}${written.created ? " (created, mode 0600)" : ""}`,
    );
    if (literalCredential) warnLiteral(ctx, key, profile, written.path, written.mode);
    const printer = await plainPrinter(ctx);
    if (printer.options.format !== "table" && printer.options.format !== "id") {
      await printer.value({ file: written.path, profile, key, value: shown, created: written.created });
    }
  },
});

function isTrustKey(name: string): name is TrustKey {
  return (TRUST_KEYS as readonly string[]).includes(name);
}

/** Adds a host or a directory to a trust list of the user file (config/trust.ts). */
async function trust(ctx: Ctx, userPath: string, key: TrustKey, text: string): Promise<void> {
  const value = key === "trustedHosts" ? hostToTrust(text) : directoryToTrust(ctx.cwd, text);
  if (value === null) {
    throw new UsageError(
      key === "trustedHosts"
        ? `trustedHosts: '${text}' is not a host; give a host name or host:port (trusted for https://), or an http:// or https:// URL (its scheme, host and port are kept)`
        : `trustedDirectories: '${text}' is not a directory`,
    );
  }
  const written = await addToTrustList(userPath, key, value);
  ctx.log.info(
    written.added
      ? `added ${value} to ${key} in ${written.path}${written.created ? " (created, mode 0600)" : ""}`
      : `${value} is already in ${key} in ${written.path}`,
  );
  const printer = await plainPrinter(ctx);
  if (printer.options.format !== "table" && printer.options.format !== "id") {
    await printer.value({ file: written.path, key, value, added: written.added, created: written.created });
  }
}

/** The directory as an absolute path with its links resolved: what the trust check compares. */
function directoryToTrust(cwd: string, text: string): string | null {
  if (text.trim() === "") return null;
  try {
    const path = realpathSync(resolve(cwd, text));
    return statSync(path).isDirectory() ? path : null;
  } catch {
    return null;
  }
}

function checkKey(name: string): SettingKey {
  if (name === "defaultProfile" || name === "profile") {
    throw new UsageError(
      "config set does not change the default profile: that would silently change what every later command uses, in every terminal",
    )
      .withHint("For one command, pass --profile NAME; for one shell, export CPCTL_PROFILE=NAME.")
      .withHint(
        "To make a profile the default anyway, edit the config file (see `cpctl config path`) and add the top-level line `defaultProfile: NAME`.",
      );
  }
  if (isSettingKey(name)) return name;
  const near = suggestKey(name);
  throw new UsageError(
    `unknown key '${name}'${near ? `; did you mean '${near}'?` : ""}; a profile holds ${SETTING_KEYS.join(", ")}`,
  );
}

function parseValue(key: SettingKey, text: string): string | boolean {
  if (text.trim() === "") {
    throw new UsageError(
      `${key}: the value is empty; to remove a setting, edit the file (see \`cpctl config path\`)`,
    );
  }
  if (key === "confirm") {
    const word = text.trim().toLowerCase();
    if (["true", "yes", "on", "1"].includes(word)) return true;
    if (["false", "no", "off", "0"].includes(word)) return false;
    if (hasEnvReference(text)) return text;
    throw new UsageError(`confirm: '${text}' is not true or false`);
  }
  // A reference is checked when it is used, with the variable's value.
  if (hasEnvReference(text)) return text;
  const problem = checkValue(key, text);
  if (problem) throw new UsageError(`${key}: ${problem}`);
  return text;
}

function warnLiteral(ctx: Ctx, key: SettingKey, profile: string, path: string, mode: number): void {
  const variable = `CPCTL_${profile.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}_${key === "apiKey" ? "API_KEY" : "BEARER_TOKEN"}`;
  ctx.log.warn(
    `${path} now holds a literal ${key}: anyone who can read the file can use it. ` +
      `Prefer a reference: cpctl config set ${key} '\${env:${variable}}' --profile ${profile}, and export ${variable}.`,
  );
  if ((mode & 0o077) !== 0)
    ctx.log.warn(
      `${path} can be read by others (mode ${(mode & 0o777).toString(8)}): run \`chmod 600 ${path}\``,
    );
}
