// Builds a command's context from the process-level dependencies and the global flags.
// Settings, the API client and the printer are created on first use and then kept.
import { resolve } from "node:path";
import type { Command } from "@commander-js/extra-typings";
import type { ApiClient } from "./api/client.js";
import { commandWords } from "./argv.js";
import { loadConfigLayers } from "./config/files.js";
import { LOCAL_BASE_URL } from "./config/profiles.js";
import { checkProjectFile } from "./config/project-address.js";
import {
  defaultLayer,
  environmentLayer,
  type Layer,
  profileHint,
  requireSet,
  resolveSettings,
  type SettingKey,
  type Settings,
} from "./config/settings.js";
import type { Ctx, GlobalFlags, RunDeps } from "./context.js";
import { CliError, UsageError } from "./errors.js";
import { KEY_FILE_LIMIT, readAll, readTextFile, unreadableFile } from "./io.js";
import { createLogger, paintFor } from "./log.js";
import type { OutputFormat } from "./model/enums.js";
import { colorEnabled, flagFormat, isCi } from "./output/format.js";
import type { Printer } from "./output/printer.js";
import { styled, writeText } from "./output/safe-text.js";
import { DURATION_HELP, parseDuration } from "./util/duration.js";
import { VERSION } from "./version.js";

/** The settings a request needs: a command that sends one stops when a file gives one of them as an unset `${env:NAME}`. */
const CONNECTION_KEYS: readonly SettingKey[] = [
  "baseUrl",
  "apiKey",
  "bearerToken",
  "tenantId",
  "tenantHeader",
  "caFile",
];

/** Every credential and secret value the CLI has handled, for redaction of messages. */
export type SecretRegistry = Set<string>;

interface ContextDeps extends Omit<RunDeps, "argv"> {
  argv: readonly string[];
  /** The command's words ("deploy create"); default: argv's leading words. */
  command?: string;
  flags: GlobalFlags;
  secrets: SecretRegistry;
  /** Told the output format once settings are resolved, so errors come out in it. */
  onFormat: (format: OutputFormat) => void;
  /** See Ctx.commandTree (the program gives it; a context made elsewhere has none). */
  commandTree?: () => Promise<Command>;
}

export async function createContext(deps: ContextDeps): Promise<Ctx> {
  const { io, env, flags } = deps;
  const debug = Boolean(flags.debug) || env.CPCTL_DEBUG === "1" || env.CPCTL_DEBUG === "true";
  const stderrColor = colorEnabled({ isTTY: io.stderr.isTTY, env, colorFlag: flags.color !== false });
  const paint = await paintFor(stderrColor);
  const requestTimeoutMs = parseTimeout(flags.requestTimeout ?? "30s");

  let settings: Promise<Settings> | undefined;
  let api: Promise<ApiClient> | undefined;
  let printer: Promise<Printer> | undefined;

  const ctx: Ctx = {
    argv: deps.argv,
    command: deps.command ?? commandWords(deps.argv).join(" "),
    io,
    env,
    cwd: deps.cwd,
    clock: deps.clock,
    signal: deps.signal,
    flags,
    paint,
    log: createLogger(io.stderr, paint, debug),
    interactive: io.stdin.isTTY && io.stdout.isTTY && flags.input !== false && !isCi(env),
    requestTimeoutMs,
    rememberSecret: (value) => {
      if (value) deps.secrets.add(value);
    },
    knownSecrets: () => deps.secrets,
    commandTree: deps.commandTree ?? (() => Promise.reject(new Error("no command tree in this context"))),
    settings: () => {
      settings ??= resolveAll(deps).then((resolved) => {
        for (const secret of [resolved.apiKey, resolved.bearerToken]) if (secret) deps.secrets.add(secret);
        deps.onFormat(resolved.output);
        return resolved;
      });
      return settings;
    },
    api: () => {
      api ??= ctx.settings().then((resolved) => createApiClient(ctx, resolved, debug, deps.secrets));
      return api;
    },
    printer: () => {
      printer ??= ctx.settings().then(async (resolved) => {
        requireSet(resolved, ["output"]);
        const { Printer } = await import("./output/printer.js");
        return new Printer(io.stdout, {
          format: resolved.output,
          showSecrets: Boolean(flags.showSecrets),
          color: colorEnabled({ isTTY: io.stdout.isTTY, env, colorFlag: flags.color !== false }),
          now: () => deps.clock.now(),
        });
      });
      return printer;
    },
  };
  return ctx;
}

async function resolveAll(deps: ContextDeps): Promise<Settings> {
  const { flags, env } = deps;
  const flagLayer: Layer = {
    kind: "flag",
    values: {
      baseUrl: flags.baseUrl,
      tenantId: flags.tenantId,
      output: flagFormat(flags),
      apiKey: flags.apiKeyFile ? await readApiKeyFile(flags.apiKeyFile, deps) : undefined,
    },
    describe: (key) =>
      ({
        baseUrl: "--base-url",
        tenantId: "--tenant-id",
        output: flags.json ? "--json" : "--output",
        apiKey: "--api-key-file",
      })[key as string] ?? `flag for ${key}`,
  };
  const config = await loadConfigLayers({
    cwd: deps.cwd,
    homeDir: deps.homeDir,
    env,
    profileFlag: flags.profile,
    warn: (m) => writeText(deps.io.stderr, `warning: ${m}\n`),
  });
  const settings = resolveSettings(
    [flagLayer, environmentLayer(env), ...config.layers, defaultLayer()],
    config.profile,
    config.profileOrigin,
  );
  return { ...settings, config: config.files };
}

async function readApiKeyFile(path: string, { io, cwd, signal }: ContextDeps): Promise<string> {
  let text: string;
  try {
    const options = {
      limit: KEY_FILE_LIMIT,
      label: `--api-key-file ${path === "-" ? "- (stdin)" : path}`,
      signal,
    };
    text = path === "-" ? await readAll(io.stdin, options) : await readTextFile(resolve(cwd, path), options);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw unreadableFile(
      `--api-key-file ${path}`,
      error,
      "give a readable file holding the key, or - for stdin",
    );
  }
  const key = text.trim();
  if (!key)
    throw new UsageError(
      `--api-key-file: ${path === "-" ? "stdin" : path} is empty; it must hold the API key`,
    );
  return key;
}

async function createApiClient(
  ctx: Ctx,
  settings: Settings,
  debug: boolean,
  secrets: SecretRegistry,
): Promise<ApiClient> {
  requireSet(settings, CONNECTION_KEYS);
  if (!settings.baseUrl) {
    throw new UsageError(
      `no control plane address: give --base-url URL, set CPCTL_BASE_URL, or choose a profile with a baseUrl (--profile local for the emulator at ${LOCAL_BASE_URL})`,
    ).withHint(profileHint(settings));
  }
  // Before any request: nothing of the user's goes to an address a project file chose, and a
  // project file does not choose which of the user's credentials are used.
  checkProjectFile(settings, settings.config?.userPath ?? "your user config");
  // MAX_PAGE_WINDOW comes with the client (pages.ts), not from a static import: a command that
  // sends nothing does not load the pager and its retries for one constant.
  const [{ ApiClient, MAX_PAGE_WINDOW }, { chooseTransport }] = await Promise.all([
    import("./api/client.js"),
    import("./api/transport-choice.js"),
  ]);
  return new ApiClient({
    transport: await chooseTransport({
      env: ctx.env,
      caFile: settings.caFile,
      caFileOrigin: settings.origin.caFile,
      trace: debug ? (line) => writeText(ctx.io.stderr, styled`${ctx.paint.dim(line)}\n`) : undefined,
      signal: ctx.signal,
    }),
    baseUrl: settings.baseUrl,
    credentials: {
      apiKey: settings.apiKey ?? undefined,
      bearerToken: settings.bearerToken ?? undefined,
      tenantId: settings.tenantId ?? undefined,
      tenantHeader: settings.tenantHeader,
    },
    requestTimeoutMs: ctx.requestTimeoutMs,
    credentialSource: profileHint(settings),
    // Secret values this run has handled: the trace masks them even where a server quotes them.
    knownSecrets: () => secrets,
    userAgent: `cpctl/${VERSION} node/${process.versions.node}`,
    trace: debug ? (line) => writeText(ctx.io.stderr, styled`${ctx.paint.dim(line)}\n`) : undefined,
    sleep: (ms, signal) => ctx.clock.sleep(ms, signal),
    now: () => ctx.clock.now(),
    signal: ctx.signal,
    pageWindow: pageWindow(ctx.env.CPCTL_PAGE_WINDOW, MAX_PAGE_WINDOW),
    maxResponseBytes: maxResponseBytes(ctx.env.CPCTL_MAX_RESPONSE_MB),
  });
}

/** CPCTL_MAX_RESPONSE_MB: the most of a control plane's answer read, in MiB (1 to 4096). */
function maxResponseBytes(text: string | undefined): number | undefined {
  if (text === undefined || text === "") return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 4096) {
    throw new UsageError(`CPCTL_MAX_RESPONSE_MB: '${text}' is not a whole number of MiB from 1 to 4096`);
  }
  return n * 1024 * 1024;
}

/**
 * CPCTL_PAGE_WINDOW: the most pages of a list asked for at once (1 to `max`, pages.ts's
 * MAX_PAGE_WINDOW; 1 is one after another).
 */
function pageWindow(text: string | undefined, max: number): number | undefined {
  if (text === undefined || text === "") return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw new UsageError(`CPCTL_PAGE_WINDOW: '${text}' is not a whole number from 1 to ${max}`);
  }
  return n;
}

function parseTimeout(text: string): number {
  const ms = parseDuration(text);
  if (ms === null || ms <= 0) {
    throw new UsageError(`--request-timeout: '${text}' is not a duration (${DURATION_HELP})`);
  }
  return ms;
}
