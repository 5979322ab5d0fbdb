// The emulator's push tokens and registry over HTTP: who may push, the upload and manifest
// endpoints of the OCI distribution API, and revisions that pull from it.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, httpRequest, startTestEmulator } from "../../../test/helpers/emulator.js";
import { makeTestImage, sha256 } from "../../../test/helpers/images.js";
import { deployLogsPath, logPage } from "../../../test/helpers/logs.js";
import { pushToken, rawPush, registry, repositoryOf } from "../../../test/helpers/registry.js";
import { MEDIA_TYPES } from "../../model/image-manifest.js";
import { PUSH_TOKEN_LIFETIME_MS } from "./tokens.js";

afterEach(closeTestEmulators);

describe("push-token", () => {
  it("answers a token and a registry_url (host, port, path prefix, no scheme) for internal_container", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_container");
    const response = await em.post(`/v2/deployments/${deployment.id}/push-token`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.json).sort()).toEqual(["registry_url", "token"]);
    expect(response.json.registry_url).toBe(
      `127.0.0.1:${em.emulator.registry.url.split(":")[2]}/deployments/${deployment.id}`,
    );
    expect(response.json.registry_url).not.toMatch(/^[a-z]+:\/\//);
  });

  it("refuses other sources with the hosted service's words, and other tenants' deployments with 404", async () => {
    const em = await startTestEmulator();
    for (const source of ["gitrepo", "external_container", "internal_source"] as const) {
      const deployment = await em.createDeployment(source);
      const response = await em.post(`/v2/deployments/${deployment.id}/push-token`);
      expect(response.status).toBe(400);
      expect(response.json.detail).toContain("only available for 'internal_container' source deployments");
    }
    const mine = await em.createDeployment("internal_container");
    const other = await em.post(`/v2/deployments/${mine.id}/push-token`, undefined, { auth: "someone-else" });
    expect(other.status).toBe(404);
    expect(other.json.detail).toBe(`Deployment ID ${mine.id} not found.`);
    expect((await em.post(`/v2/deployments/${mine.id}/push-token`, undefined, { auth: false })).status).toBe(
      401,
    );
  });
});

describe("registry authentication", () => {
  it("challenges with Bearer, issues a bearer token for oauth2accesstoken and a push token, then serves", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_container");
    const { token } = await pushToken(em, deployment.id);

    const ping = await registry(em, "GET", "/v2/");
    expect(ping.status).toBe(401);
    expect(ping.headers["docker-distribution-api-version"]).toBe("registry/2.0");
    const challenge = String(ping.headers["www-authenticate"]);
    const host = em.emulator.registry.host;
    expect(challenge).toBe(`Bearer realm="http://${host}/token",service="${host}"`);
    expect(ping.json.errors[0].code).toBe("UNAUTHORIZED");

    const issued = await registry(em, "GET", `/token?service=${host}&scope=repository:x:pull,push`, {
      token,
    });
    expect(issued.status).toBe(200);
    expect(issued.json.token).toBe(token);
    expect(issued.json.expires_in).toBe(PUSH_TOKEN_LIFETIME_MS / 1000);
    const form = await registry(em, "POST", "/token", {
      body: `grant_type=password&username=oauth2accesstoken&password=${encodeURIComponent(token)}&service=${host}`,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(200);

    expect((await registry(em, "GET", "/v2/", { authorization: `Bearer ${issued.json.token}` })).status).toBe(
      200,
    );
    expect((await registry(em, "GET", "/v2/", { token })).status).toBe(200);
    const wrongUser = await registry(em, "GET", "/token", {
      authorization: `Basic ${Buffer.from(`admin:${token}`).toString("base64")}`,
    });
    expect(wrongUser.status).toBe(401);
    expect(wrongUser.json.errors[0].message).toContain("oauth2accesstoken");
    expect((await registry(em, "GET", "/v2/", { token: `${token}x` })).status).toBe(401);
  });

  it("refuses an expired token with a 401 that says to ask for a new one", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_container");
    const { token } = await pushToken(em, deployment.id);
    em.advance(PUSH_TOKEN_LIFETIME_MS);
    const expired = await registry(em, "GET", "/v2/", { token });
    expect(expired.status).toBe(401);
    expect(expired.headers["www-authenticate"]).toMatch(/^Bearer realm=/);
    expect(expired.json.errors[0].message).toMatch(/expired.*push-token/);
    expect((await registry(em, "GET", "/token", { token })).status).toBe(401);
  });

  it("keeps tenants apart: another tenant's token is denied the repository, and so is a path outside deployments/", async () => {
    const em = await startTestEmulator();
    const mine = await em.createDeployment("internal_container");
    const target = await pushToken(em, mine.id);
    const theirs = (
      await em.post("/v2/deployments", em.createBody("internal_container", "theirs"), { auth: "other-key" })
    ).json;
    const theirToken = (
      await em.post(`/v2/deployments/${theirs.id}/push-token`, undefined, { auth: "other-key" })
    ).json;
    const denied = await registry(em, "POST", `/v2/${repositoryOf(target)}/blobs/uploads/`, {
      token: theirToken.token,
    });
    expect(denied.status).toBe(403);
    expect(denied.json.errors[0].code).toBe("DENIED");
    const outside = await registry(em, "POST", "/v2/library/alpine/blobs/uploads/", { token: target.token });
    expect(outside.status).toBe(403);
    const unauthenticated = await registry(em, "HEAD", `/v2/${repositoryOf(target)}/blobs/${sha256("x")}`);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers["www-authenticate"]).toContain(
      `scope="repository:${repositoryOf(target)}:pull,push"`,
    );
  });
});

describe("registry blobs and manifests", () => {
  it("takes a chunked upload with Location, Range and Docker-Upload-UUID, and checks the digest", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_container");
    const target = await pushToken(em, deployment.id);
    const repository = repositoryOf(target);
    const data = Buffer.from("0123456789abcdefghij");
    const digest = sha256(data);

    const start = await registry(em, "POST", `/v2/${repository}/blobs/uploads/`, { token: target.token });
    expect(start.status).toBe(202);
    expect(start.headers.range).toBe("0-0");
    const uuid = String(start.headers["docker-upload-uuid"]);
    expect(start.headers.location).toBe(`/v2/${repository}/blobs/uploads/${uuid}`);

    const first = await registry(em, "PATCH", String(start.headers.location), {
      token: target.token,
      body: data.subarray(0, 8),
      headers: { "Content-Range": "0-7", "Content-Type": "application/octet-stream" },
    });
    expect(first.status).toBe(202);
    expect(first.headers.range).toBe("0-7");
    const outOfOrder = await registry(em, "PATCH", String(first.headers.location), {
      token: target.token,
      body: data.subarray(12),
      headers: { "Content-Range": "12-19" },
    });
    expect(outOfOrder.status).toBe(416);
    expect(outOfOrder.headers.range).toBe("0-7");
    const status = await registry(em, "GET", String(first.headers.location), { token: target.token });
    expect(status.status).toBe(204);
    expect(status.headers.range).toBe("0-7");
    const second = await registry(em, "PATCH", String(first.headers.location), {
      token: target.token,
      body: data.subarray(8),
      headers: { "Content-Range": "8-19" },
    });
    expect(second.status).toBe(202);
    expect(second.headers.range).toBe("0-19");

    expect(
      (await registry(em, "HEAD", `/v2/${repository}/blobs/${digest}`, { token: target.token })).status,
    ).toBe(404);
    const done = await registry(em, "PUT", `${second.headers.location}?digest=${digest}`, {
      token: target.token,
    });
    expect(done.status).toBe(201);
    expect(done.headers["docker-content-digest"]).toBe(digest);
    expect(done.headers.location).toBe(`/v2/${repository}/blobs/${digest}`);

    const head = await registry(em, "HEAD", `/v2/${repository}/blobs/${digest}`, { token: target.token });
    expect(head.status).toBe(200);
    expect(head.headers["content-length"]).toBe("20");
    expect(head.headers["docker-content-digest"]).toBe(digest);
    const get = await registry(em, "GET", `/v2/${repository}/blobs/${digest}`, { token: target.token });
    expect(get.text).toBe(data.toString());
  });

  it("refuses a blob whose bytes do not have the digest given, and forgets the upload", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_container");
    const target = await pushToken(em, deployment.id);
    const repository = repositoryOf(target);
    const monolithic = await registry(
      em,
      "POST",
      `/v2/${repository}/blobs/uploads/?digest=${sha256("other")}`,
      {
        token: target.token,
        body: "content",
      },
    );
    expect(monolithic.status).toBe(400);
    expect(monolithic.json.errors[0].code).toBe("DIGEST_INVALID");
    const start = await registry(em, "POST", `/v2/${repository}/blobs/uploads/`, { token: target.token });
    const wrong = await registry(em, "PUT", `${start.headers.location}?digest=${sha256("other")}`, {
      token: target.token,
      body: "content",
    });
    expect(wrong.status).toBe(400);
    expect((await registry(em, "GET", String(start.headers.location), { token: target.token })).status).toBe(
      404,
    );
    const ok = await registry(em, "POST", `/v2/${repository}/blobs/uploads/?digest=${sha256("content")}`, {
      token: target.token,
      body: "content",
    });
    expect(ok.status).toBe(201);
  });

  it("stores docker v2 and OCI manifests by tag and digest, and refuses one whose blobs are missing", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_container");
    const target = await pushToken(em, deployment.id);
    const repository = repositoryOf(target);
    const image = makeTestImage("manifests");
    const { digest, manifest } = await rawPush(em, target.token, repository, image, "v1");
    expect(digest).toBe(sha256(manifest));

    for (const reference of ["v1", digest]) {
      for (const method of ["GET", "HEAD"]) {
        const got = await registry(em, method, `/v2/${repository}/manifests/${reference}`, {
          token: target.token,
        });
        expect(got.status).toBe(200);
        expect(got.headers["content-type"]).toBe(MEDIA_TYPES.dockerManifest);
        expect(got.headers["docker-content-digest"]).toBe(digest);
        expect(got.headers["content-length"]).toBe(String(manifest.length));
        if (method === "GET") expect(got.text).toBe(manifest.toString());
      }
    }
    const oci = Buffer.from(
      JSON.stringify({ ...JSON.parse(manifest.toString()), mediaType: MEDIA_TYPES.ociManifest }),
    );
    const putOci = await registry(em, "PUT", `/v2/${repository}/manifests/${sha256(oci)}`, {
      token: target.token,
      body: oci,
      headers: { "Content-Type": MEDIA_TYPES.ociManifest },
    });
    expect(putOci.status).toBe(201);
    const gotOci = await registry(em, "GET", `/v2/${repository}/manifests/${sha256(oci)}`, {
      token: target.token,
    });
    expect(gotOci.headers["content-type"]).toBe(MEDIA_TYPES.ociManifest);
    const index = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MEDIA_TYPES.ociIndex,
        manifests: [{ mediaType: MEDIA_TYPES.ociManifest, digest: sha256(oci), size: oci.length }],
      }),
    );
    expect(
      (
        await registry(em, "PUT", `/v2/${repository}/manifests/multi`, {
          token: target.token,
          body: index,
          headers: { "Content-Type": MEDIA_TYPES.ociIndex },
        })
      ).status,
    ).toBe(201);

    const missing = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MEDIA_TYPES.dockerManifest,
        config: { mediaType: MEDIA_TYPES.dockerConfig, digest: sha256("nothing"), size: 7 },
        layers: [],
      }),
    );
    const refused = await registry(em, "PUT", `/v2/${repository}/manifests/v2`, {
      token: target.token,
      body: missing,
      headers: { "Content-Type": MEDIA_TYPES.dockerManifest },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.errors[0]).toMatchObject({
      code: "MANIFEST_BLOB_UNKNOWN",
      detail: { digest: sha256("nothing") },
    });
    const byWrongDigest = await registry(em, "PUT", `/v2/${repository}/manifests/${sha256("x")}`, {
      token: target.token,
      body: manifest,
      headers: { "Content-Type": MEDIA_TYPES.dockerManifest },
    });
    expect(byWrongDigest.json.errors[0].code).toBe("DIGEST_INVALID");
    const notJson = await registry(em, "PUT", `/v2/${repository}/manifests/v3`, {
      token: target.token,
      body: "{",
      headers: { "Content-Type": MEDIA_TYPES.dockerManifest },
    });
    expect(notJson.json.errors[0].code).toBe("MANIFEST_INVALID");
    const unknown = await registry(em, "GET", `/v2/${repository}/manifests/nope`, { token: target.token });
    expect(unknown.status).toBe(404);
    expect(unknown.json.errors[0].code).toBe("MANIFEST_UNKNOWN");
    const tags = await registry(em, "GET", `/v2/${repository}/tags/list`, { token: target.token });
    expect(tags.json).toEqual({ name: repository, tags: ["multi", "v1"] });
  });

  it("mounts a blob from another repository of the same tenant instead of taking it again", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_container");
    const target = await pushToken(em, deployment.id);
    const image = makeTestImage("mount", 1);
    await rawPush(em, target.token, repositoryOf(target, "first"), image);
    const layer = sha256(image.layers[0]!);
    const mounted = await registry(
      em,
      "POST",
      `/v2/${repositoryOf(target, "second")}/blobs/uploads/?mount=${layer}&from=${repositoryOf(target, "first")}`,
      { token: target.token },
    );
    expect(mounted.status).toBe(201);
    expect(mounted.headers["docker-content-digest"]).toBe(layer);
    const notThere = await registry(
      em,
      "POST",
      `/v2/${repositoryOf(target, "third")}/blobs/uploads/?mount=${sha256("absent")}&from=${repositoryOf(target, "first")}`,
      { token: target.token },
    );
    expect(notThere.status).toBe(202);
  });

  it("answers malformed names, digests and unknown paths in the OCI error shape", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_container");
    const target = await pushToken(em, deployment.id);
    const badName = await registry(em, "GET", `/v2/${repositoryOf(target, "UPPER")}/tags/list`, {
      token: target.token,
    });
    expect(badName.status).toBe(400);
    expect(badName.json.errors[0].code).toBe("NAME_INVALID");
    const badDigest = await registry(em, "GET", `/v2/${repositoryOf(target)}/blobs/sha256:xyz`, {
      token: target.token,
    });
    expect(badDigest.json.errors[0].code).toBe("DIGEST_INVALID");
    const sha512 = await registry(em, "GET", `/v2/${repositoryOf(target)}/blobs/sha512:${"a".repeat(128)}`, {
      token: target.token,
    });
    expect(sha512.json.errors[0].message).toMatch(/sha256 digests only/);
    const elsewhere = await registry(em, "GET", "/somewhere");
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.json.errors[0].code).toBe("UNSUPPORTED");
  });

  it("keeps an in-memory registry within its quota", async () => {
    const em = await startTestEmulator({ registryQuotaBytes: 1000 });
    const deployment = await em.createDeployment("internal_container");
    const target = await pushToken(em, deployment.id);
    const big = Buffer.alloc(1500, 1);
    const refused = await registry(
      em,
      "POST",
      `/v2/${repositoryOf(target)}/blobs/uploads/?digest=${sha256(big)}`,
      {
        token: target.token,
        body: big,
      },
    );
    expect(refused.status).toBe(413);
    expect(refused.json.errors[0].message).toMatch(/--state/);
    const small = Buffer.alloc(500, 1);
    expect(
      (
        await registry(em, "POST", `/v2/${repositoryOf(target)}/blobs/uploads/?digest=${sha256(small)}`, {
          token: target.token,
          body: small,
        })
      ).status,
    ).toBe(201);
  });
});

describe("revisions that pull from the registry", () => {
  it("deploy an image the registry holds; fail at AWAITING_DEPLOY with 'manifest unknown' for one it does not", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    const deployment = await em.createDeployment("internal_container");
    const target = await pushToken(em, deployment.id);
    const { digest } = await rawPush(em, target.token, repositoryOf(target), makeTestImage("pull"));

    const held = await em.patch(`/v2/deployments/${deployment.id}`, {
      revision_source: "internal_container",
      source_revision_config: { image_uri: `${target.registry_url}/agent@${digest}` },
    });
    expect(held.status).toBe(200);
    em.settle();
    const good = await em.get(`/v2/deployments/${deployment.id}/revisions/${held.json.latest_revision_id}`);
    expect(good.json.status).toBe("DEPLOYED");

    const byTag = await em.patch(`/v2/deployments/${deployment.id}`, {
      source_revision_config: { image_uri: `${target.registry_url}/agent:v1` },
    });
    em.settle();
    expect(
      (await em.get(`/v2/deployments/${deployment.id}/revisions/${byTag.json.latest_revision_id}`)).json
        .status,
    ).toBe("DEPLOYED");

    const missing = await em.patch(`/v2/deployments/${deployment.id}`, {
      source_revision_config: { image_uri: `${target.registry_url}/agent@${sha256("not pushed")}` },
    });
    const revisionId = missing.json.latest_revision_id;
    em.advance(2 * 1000);
    expect((await em.get(`/v2/deployments/${deployment.id}/revisions/${revisionId}`)).json.status).toBe(
      "AWAITING_DEPLOY",
    );
    em.settle();
    expect((await em.get(`/v2/deployments/${deployment.id}/revisions/${revisionId}`)).json.status).toBe(
      "DEPLOY_FAILED",
    );
    const log = await logPage(em, deployLogsPath(deployment.id, revisionId), { limit: 100, order: "asc" });
    expect(log.logs.at(-1)).toMatchObject({ level: "ERROR" });
    expect(log.logs.at(-1)!.message).toContain("manifest unknown");

    // Another registry is not the emulator's to check: it deploys.
    const elsewhere = await em.patch(`/v2/deployments/${deployment.id}`, {
      source_revision_config: { image_uri: "registry.example.com/agent:2" },
    });
    em.settle();
    expect(
      (await em.get(`/v2/deployments/${deployment.id}/revisions/${elsewhere.json.latest_revision_id}`)).json
        .status,
    ).toBe("DEPLOYED");
  });

  it("forgets a deleted deployment's images and empties on reset", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_container");
    const target = await pushToken(em, deployment.id);
    const { digest } = await rawPush(em, target.token, repositoryOf(target), makeTestImage("gone"));
    const other = await em.createDeployment("internal_container");
    const uri = `${target.registry_url}/agent@${digest}`;
    expect((await em.delete(`/v2/deployments/${deployment.id}`)).status).toBe(204);
    const patched = await em.patch(`/v2/deployments/${other.id}`, {
      source_revision_config: { image_uri: uri },
    });
    em.settle();
    expect(
      (await em.get(`/v2/deployments/${other.id}/revisions/${patched.json.latest_revision_id}`)).json.status,
    ).toBe("DEPLOY_FAILED");

    const second = await pushToken(em, other.id);
    await rawPush(em, second.token, repositoryOf(second), makeTestImage("reset"));
    em.emulator.reset();
    expect((await registry(em, "GET", "/v2/", { token: second.token })).status).toBe(401);
  });
});

describe("registry address", () => {
  it("is in the health answer", async () => {
    const em = await startTestEmulator();
    const health = await httpRequest(`${em.url}/_emulator/health`);
    expect(health.json.registry).toBe(em.emulator.registry.host);
  });
});
