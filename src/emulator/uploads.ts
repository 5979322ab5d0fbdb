// Source tarball uploads. `upload-url` issues an object path for one deployment and a
// pre-signed URL on the emulator itself; a PUT of a gzip body to that URL stores the tarball.
// Only a path issued for the deployment and then uploaded is accepted as its
// source_tarball_path (state-rules.ts).
//
// The URL is "pre-signed" like a cloud storage URL: it needs no credentials, and carries an
// HMAC of the upload ID (`signature` query parameter: the CLI's trace redacts it), so a
// client cannot write to a path it was not given.
import { createHash, timingSafeEqual } from "node:crypto";
import { type Core, tenantDeployment } from "./core.js";
import { sign } from "./ids.js";
import { HttpError, ok } from "./responses.js";
import type { Handler, Router } from "./router.js";

export const UPLOAD_ROUTE = "/_uploads/{upload_id}";
const GZIP_TYPES = new Set(["application/gzip", "application/x-gzip"]);

export function addUploadRoutes(router: Router, core: Core): void {
  const issue: Handler = (context) => {
    const deployment = tenantDeployment(core, context);
    const upload = core.store.issueUpload(deployment, context.now);
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
    const contentType = (context.request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (!GZIP_TYPES.has(contentType)) {
      throw new HttpError(
        400,
        `Content-Type must be application/gzip, not ${JSON.stringify(contentType || "(none)")}.`,
      );
    }
    const data = await context.rawBody(core.maxUploadBytes);
    // gzip streams start with the magic bytes 1f 8b.
    if (data.length < 2 || data[0] !== 0x1f || data[1] !== 0x8b) {
      throw new HttpError(
        400,
        "The upload is not gzip data: send the tarball gzipped (it must start with the bytes 1f 8b).",
      );
    }
    const sha256 = createHash("sha256").update(data).digest("hex");
    core.store.completeUpload(upload, data, sha256, context.now);
    return ok({ object_path: upload.object_path, size: data.length, sha256 });
  });
}

function sameSignature(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
