// `--image IMAGE`: an image in the local docker or podman store, pushed by the engine itself.
// Every argv puts `--` before its positional values (the image, the registry host, the target),
// so that none of them is read as an option, whatever the user or the control plane gave
// (`--image=--config=/x`, a registry_url starting with `-`): both engines' flag parsers (cobra)
// take what follows `--` as arguments, for inspect, login, tag and push alike.
//
//   1. `image inspect`: the image is there (else exit 2 with the engine's words), and its ID;
//   2. a private client config in a new temporary directory (mode 700): docker's `--config
//      DIR` (its config.json names the registry first, so that docker keeps the credential in
//      that file and never hands it to a credential helper or the system keychain), podman's
//      `--authfile DIR/auth.json`. The user's own config is never read or written;
//   3. `login` as oauth2accesstoken with the push token on stdin (never on argv);
//   4. `tag IMAGE REGISTRY/NAME:TAG`, `push`, and the digest pushed: docker prints it
//      (`TAG: digest: sha256:... size: N`), podman writes it (`--digestfile`);
//   5. the directory removed, whatever happened (a failure, Ctrl-C); after a kill -9, by the
//      next image push (temp-dirs.ts). The engine itself ends with cpctl (guard.ts).
//
// A push the registry refuses for its credentials gets one new token, a new login and a second
// push; refused again, exit 3. Other failures of the push (a dropped connection that the
// engine's own retries did not get past) are tried again, up to PUSH_ATTEMPTS in all: a push
// is safe to repeat, everything being addressed by digest.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ApiError, OperationError, UsageError } from "../../errors.js";
import type { Env } from "../../io.js";
import type { RegistryAddress } from "../registry/address.js";
import { TOKEN_USER, type TokenSource } from "../registry/session.js";
import { makeTempDir } from "../temp-dirs.js";
import { type Engine, otherEngineOnPath } from "./find.js";
import { type EngineRun, lastWords, runEngine } from "./run.js";

export const PUSH_ATTEMPTS = 3;

const REFUSED = /unauthori[sz]ed|authentication required|\bdenied\b|\b401\b|\b403\b/i;
const DIGEST_LINE = /digest: (sha256:[a-f0-9]{64})/;

export interface LocalImage {
  /** The engine's ID for it (sha256:...). */
  id: string;
}

export interface EngineContext {
  engine: Engine;
  env: Env;
  signal?: AbortSignal;
  /** The engine's push output, a line at a time (progress for stderr). */
  onLine?: (line: string) => void;
  /** Told what is being done ("logging in to HOST"). */
  note?: (text: string) => void;
}

/** The image in the engine's store; exit 2 with the engine's words when it is not there. */
export async function inspectLocalImage(context: EngineContext, image: string): Promise<LocalImage> {
  const run = await engineRun(context, ["image", "inspect", "--format", "{{.Id}}", "--", image]);
  const id = run.stdout.trim().split(/\s+/)[0] ?? "";
  if (run.code !== 0 || !id) {
    const words = lastWords(run, 2);
    const { name } = context.engine;
    if (/no such image|image not known|not found/i.test(words)) {
      throw new UsageError(`--image ${image}: ${name} has no such image: ${words}`);
    }
    const other = otherEngineOnPath(name, context.env);
    const orOther = other ? ` Or, if the image is in ${other}'s store, add --engine ${other}.` : "";
    throw new UsageError(
      `--image ${image}: ${name} could not look the image up (${words}): is ${name} running?${orOther} Or save the image elsewhere and push the file with --image-archive`,
    );
  }
  return { id };
}

export interface EnginePush {
  image: string;
  address: RegistryAddress;
  /** REGISTRY/NAME, without tag. */
  reference: string;
  tag: string;
  tokens: TokenSource;
}

/** Pushes `push.image` as REFERENCE:TAG; the pushed manifest's digest. */
export async function pushWithEngine(context: EngineContext, push: EnginePush): Promise<string> {
  const dir = makeTempDir("registry-login");
  try {
    const client = await clientConfig(context, dir, push.address);
    const target = `${push.reference}:${push.tag}`;
    await logIn(context, client, push);
    const tagged = await engineRun(context, ["tag", "--", push.image, target]);
    if (tagged.code !== 0) {
      throw new OperationError(
        `${context.engine.name} tag ${push.image} ${target} failed: ${lastWords(tagged)}`,
        "engine",
      );
    }
    let renewed = false;
    for (let attempt = 1; ; attempt++) {
      context.note?.(`pushing ${target} with ${context.engine.name}`);
      const run = await engineRun(context, client.push(target), { lines: true, env: client.env });
      if (run.code === 0) return await pushedDigest(context, client, run, push);
      const refused = REFUSED.test(`${run.stderr}\n${run.stdout}`);
      if (refused && !renewed) {
        renewed = true;
        context.note?.("the registry refused the push token: asking for a new one");
        await push.tokens.renew();
        await logIn(context, client, push);
        continue;
      }
      if (refused) {
        throw new ApiError(
          401,
          `the registry ${push.address.host} refused the push token, and a new one too (${context.engine.name}: ${lastWords(run, 2)})`,
          null,
          "PUSH",
          target,
        );
      }
      if (attempt >= PUSH_ATTEMPTS) {
        throw new OperationError(
          `${context.engine.name} push ${target} failed ${attempt} times; the last time: ${lastWords(run)}`,
          "engine",
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface ClientConfig {
  login(host: string): string[];
  push(target: string): string[];
  inspectDigests(target: string): string[] | null;
  digestFile: string | null;
  /** The environment of login and push (docker: the daemon the user's context names). */
  env: Env;
}

/** The engine's arguments for a private client configuration in `dir`. */
async function clientConfig(
  context: EngineContext,
  dir: string,
  address: RegistryAddress,
): Promise<ClientConfig> {
  if (context.engine.name === "docker") {
    // An entry for the registry makes docker keep its credential in this file: with none,
    // docker would look for the platform's credential helper (the keychain, pass) and store
    // the token there, outside the directory.
    writeFileSync(join(dir, "config.json"), JSON.stringify({ auths: { [address.host]: {} } }), {
      mode: 0o600,
    });
    return {
      login: (host) => ["--config", dir, "login", "--username", TOKEN_USER, "--password-stdin", "--", host],
      push: (target) => ["--config", dir, "push", "--", target],
      inspectDigests: (target) => ["image", "inspect", "--format", "{{json .RepoDigests}}", "--", target],
      digestFile: null,
      env: await daemonOfContext(context),
    };
  }
  const authfile = join(dir, "auth.json");
  const digestFile = join(dir, "digest");
  // Plain HTTP to a registry on this machine (the emulator): podman checks TLS otherwise.
  const tls = address.insecure ? ["--tls-verify=false"] : [];
  return {
    login: (host) => [
      "login",
      "--authfile",
      authfile,
      ...tls,
      "--username",
      TOKEN_USER,
      "--password-stdin",
      "--",
      host,
    ],
    push: (target) => ["push", "--authfile", authfile, ...tls, "--digestfile", digestFile, "--", target],
    inspectDigests: () => null,
    digestFile,
    env: context.env,
  };
}

/**
 * docker reads which daemon to talk to (its context: colima, Docker Desktop, a remote host)
 * from the config directory, and `--config DIR` is a new, empty one: the daemon of the user's
 * context is looked up first (with the user's own config, read only) and given as DOCKER_HOST.
 */
async function daemonOfContext(context: EngineContext): Promise<Env> {
  if (context.env.DOCKER_HOST) return context.env;
  const run = await engineRun(context, ["context", "inspect", "--format", "{{.Endpoints.docker.Host}}"]);
  const host = run.stdout.trim();
  if (run.code !== 0 || !/^[a-z]+:\/\/\S+$/.test(host)) return context.env;
  // DOCKER_CONTEXT would name a context the new directory does not have.
  return { ...context.env, DOCKER_HOST: host, DOCKER_CONTEXT: undefined };
}

async function logIn(context: EngineContext, client: ClientConfig, push: EnginePush): Promise<void> {
  context.note?.(`logging in to ${push.address.host} with ${context.engine.name}`);
  const run = await engineRun(context, client.login(push.address.host), {
    stdin: `${push.tokens.current()}\n`,
    env: client.env,
  });
  if (run.code === 0) return;
  const words = lastWords(run, 2);
  if (REFUSED.test(words)) {
    throw new ApiError(
      401,
      `${context.engine.name} login to ${push.address.host} was refused: ${words}`,
      null,
      "LOGIN",
      push.address.host,
    );
  }
  throw new OperationError(`${context.engine.name} login to ${push.address.host} failed: ${words}`, "engine");
}

/** The digest the push printed (docker) or wrote (podman); else what the engine recorded for the tag. */
async function pushedDigest(
  context: EngineContext,
  client: ClientConfig,
  run: EngineRun,
  push: EnginePush,
): Promise<string> {
  if (client.digestFile) {
    const written = readDigestFile(client.digestFile);
    if (written) return written;
  }
  const printed = DIGEST_LINE.exec(run.stdout);
  if (printed) return printed[1]!;
  const target = `${push.reference}:${push.tag}`;
  const args = client.inspectDigests(target);
  if (args) {
    const inspected = await engineRun(context, args);
    const match = new RegExp(`${escapeRegExp(push.reference)}@(sha256:[a-f0-9]{64})`).exec(inspected.stdout);
    if (inspected.code === 0 && match) return match[1]!;
  }
  throw new OperationError(
    `${context.engine.name} pushed ${target} but did not say its digest, so it cannot be deployed by digest; push again, or use --image-archive`,
    "engine",
  );
}

function readDigestFile(path: string): string | null {
  try {
    const text = readFileSync(path, "utf8").trim();
    return /^sha256:[a-f0-9]{64}$/.test(text) ? text : null;
  } catch {
    return null;
  }
}

function engineRun(
  context: EngineContext,
  args: string[],
  options: { stdin?: string; lines?: boolean; env?: Env } = {},
) {
  return runEngine(context.engine, args, {
    env: options.env ?? context.env,
    signal: context.signal,
    stdin: options.stdin,
    onLine: options.lines ? context.onLine : undefined,
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
