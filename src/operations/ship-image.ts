// Shipping a locally built image to an internal_container deployment's registry (service-facts,
// "Shipping an image"): a push token from the control plane, then the image pushed under
// REGISTRY_URL/NAME:TAG, from a saved archive over the OCI distribution API (src/image/push.ts)
// or by the local docker or podman (src/image/engine/push.ts). The answer is the image_uri to
// patch in: REGISTRY_URL/NAME@sha256:..., the digest of the manifest the registry stored.
//
// In two steps, so that a command checks everything local before it sends anything:
// prepareImage (the archive read and checked, or the engine and the image found) and
// shipImage (the token and the push). Nothing here patches the deployment: a push that fails
// leaves the deployment as it was, and the error says so.
import { createPushToken } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { CliError } from "../errors.js";
import { type OpenedArchive, openImageArchive } from "../image/archive/open.js";
import { type Engine, type EngineName, findEngine } from "../image/engine/find.js";
import { type EngineContext, inspectLocalImage, pushWithEngine } from "../image/engine/push.js";
import { pushDisplay, pushSummary } from "../image/progress.js";
import { pushImage } from "../image/push.js";
import { imageNameFor, imageReference, registryAddress, repositoryOf } from "../image/registry/address.js";
import { RegistrySession, TOKEN_USER, type TokenSource } from "../image/registry/session.js";
import { checkTag, defaultTag } from "../image/tag.js";
import { removeStaleTempDirs } from "../image/temp-dirs.js";
import type { DeploymentT } from "../model/responses.js";
import { createMasker } from "../secrets.js";
import { VERSION } from "../version.js";
import { showsSpinner } from "../wait/progress.js";

/** `tag`: --tag, the tag to push under (default: the time and the image's short ID). */
export type ImageSource = (
  | { kind: "archive"; path: string }
  | { kind: "engine"; image: string; engine?: EngineName }
) & { tag?: string };

export type PreparedImage = { describe: string; imageId: string; tag?: string } & (
  | { kind: "archive"; archive: OpenedArchive }
  | { kind: "engine"; engine: Engine; image: string }
);

export interface ShippedImage {
  /** REGISTRY_URL/NAME@sha256:...: what image_uri is set to. */
  imageUri: string;
  digest: string;
  /** REGISTRY_URL/NAME:TAG, as pushed. */
  tagged: string;
  /** Blobs sent and found already there (archive pushes only: an engine does not say). */
  blobs: { uploaded: number; uploadedBytes: number; skipped: number; skippedBytes: number } | null;
  /** What was sent, in words: "4 blobs, 2 uploaded (12 MiB), 2 already in the registry (3 MiB)". */
  summary: string | null;
}

/** Everything local, before any request: the archive read and checked, or the engine and the image found. */
export async function prepareImage(ctx: Ctx, source: ImageSource): Promise<PreparedImage> {
  const { tag } = source;
  if (tag !== undefined) checkTag(tag);
  // What a killed push left (kill -9: no clean-up ran) goes before this one makes its own.
  removeStaleTempDirs();
  if (source.kind === "archive") {
    const archive = await openImageArchive(source.path, {
      cwd: ctx.cwd,
      signal: ctx.signal,
      note: (text) => ctx.log.info(text),
    });
    const { plan } = archive;
    return { kind: "archive", describe: plan.source, imageId: plan.imageId, tag, archive };
  }
  const engine = findEngine(ctx.env, source.engine);
  const local = await inspectLocalImage(engineContext(ctx, engine), source.image);
  return {
    kind: "engine",
    describe: `${engine.name} image ${source.image} (${local.id.replace(/^sha256:/, "").slice(0, 12)})`,
    imageId: local.id,
    tag,
    engine,
    image: source.image,
  };
}

/** Releases what prepareImage holds (the archive, its temporary files). */
export function releaseImage(prepared: PreparedImage): void {
  if (prepared.kind === "archive") prepared.archive.close();
}

/** Pushes the prepared image to the deployment's registry, under its tag or one made now. */
export async function shipImage(
  ctx: Ctx,
  prepared: PreparedImage,
  deployment: DeploymentT,
): Promise<ShippedImage> {
  const tag = prepared.tag ?? defaultTag(ctx.clock.now(), prepared.imageId);
  const api = await ctx.api();
  try {
    const remember = (token: string) => {
      ctx.rememberSecret(token);
      // As a Basic credential (docker's config.json, an Authorization header an engine echoes).
      ctx.rememberSecret(Buffer.from(`${TOKEN_USER}:${token}`).toString("base64"));
    };
    let current = await createPushToken(api, deployment.id);
    remember(current.token);
    const tokens: TokenSource = {
      current: () => current.token,
      renew: async () => {
        current = await createPushToken(api, deployment.id);
        remember(current.token);
        return current.token;
      },
    };
    const address = registryAddress(current.registry_url);
    const name = imageNameFor(deployment.name);
    const reference = imageReference(address, name);
    const tagged = `${reference}:${tag}`;
    ctx.log.info(`pushing ${prepared.describe} to ${tagged}`);

    if (prepared.kind === "engine") {
      const digest = await pushWithEngine(engineContext(ctx, prepared.engine), {
        image: prepared.image,
        address,
        reference,
        tag,
        tokens,
      });
      return { imageUri: `${reference}@${digest}`, digest, tagged, blobs: null, summary: null };
    }

    const { plan } = prepared.archive;
    const repository = repositoryOf(address, name);
    const session = new RegistrySession({
      address,
      repository,
      tokens,
      transport: api.httpTransport,
      timeoutMs: ctx.requestTimeoutMs,
      userAgent: `cpctl/${VERSION} node/${process.versions.node}`,
      signal: ctx.signal,
      trace: ctx.log.debugEnabled ? (line) => ctx.log.debug(line) : undefined,
      secrets: () => ctx.knownSecrets(),
    });
    const display = pushDisplay(plan, {
      stderr: ctx.io.stderr,
      live: showsSpinner(ctx),
      info: (line) => ctx.log.info(line),
      now: () => ctx.clock.now(),
    });
    try {
      const result = await pushImage(plan, {
        session,
        repository,
        tag,
        timeoutMs: ctx.requestTimeoutMs,
        sleep: (ms, signal) => ctx.clock.sleep(ms, signal),
        signal: ctx.signal,
        progress: display,
      });
      display.stop();
      return {
        imageUri: `${reference}@${result.digest}`,
        digest: result.digest,
        tagged,
        blobs: {
          uploaded: result.uploaded.blobs,
          uploadedBytes: result.uploaded.bytes,
          skipped: result.skipped.blobs,
          skippedBytes: result.skipped.bytes,
        },
        summary: pushSummary(plan, result),
      };
    } finally {
      display.stop();
    }
  } catch (error) {
    if (error instanceof CliError) {
      error.withHint(
        `Nothing was deployed: ${deployment.name} is patched only once the registry holds the whole image. Run the same command again; what the registry already has is not sent again.`,
      );
    }
    throw error;
  }
}

function engineContext(ctx: Ctx, engine: Engine): EngineContext {
  return {
    engine,
    env: ctx.env,
    signal: ctx.signal,
    // An engine's line may quote the credential it uses (a debug line, an error echoing its
    // request): masked as the push's own lines are (push-report.ts), with every push token of
    // the run, the current one and any renewed since.
    onLine: (line) => ctx.log.info(`  ${createMasker(ctx.knownSecrets())(line)}`),
    note: (text) => ctx.log.info(text),
  };
}
