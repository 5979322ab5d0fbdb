// Source tarball uploads. `upload-url` issues an object path for one deployment and a
// pre-signed URL on the emulator itself; a PUT of a gzip body to that URL stores the tarball.
// Only a path issued for the deployment and then uploaded is accepted as its
// source_tarball_path (state-rules.ts).
//
// The URL is "pre-signed" like a cloud storage URL: it needs no credentials, and carries an
// HMAC of the upload ID (`signature` query parameter: the CLI's trace redacts it), so a
// client cannot write to a path it was not given. Since it needs no credentials, it must be
// worth little once leaked: it expires (UPLOAD_URL_LIFETIME_MS on the emulator's clock, so
// tests move time instead of waiting), it takes one upload, and the object it wrote can
// never be replaced, so the tarball behind a revision is the one its digest names. (A repeat
// of the very same bytes is answered as the first upload was: the CLI retries a PUT whose
// answer was lost, and that must not turn into an error.)
import { createHash, timingSafeEqual } from "node:crypto";
import { type Core, tenantDeployment } from "./core.js";
import { UPLOAD_URL_LIFETIME_MS } from "./defaults.js";
import { sign } from "./ids.js";
import { HttpError, ok } from "./responses.js";
import type { Handler, Router } from "./router.js";
import type { StoredUpload } from "./state.js";

export const UPLOAD_ROUTE = "/_uploads/{upload_id}";
const GZIP_TYPES = new Set(["application/gzip", "application/x-gzip"]);

export function addUploadRoutes(router: Router, core: Core): void {
  const issue: Handler = (context) => {
    const deployment = tenantDeployment(core, context);
    const upload = core.store.issueUpload(deployment, context.now, context.now + UPLOAD_URL_LIFETIME_MS);
    const signature = sign(core.store.signingKey, upload.id);
    return ok({
      upload_url: `${context.origin}/_uploads/${upload.id}?signature=${signature}`,
      object_path: upload.object_path,
    });
  };
  // The spec writes the path without the version segment; clients call the /v2 one. Both work.
  router.add("POST", "/v2/deployments/{deployment_id}/upload-url", issue);
  router.add("POST", "/deployments/{deployment_id}/upload-url", issue);

  router.add("PUT", UPLOAD_ROUTE, async (context) => {
    const id = context.params.upload_id ?? "";
    const upload = core.store.uploadById(id);
    const given = context.query.get("signature") ?? "";
    if (!upload || !sameSignature(sign(core.store.signingKey, id), given)) {
      throw new HttpError(
        403,
        "This upload URL is not valid: unknown upload, or a missing or wrong signature.",
      );
    }
    if (context.now >= upload.expires_at) {
      throw new HttpError(
        403,
        `This upload URL has expired (upload URLs are valid for ${UPLOAD_URL_LIFETIME_MS / 60_000} minutes): ask for a new one with POST /v2/deployments/${upload.deployment_id}/upload-url.`,
      );
    }
    const contentType = (context.request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (!GZIP_TYPES.has(contentType)) {
      throw new HttpError(
        400,
        `Content-Type must be application/gzip, not ${JSON.stringify(contentType || "(none)")}.`,
      );
    }
    const data = await readWithinQuota(core, context.rawBody, upload);
    // Checked after the body, which took time: the deployment may have been deleted (its
    // uploads with it), or another PUT to the same URL may have finished first.
    if (!core.store.isCurrentUpload(upload)) {
      throw new HttpError(
        404,
        `Deployment ID ${upload.deployment_id} not found: it was deleted during the upload.`,
      );
    }
    // gzip streams start with the magic bytes 1f 8b.
    if (data.length < 2 || data[0] !== 0x1f || data[1] !== 0x8b) {
      throw new HttpError(
        400,
        "The upload is not gzip data: send the tarball gzipped (it must start with the bytes 1f 8b).",
      );
    }
    const sha256 = createHash("sha256").update(data).digest("hex");
    if (upload.uploaded_at !== null) {
      // A retry of the same bytes (the client lost the first answer) changes nothing and is
      // answered as the first was: PUT stays safe to repeat. Other bytes would replace the
      // object behind a revision: refused.
      if (upload.sha256 === sha256) return ok({ object_path: upload.object_path, size: data.length, sha256 });
      throw new HttpError(
        409,
        `This upload URL has been used: ${upload.object_path} already holds another tarball (sha256 ${upload.sha256}), and uploaded objects cannot be replaced. Ask for a new upload URL.`,
      );
    }
    core.store.completeUpload(upload, data, sha256, context.now);
    return ok({ object_path: upload.object_path, size: data.length, sha256 });
  });
}

/**
 * The body, within the per-upload cap and, in memory, what is left of the upload quota (a
 * repeat of a finished upload stores nothing, so the quota does not apply to it).
 */
async function readWithinQuota(
  core: Core,
  read: (limit: number) => Promise<Buffer>,
  upload: StoredUpload,
): Promise<Buffer> {
  const left =
    core.uploadQuotaBytes === null || upload.uploaded_at !== null
      ? Number.POSITIVE_INFINITY
      : core.uploadQuotaBytes - core.store.storedUploadBytes();
  if (left >= core.maxUploadBytes) return read(core.maxUploadBytes);
  try {
    return await read(Math.max(0, left));
  } catch (error) {
    if (!(error instanceof HttpError) || error.status !== 413) throw error;
    throw new HttpError(
      413,
      `The emulator's upload quota is used up: an in-memory emulator keeps at most ${core.uploadQuotaBytes} bytes of tarballs, and ${Math.max(0, left)} are left. Delete deployments you no longer need, or run the emulator with --state.`,
      error.headers,
    );
  }
}

function sameSignature(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
