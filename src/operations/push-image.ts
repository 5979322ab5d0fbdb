// `deploy push --image IMAGE | --image-archive FILE`'s payload: an image, pushed to an
// internal_container deployment's registry (service-facts, "Shipping an image"), then patched
// in as image_uri (REGISTRY/NAME@sha256:...) with revision_source internal_container, as the
// public clients do.
//
// In two steps, so that the push checks everything local before it sends anything:
// prepareImage (the archive read and checked, or the engine and the image found) and
// shipImage (a push token from the control plane, then the image pushed under
// REGISTRY_URL/NAME:TAG, from a saved archive over the OCI distribution API, src/image/push.ts,
// or by the local docker or podman, src/image/engine/push.ts). Shipping patches nothing: a push
// that fails leaves the deployment as it was, and the error says so; push.ts patches in the
// image_uri it answers, REGISTRY_URL/NAME@sha256:..., the digest of the manifest the registry
// stored. An archive's digest is known before anything is sent, so a deployment whose active
// revision runs it already is left alone; through docker or podman the digest is known only
// once pushed, so such a push always starts a revision.
import { createPushToken, getRevision } from "../api/endpoints.js";
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
import type { Change } from "../model/changes.js";
import { parseImageReference } from "../model/image-reference.js";
import type { DeploymentT } from "../model/responses.js";
import { createMasker } from "../secrets.js";
import { formatBytes } from "../util/bytes.js";
import { VERSION } from "../version.js";
import { showsSpinner } from "../wait/progress.js";
import type { Payload, PushReport } from "./push-payload.js";

/** The flags of an image push (push-request.ts refuses a directory with them). */
export type ImageFlags = {
  image?: string;
  imageArchive?: string;
  engine?: EngineName;
  tag?: string;
};

export async function imagePayload(ctx: Ctx, input: ImageFlags, report: PushReport): Promise<Payload> {
  const source: ImageSource =
    input.image !== undefined
      ? { kind: "engine", image: input.image, engine: input.engine, tag: input.tag }
      : { kind: "archive", path: input.imageArchive!, tag: input.tag };
  const prepared = await prepareImage(ctx, source);
  try {
    await announce(prepared, report);
    return payloadOf(prepared);
  } catch (error) {
    releaseImage(prepared);
    throw error;
  }
}

async function announce(prepared: PreparedImage, report: PushReport): Promise<void> {
  if (prepared.kind === "engine") {
    await report.step("image", `Found ${prepared.describe}`, {
      image: prepared.image,
      image_id: prepared.imageId,
    });
    return;
  }
  const { plan } = prepared.archive;
  const bytes = plan.blobs.reduce((sum, blob) => sum + blob.size, 0);
  const digest = plan.manifests.at(-1)!.digest;
  await report.step(
    "image",
    `Read ${plan.source}: ${plan.blobs.length} blobs, ${formatBytes(bytes)}, ${digest}`,
    {
      format: plan.format,
      image_id: plan.imageId,
      digest,
      blobs: plan.blobs.length,
      bytes,
    },
  );
}

function payloadOf(prepared: PreparedImage): Payload {
  // Known before anything is sent for an archive; for an engine, once it pushed.
  const archiveDigest = prepared.kind === "archive" ? prepared.archive.plan.manifests.at(-1)!.digest : null;
  const archiveBytes =
    prepared.kind === "archive"
      ? prepared.archive.plan.blobs.reduce((sum, blob) => sum + blob.size, 0)
      : null;
  let shipped: ShippedImage | null = null;
  /** What the active revision runs, when it is this image already (nothing is pushed then). */
  let running: string | null = null;
  return {
    source: "internal_container",
    shown: prepared.describe,
    shipping: "the image push",
    trackedPackages: [],
    createRevisionConfig: () => ({}),
    settings: () => ({}),
    pendingChange: (current) => imageChange(current, prepared.describe, archiveDigest),
    runningAlready: async (api, deployment) => {
      if (!archiveDigest || !deployment.active_revision_id) return null;
      const active = await getRevision(api, deployment.id, deployment.active_revision_id);
      const uri = active.source_revision_config.image_uri ?? "";
      const reference = parseImageReference(uri);
      const sameImage =
        reference?.digest === archiveDigest &&
        reference.repository.endsWith(`/${imageNameFor(deployment.name)}`);
      if (!sameImage) return null;
      running = uri;
      return { id: active.id, status: active.status, what: `this image (${archiveDigest})` };
    },
    ship: async (ctx, _api, deployment, report) => {
      shipped = await shipImage(ctx, prepared, deployment);
      await report.step(
        "pushed",
        `Pushed ${shipped.tagged} (${shipped.digest})${shipped.summary ? `: ${shipped.summary}` : ""}`,
        {
          image_uri: shipped.imageUri,
          digest: shipped.digest,
          tag: shipped.tagged,
          ...(shipped.blobs ? { blobs: shipped.blobs } : {}),
        },
      );
      return {
        revision_source: "internal_container",
        source_revision_config: { image_uri: shipped.imageUri },
      };
    },
    result: () => {
      const digest = shipped?.digest ?? archiveDigest;
      return {
        bytes: archiveBytes,
        sha256: digest ? digest.replace(/^sha256:/, "") : null,
        ...(shipped || running ? { image_uri: shipped?.imageUri ?? running! } : {}),
      };
    },
    dryRun: () => {
      if (prepared.kind === "engine") {
        return {
          fields: { image: prepared.image, engine: prepared.engine.name, image_id: prepared.imageId },
          text: prepared.describe,
        };
      }
      const { plan } = prepared.archive;
      return {
        fields: {
          image: plan.source,
          format: plan.format,
          image_id: plan.imageId,
          digest: archiveDigest,
          bytes: archiveBytes,
          blobs: plan.blobs.map((blob) => ({
            digest: blob.digest,
            size: blob.size,
            media_type: blob.mediaType,
          })),
        },
        text: plan.blobs.map((blob) => `${blob.digest}\t${blob.size}\t${blob.label}`).join("\n"),
      };
    },
    release: () => releaseImage(prepared),
  };
}

/** The preview's line for image_uri, whose value the push gives (its digest is known for an archive). */
function imageChange(current: DeploymentT | null, shown: string, digest: string | null): Change {
  const before = current?.source_revision_config.image_uri ?? null;
  return {
    path: "source_revision_config.image_uri",
    kind: before ? "change" : "add",
    current: before,
    desired: `(the push of ${shown}${digest ? `: ${digest}` : ""})`,
    immutable: false,
    secret: false,
  };
}

// --- shipping: everything local first, then the token and the push ---

/** `tag`: --tag, the tag to push under (default: the time and the image's short ID). */
type ImageSource = (
  | { kind: "archive"; path: string }
  | { kind: "engine"; image: string; engine?: EngineName }
) & { tag?: string };

type PreparedImage = { describe: string; imageId: string; tag?: string } & (
  | { kind: "archive"; archive: OpenedArchive }
  | { kind: "engine"; engine: Engine; image: string }
);

interface ShippedImage {
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
async function prepareImage(ctx: Ctx, source: ImageSource): Promise<PreparedImage> {
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
function releaseImage(prepared: PreparedImage): void {
  if (prepared.kind === "archive") prepared.archive.close();
}

/** Pushes the prepared image to the deployment's registry, under its tag or one made now. */
async function shipImage(ctx: Ctx, prepared: PreparedImage, deployment: DeploymentT): Promise<ShippedImage> {
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
    // request): masked as the push's own lines are (push-payload.ts), with every push token of
    // the run, the current one and any renewed since.
    onLine: (line) => ctx.log.info(`  ${createMasker(ctx.knownSecrets())(line)}`),
    note: (text) => ctx.log.info(text),
  };
}
