// What an uploaded source tarball holds, for the build log of an internal_source revision
// ("Unpacking ...: 12 files", then some of their names). Uploads are untrusted bytes: the
// gzip stream is inflated only up to a cap (a small bomb cannot fill memory), and a tarball
// that is not one gives a summary that says so rather than an error.
//
// Summaries are remembered by the tarball's SHA-256: objects are write-once, so the same
// digest is always the same listing, and a log read again does not inflate the tarball again.
import { createGunzip } from "node:zlib";
import { BLOCK } from "../../util/tar-fields.js";
import { walkTar } from "../../util/untar.js";

/** Inflate at most this much of a tarball to list it: file headers come first. */
const MAX_INFLATED_BYTES = 32 * 1024 * 1024;
/** Files named in the summary (the build log lists these, then "... and N more"). */
export const MAX_LISTED_FILES = 20;
const MAX_REMEMBERED = 128;

export interface TarballSummary {
  /** Regular files, in the tarball's order, at most MAX_LISTED_FILES. */
  files: { path: string; size: number }[];
  /** Regular files seen (all of them when `complete`). */
  fileCount: number;
  /** Their bytes once unpacked. */
  unpackedBytes: number;
  /** Every entry was read; false: the listing stopped early (`problem` says why, if it broke). */
  complete: boolean;
  /** Names at the top of the tree (for package-manager detection), all of those seen. */
  topLevel: string[];
  problem: string | null;
}

const remembered = new Map<string, Promise<TarballSummary>>();

/** The summary of `gzipped`, whose SHA-256 is `sha256` (the cache key). */
export function summarizeTarball(sha256: string, gzipped: Buffer): Promise<TarballSummary> {
  let summary = remembered.get(sha256);
  if (!summary) {
    if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
    summary = inflateHead(gzipped, MAX_INFLATED_BYTES).then(({ data, problem, cut }) =>
      listTar(data, problem, cut),
    );
    remembered.set(sha256, summary);
  }
  return summary;
}

function listTar(tar: Buffer, inflateProblem: string | null, cut: boolean): TarballSummary {
  const summary: TarballSummary = {
    files: [],
    fileCount: 0,
    unpackedBytes: 0,
    complete: false,
    topLevel: [],
    problem: inflateProblem,
  };
  const topLevel = new Set<string>();
  let ended = false;
  // A tar archive is whole blocks; anything else is not one (walkTar would find no header in it).
  if (!cut && summary.problem === null && tar.length % BLOCK !== 0) {
    summary.problem = `not a tar archive (${tar.length} bytes once unzipped, not a whole number of ${BLOCK}-byte blocks)`;
  }
  try {
    walkTar(tar, (header, content) => {
      const path = header.path.replace(/^(\.\/)+/, "");
      if (path === "" || path === ".") return;
      topLevel.add(path.split("/")[0]!);
      // Regular files: type "0", or NUL in old archives.
      if (header.type !== "0" && header.type !== "\0") return;
      // An entry cut off by the inflate cap is not counted: its size may be a lie.
      if (content.length < header.size) return;
      summary.fileCount++;
      summary.unpackedBytes += header.size;
      if (summary.files.length < MAX_LISTED_FILES) summary.files.push({ path, size: header.size });
    });
    ended = true;
  } catch (error) {
    summary.problem ??= (error as Error).message;
  }
  summary.topLevel = [...topLevel].sort();
  summary.complete = ended && !cut && summary.problem === null;
  return summary;
}

/** Inflates the start of a gzip stream, up to `cap` bytes; never throws. */
function inflateHead(
  gzipped: Buffer,
  cap: number,
): Promise<{ data: Buffer; problem: string | null; cut: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const gunzip = createGunzip();
    const finish = (problem: string | null, cut: boolean) => {
      if (settled) return;
      settled = true;
      gunzip.destroy();
      resolve({ data: Buffer.concat(chunks).subarray(0, cap), problem, cut });
    };
    gunzip.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= cap) finish(null, true);
    });
    gunzip.on("end", () => finish(null, false));
    gunzip.on("error", (error) => finish(`not a readable gzip stream (${error.message})`, false));
    gunzip.end(gzipped);
  });
}
