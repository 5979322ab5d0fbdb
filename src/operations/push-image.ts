// `deploy push --image IMAGE | --image-archive FILE`'s payload: an image, pushed to an
// internal_container deployment's registry with a push token (ship-image.ts), then patched in
// as image_uri (REGISTRY/NAME@sha256:...) with revision_source internal_container, as the
// public clients do. Everything local first: the archive read and checked, or the engine and
// the image found. An archive's digest is known before anything is sent, so a deployment
// whose active revision runs it already is left alone; through docker or podman the digest is
// known only once pushed, so such a push always starts a revision.
import { getRevision } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { imageNameFor } from "../image/registry/address.js";
import type { Change } from "../model/changes.js";
import { parseImageReference } from "../model/image-reference.js";
import type { DeploymentT } from "../model/responses.js";
import { formatBytes } from "../util/bytes.js";
import type { Payload, PushInput } from "./push-payload.js";
import type { PushReport } from "./push-report.js";
import {
  type ImageSource,
  type PreparedImage,
  prepareImage,
  releaseImage,
  type ShippedImage,
  shipImage,
} from "./ship-image.js";

export async function imagePayload(ctx: Ctx, input: PushInput, report: PushReport): Promise<Payload> {
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
