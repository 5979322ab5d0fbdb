// Reading the emulator's log endpoints in tests: one call (of /v1, or of the documented v2
// endpoint), every page, and tarballs to upload.
import { gzipSync } from "node:zlib";
import { expect } from "vitest";
import { endOfArchive, entryHeader, padding } from "../../src/upload/tar.js";
import type { TestEmulator, TestResponse } from "./emulator.js";

export interface Entry {
  id: string;
  timestamp: string;
  level: string;
  message: string;
}

export const buildLogsPath = (deploymentId: string, revisionId: string) =>
  `/v1/projects/${deploymentId}/revisions/${revisionId}/build_logs`;
export const deployLogsPath = (deploymentId: string, revisionId?: string) =>
  revisionId
    ? `/v1/projects/${deploymentId}/revisions/${revisionId}/deploy_logs`
    : `/v1/projects/${deploymentId}/deploy_logs`;

/** The documented endpoint: GET /v2/deployments/{id}/revisions/{rid}/logs. */
export const revisionLogsPath = (deploymentId: string, revisionId: string) =>
  `/v2/deployments/${deploymentId}/revisions/${revisionId}/logs`;

/** One call of the v2 endpoint, `query` as its query string; expects 200. */
export async function revisionLogPage(
  em: TestEmulator,
  deploymentId: string,
  revisionId: string,
  query: Record<string, string | number>,
): Promise<{ logs: Entry[]; next_offset: string | null }> {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const response = await em.get(`${revisionLogsPath(deploymentId, revisionId)}?${search}`);
  expect(response.status, response.text).toBe(200);
  return response.json;
}

/** One call; expects 200. */
export async function logPage(
  em: TestEmulator,
  path: string,
  body: Record<string, unknown> = {},
): Promise<{ logs: Entry[]; next_offset: string | null }> {
  const response: TestResponse = await em.post(path, body);
  expect(response.status, response.text).toBe(200);
  return response.json;
}

/**
 * Every page, following next_offset (at most `maxPages` calls) until there is none, or, oldest
 * first (where a cursor comes at the end of the log too), until a page is shorter than asked.
 */
export async function allLogs(
  em: TestEmulator,
  path: string,
  body: Record<string, unknown> = {},
  maxPages = 200,
): Promise<{ entries: Entry[]; pages: number }> {
  const entries: Entry[] = [];
  let offset: string | null = null;
  for (let pages = 1; pages <= maxPages; pages++) {
    const page = await logPage(em, path, offset === null ? body : { ...body, offset });
    entries.push(...page.logs);
    const asked = typeof body.limit === "number" ? body.limit : 100;
    if (page.next_offset === null || page.logs.length < asked) return { entries, pages };
    offset = page.next_offset;
  }
  throw new Error(`more than ${maxPages} pages`);
}

/** A gzipped tar of `files` (path -> content), as `cpctl deploy upload` would send. */
export function tarball(files: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [path, content] of Object.entries(files)) {
    const data = Buffer.from(content);
    parts.push(
      entryHeader({ path, type: "file", mode: 0o644, size: data.length }),
      data,
      padding(data.length),
    );
  }
  parts.push(endOfArchive());
  return gzipSync(Buffer.concat(parts));
}

/** Uploads `data` for the deployment and returns the object path. */
export async function upload(em: TestEmulator, deploymentId: string, data: Buffer): Promise<string> {
  const issued = await em.post(`/v2/deployments/${deploymentId}/upload-url`);
  expect(issued.status).toBe(200);
  const url = new URL(issued.json.upload_url as string);
  const put = await em.request("PUT", `${url.pathname}${url.search}`, {
    rawBody: data,
    headers: { "Content-Type": "application/gzip" },
    auth: false,
  });
  expect(put.status, put.text).toBe(200);
  return issued.json.object_path as string;
}
