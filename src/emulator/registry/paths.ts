// The registry's URL paths (OCI distribution spec, "Endpoints"), taken apart. Repository names
// hold slashes, so a path is matched from its end: `/v2/<name>/blobs/<digest>`,
// `/v2/<name>/blobs/uploads/[<id>]`, `/v2/<name>/manifests/<reference>`, `/v2/<name>/tags/list`.
import { MAX_REPOSITORY_NAME_LENGTH, REPOSITORY_NAME } from "../../model/image-reference.js";
import { RegistryError } from "./errors.js";

export type RegistryPath =
  | { kind: "ping" }
  | { kind: "token" }
  | { kind: "blob"; name: string; digest: string }
  | { kind: "uploads"; name: string }
  | { kind: "upload"; name: string; id: string }
  | { kind: "manifest"; name: string; reference: string }
  | { kind: "tags"; name: string }
  | { kind: "unknown" };

/** The token endpoint (the `realm` of the Bearer challenge). */
export const TOKEN_PATH = "/token";

const PATTERNS: [RegExp, (m: RegExpExecArray) => RegistryPath][] = [
  [/^\/v2\/(.+)\/blobs\/uploads$/, (m) => ({ kind: "uploads", name: m[1]! })],
  [/^\/v2\/(.+)\/blobs\/uploads\/([^/]+)$/, (m) => ({ kind: "upload", name: m[1]!, id: m[2]! })],
  [/^\/v2\/(.+)\/blobs\/([^/]+)$/, (m) => ({ kind: "blob", name: m[1]!, digest: m[2]! })],
  [/^\/v2\/(.+)\/manifests\/([^/]+)$/, (m) => ({ kind: "manifest", name: m[1]!, reference: m[2]! })],
  [/^\/v2\/(.+)\/tags\/list$/, (m) => ({ kind: "tags", name: m[1]! })],
];

/** A request path (query removed) as a registry path; a bad repository name is a 400 NAME_INVALID. */
export function parseRegistryPath(rawPath: string): RegistryPath {
  const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, "") : rawPath;
  if (path === "/v2") return { kind: "ping" };
  if (path === TOKEN_PATH) return { kind: "token" };
  for (const [pattern, make] of PATTERNS) {
    const match = pattern.exec(path);
    if (!match) continue;
    const parsed = make(match);
    if ("name" in parsed) checkName(parsed.name);
    return parsed;
  }
  return { kind: "unknown" };
}

/** A stable name per kind of path, for the request statistics ("PATCH /v2/{name}/blobs/uploads/{id}"). */
export function routeKey(method: string, path: RegistryPath): string {
  const pattern = {
    ping: "/v2/",
    token: TOKEN_PATH,
    blob: "/v2/{name}/blobs/{digest}",
    uploads: "/v2/{name}/blobs/uploads/",
    upload: "/v2/{name}/blobs/uploads/{id}",
    manifest: "/v2/{name}/manifests/{reference}",
    tags: "/v2/{name}/tags/list",
    unknown: "(unmatched)",
  }[path.kind];
  return `${method} ${pattern}`;
}

function checkName(name: string): void {
  if (name.length > MAX_REPOSITORY_NAME_LENGTH || !REPOSITORY_NAME.test(name)) {
    throw new RegistryError(
      400,
      "NAME_INVALID",
      "invalid repository name: lower-case letters and digits in /-separated components, each joined by ., _, __ or dashes",
      { name: name.slice(0, 300) },
    );
  }
}
