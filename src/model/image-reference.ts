// The grammar of container image references (the OCI distribution spec's and docker's): a
// repository name, a tag, a digest, and `image_uri` strings made of them. Written once for the
// emulator's registry, which checks what it is sent and what revisions name, and for the
// client that pushes images (src/image).

/** One path component of a repository name: lower-case letters and digits, joined by `.`, `_`, `__` or dashes. */
const COMPONENT = "[a-z0-9]+(?:(?:\\.|_|__|-+)[a-z0-9]+)*";

/** A repository name: components separated by `/` (the OCI distribution spec's rule). */
export const REPOSITORY_NAME = new RegExp(`^${COMPONENT}(?:/${COMPONENT})*$`);

/** The longest repository name registries accept (with the registry host, docker's limit). */
export const MAX_REPOSITORY_NAME_LENGTH = 255;

/** A tag: up to 128 characters, a letter, digit or `_` first. */
export const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

/** The only digest algorithm this code reads and writes: sha256, as every registry does. */
export const SHA256_DIGEST = /^sha256:[a-f0-9]{64}$/;

/** A digest of any registered algorithm, to tell "not sha256" apart from "not a digest". */
const ANY_DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

export function isDigest(text: string): boolean {
  return ANY_DIGEST.test(text);
}

/** The digests an image reference may end in: the registered algorithms, at their lengths. */
const REFERENCE_DIGEST = /^(?:sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/;

/** `HOST[:PORT]/REPOSITORY[:TAG][@DIGEST]` taken apart. */
export interface ImageReference {
  /** `registry.example.com:5000`, as written (no scheme). */
  host: string;
  repository: string;
  tag: string | null;
  digest: string | null;
}

/**
 * An image reference with an explicit registry host (the first component holds a `.` or a
 * `:`, or is `localhost`), as `image_uri` values pointing at a registry are written; null for
 * anything else (a Docker Hub short name, a malformed string).
 */
export function parseImageReference(text: string): ImageReference | null {
  let rest = text.trim();
  let digest: string | null = null;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!REFERENCE_DIGEST.test(digest)) return null;
  }
  const slash = rest.indexOf("/");
  if (slash <= 0) return null;
  const host = rest.slice(0, slash);
  if (!/[.:]/.test(host) && host !== "localhost") return null;
  if (!/^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/.test(host)) return null;
  let path = rest.slice(slash + 1);
  let tag: string | null = null;
  const colon = path.lastIndexOf(":");
  if (colon >= 0) {
    tag = path.slice(colon + 1);
    path = path.slice(0, colon);
    if (!TAG.test(tag)) return null;
  }
  if (!REPOSITORY_NAME.test(path)) return null;
  return { host, repository: path, tag, digest };
}

/** `host:port` split; the port null when absent. Brackets of an IPv6 host are kept. */
export function splitHostPort(host: string): { hostname: string; port: number | null } {
  const match = /^(.*?)(?::(\d{1,5}))?$/.exec(host);
  const hostname = match?.[1] ?? host;
  const port = match?.[2] === undefined ? null : Number(match[2]);
  return { hostname, port };
}
