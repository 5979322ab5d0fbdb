// upload-url, the PUT to the pre-signed URL, and source_tarball_path: only a path issued for
// this deployment and uploaded is accepted.
import { createHash } from "node:crypto";
import http from "node:http";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import {
  closeTestEmulators,
  httpRequest,
  startTestEmulator,
  type TestEmulator,
} from "../../../test/helpers/emulator.js";
import { Revision } from "../../model/responses.js";
import { UPLOAD_URL_LIFETIME_MS } from "../server.js";

afterEach(closeTestEmulators);

const TARBALL = gzipSync(Buffer.from("pretend this is a tar archive"));

async function issue(em: TestEmulator, deploymentId: string) {
  const response = await em.post(`/v2/deployments/${deploymentId}/upload-url`);
  expect(response.status).toBe(200);
  return response.json as { upload_url: string; object_path: string };
}

function put(url: string, body: Buffer, contentType = "application/gzip") {
  return httpRequest(url, { method: "PUT", headers: { "Content-Type": contentType }, body });
}

describe("uploads", () => {
  it("upload-url, PUT, then patch source_tarball_path: a new revision builds from it", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_source");
    const { upload_url, object_path } = await issue(em, deployment.id);
    const uploaded = await put(upload_url, TARBALL);
    expect(uploaded.status).toBe(200);
    expect(uploaded.json).toMatchObject({ object_path, size: TARBALL.length });
    expect(em.emulator.tarball(object_path)).toEqual(TARBALL);

    const patched = await em.patch(`/v2/deployments/${deployment.id}`, {
      source_revision_config: { source_tarball_path: object_path },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.latest_revision_id).not.toBe(deployment.latest_revision_id);
    expect(patched.json.source_revision_config).toMatchObject({
      source_tarball_path: object_path,
      agent_config_path: "agent.json",
    });
  });

  it("needs no credentials but a valid signature; checks the content type and gzip magic", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_source");
    const { upload_url, object_path } = await issue(em, deployment.id);
    const unsigned = upload_url.replace(/\?.*$/, "");
    expect((await put(unsigned, TARBALL)).status).toBe(403);
    const forged = upload_url.replace(
      /signature=(.)/,
      (_, c: string) => `signature=${c === "0" ? "1" : "0"}`,
    );
    expect((await put(forged, TARBALL)).status).toBe(403);
    const wrongType = await put(upload_url, TARBALL, "application/octet-stream");
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.detail).toMatch(/application\/gzip/);
    const notGzip = await put(upload_url, Buffer.from("plain text"));
    expect(notGzip.status).toBe(400);
    expect(notGzip.json.detail).toMatch(/not gzip/);
    expect(em.emulator.tarball(object_path)).toBeUndefined();
    expect((await put(upload_url, TARBALL, "application/x-gzip")).status).toBe(200);
  });

  it("expires on the emulator's clock after the documented lifetime", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_source");
    const early = await issue(em, deployment.id);
    const late = await issue(em, deployment.id);
    em.advance(UPLOAD_URL_LIFETIME_MS - 1);
    expect((await put(early.upload_url, TARBALL)).status).toBe(200);
    em.advance(1);
    const expired = await put(late.upload_url, TARBALL);
    expect(expired.status).toBe(403);
    expect(expired.json.detail).toMatch(/has expired .*15 minutes.*upload-url/);
    expect(em.emulator.tarball(late.object_path)).toBeUndefined();
  });

  it("takes one upload: a second PUT cannot replace the tarball behind a deployed revision (409)", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_source");
    const { upload_url, object_path } = await issue(em, deployment.id);
    expect((await put(upload_url, TARBALL)).status).toBe(200);
    await em.patch(`/v2/deployments/${deployment.id}`, {
      source_revision_config: { source_tarball_path: object_path },
    });
    em.settle();
    const evil = gzipSync(Buffer.from("a backdoored tar archive"));
    const again = await put(upload_url, evil);
    expect(again.status).toBe(409);
    expect(again.json.detail).toMatch(/already holds another tarball .*cannot be replaced/);
    expect(em.emulator.tarball(object_path)).toEqual(TARBALL);
    // The same bytes again (a client retrying a PUT whose answer it lost) are answered as before.
    const retried = await put(upload_url, TARBALL);
    expect(retried.status).toBe(200);
    expect(retried.json).toMatchObject({ object_path, size: TARBALL.length });
  });

  it("records the tarball's SHA-256 on each revision built from it, as an extra field of the Revision", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_source");
    const { upload_url, object_path } = await issue(em, deployment.id);
    const uploaded = await put(upload_url, TARBALL);
    const sha256 = createHash("sha256").update(TARBALL).digest("hex");
    expect(uploaded.json.sha256).toBe(sha256);
    const patched = await em.patch(`/v2/deployments/${deployment.id}`, {
      source_revision_config: { source_tarball_path: object_path },
    });
    // A later revision that keeps the path (only the config path changes) names it too.
    const later = await em.patch(`/v2/deployments/${deployment.id}`, {
      source_revision_config: { agent_config_path: "other.json" },
    });
    for (const revisionId of [patched.json.latest_revision_id, later.json.latest_revision_id]) {
      const revision = await em.get(`/v2/deployments/${deployment.id}/revisions/${revisionId}`);
      expect(revision.json.source_tarball_sha256).toBe(sha256);
      expect(Revision.safeParse(revision.json).success).toBe(true);
    }
    const first = await em.get(`/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}`);
    expect(first.json).not.toHaveProperty("source_tarball_sha256");
  });

  it("keeps an in-memory emulator within its upload quota, and frees it when a deployment goes", async () => {
    const em = await startTestEmulator({ uploadQuotaBytes: TARBALL.length * 2 });
    const deployment = await em.createDeployment("internal_source");
    for (let i = 0; i < 2; i++) {
      expect((await put((await issue(em, deployment.id)).upload_url, TARBALL)).status).toBe(200);
    }
    const over = await put((await issue(em, deployment.id)).upload_url, TARBALL);
    expect(over.status).toBe(413);
    expect(over.json.detail).toMatch(/upload quota is used up/);
    await em.delete(`/v2/deployments/${deployment.id}`);
    const next = await em.createDeployment("internal_source");
    expect((await put((await issue(em, next.id)).upload_url, TARBALL)).status).toBe(200);
  });

  it("acknowledges no upload for a deployment deleted while its body was arriving, and keeps no orphan", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_source");
    const { upload_url, object_path } = await issue(em, deployment.id);
    const arrived = new Promise<void>((resolve) => {
      const stop = em.emulator.observe((event) => {
        if (event.phase === "received" && event.method === "PUT") {
          stop();
          resolve();
        }
      });
    });
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(
        upload_url,
        {
          method: "PUT",
          headers: { "Content-Type": "application/gzip", "Content-Length": String(TARBALL.length) },
          agent: false,
        },
        (response) => {
          let body = "";
          response.on("data", (chunk) => {
            body += chunk;
          });
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      request.on("error", reject);
      // Half the body now, the rest once the deployment is gone.
      request.write(TARBALL.subarray(0, 4));
      arrived
        .then(async () => {
          expect((await em.delete(`/v2/deployments/${deployment.id}`)).status).toBe(204);
          request.end(TARBALL.subarray(4));
        })
        .catch(reject);
    });
    const { status, body } = await answer;
    expect(status).toBe(404);
    expect(body).toMatch(/deleted during the upload/);
    expect(em.emulator.tarball(object_path)).toBeUndefined();
  });

  it("answers 413 for a tarball over the upload limit", async () => {
    const em = await startTestEmulator({ maxUploadBytes: 64 });
    const deployment = await em.createDeployment("internal_source");
    const { upload_url } = await issue(em, deployment.id);
    const response = await put(upload_url, Buffer.concat([TARBALL, Buffer.alloc(100)]));
    expect(response.status).toBe(413);
  });

  it("refuses paths that are arbitrary, not uploaded, or issued for another deployment", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_source");
    const other = await em.createDeployment("internal_source");
    const otherUpload = await issue(em, other.id);
    await put(otherUpload.upload_url, TARBALL);
    const notUploaded = await issue(em, deployment.id);
    const loc = ["body", "source_revision_config", "source_tarball_path"];
    for (const [path, message] of [
      ["uploads/made-up.tar.gz", /not an object path issued for this deployment/],
      [otherUpload.object_path, /not an object path issued for this deployment/],
      [notUploaded.object_path, /no tarball has been uploaded/],
    ] as const) {
      const response = await em.patch(`/v2/deployments/${deployment.id}`, {
        source_revision_config: { source_tarball_path: path },
      });
      expect(response.status, path).toBe(422);
      expect(response.json.detail).toHaveLength(1);
      expect(response.json.detail[0].loc).toEqual(loc);
      expect(response.json.detail[0].msg).toMatch(message);
    }
    // Another tenant cannot use this tenant's path even for a deployment of its own.
    const theirs = await em.post("/v2/deployments", em.createBody("internal_source"), { auth: "other" });
    const foreign = await em.patch(
      `/v2/deployments/${theirs.json.id}`,
      { source_revision_config: { source_tarball_path: otherUpload.object_path } },
      { auth: "other" },
    );
    expect(foreign.status).toBe(422);
  });

  it("forgets a deployment's uploads when it is deleted", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_source");
    const { upload_url, object_path } = await issue(em, deployment.id);
    await put(upload_url, TARBALL);
    await em.delete(`/v2/deployments/${deployment.id}`);
    expect(em.emulator.tarball(object_path)).toBeUndefined();
    expect((await put(upload_url, TARBALL)).status).toBe(403);
    // An URL issued and never used is forgotten too.
    const other = await em.createDeployment("internal_source");
    const unused = await issue(em, other.id);
    await em.delete(`/v2/deployments/${other.id}`);
    expect((await put(unused.upload_url, TARBALL)).status).toBe(403);
  });
});
