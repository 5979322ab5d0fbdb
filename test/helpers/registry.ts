// Talking to the emulator's registry in tests, in plain HTTP: push tokens, authenticated
// requests, and a raw push of a test image (blobs, then the manifest).
import { expect } from "vitest";
import { MEDIA_TYPES } from "../../src/model/image-manifest.js";
import type { TestEmulator, TestResponse } from "./emulator.js";
import { httpRequest } from "./emulator.js";
import { sha256, type TestImage } from "./images.js";

export interface PushToken {
  token: string;
  registry_url: string;
}

export async function pushToken(em: TestEmulator, deploymentId: string): Promise<PushToken> {
  const response = await em.post(`/v2/deployments/${deploymentId}/push-token`);
  expect(response.status, response.text).toBe(200);
  return response.json;
}

export const basic = (token: string) =>
  `Basic ${Buffer.from(`oauth2accesstoken:${token}`).toString("base64")}`;

/** One registry request; `token` sent as Basic credentials unless `authorization` says otherwise. */
export function registry(
  em: TestEmulator,
  method: string,
  path: string,
  options: {
    token?: string;
    authorization?: string;
    body?: Buffer | string;
    headers?: Record<string, string>;
  } = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  const authorization = options.authorization ?? (options.token ? basic(options.token) : undefined);
  if (authorization) headers.Authorization = authorization;
  const url = path.startsWith("http") ? path : `${em.emulator.registry.url}${path}`;
  return httpRequest(url, { method, headers, body: options.body });
}

/** The repository path of `name` under a push token's registry_url. */
export function repositoryOf(token: PushToken, name = "agent"): string {
  return `${token.registry_url.slice(token.registry_url.indexOf("/") + 1)}/${name}`;
}

/** Monolithic uploads of the config and layers (uncompressed), then a docker v2 manifest under `tag`. */
export async function rawPush(
  em: TestEmulator,
  token: string,
  repository: string,
  image: TestImage,
  tag = "v1",
): Promise<{ digest: string; manifest: Buffer }> {
  const descriptors = [];
  for (const [data, mediaType] of [
    [image.config, MEDIA_TYPES.dockerConfig] as const,
    ...image.layers.map((layer) => [layer, MEDIA_TYPES.dockerLayer] as const),
  ]) {
    const digest = sha256(data);
    const start = await registry(em, "POST", `/v2/${repository}/blobs/uploads/`, { token });
    expect(start.status, start.text).toBe(202);
    const location = String(start.headers.location);
    const put = await registry(em, "PUT", `${location}?digest=${digest}`, { token, body: data });
    expect(put.status, put.text).toBe(201);
    descriptors.push({ mediaType, digest, size: data.length });
  }
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.dockerManifest,
      config: descriptors[0],
      layers: descriptors.slice(1),
    }),
  );
  const put = await registry(em, "PUT", `/v2/${repository}/manifests/${tag}`, {
    token,
    body: manifest,
    headers: { "Content-Type": MEDIA_TYPES.dockerManifest },
  });
  expect(put.status, put.text).toBe(201);
  return { digest: String(put.headers["docker-content-digest"]), manifest };
}
