// upload-url, the PUT to the pre-signed URL, and source_tarball_path: only a path issued for
// this deployment and uploaded is accepted.
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import {
  closeTestEmulators,
  httpRequest,
  startTestEmulator,
  type TestEmulator,
} from "../../test/helpers/emulator.js";

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
  });
});
