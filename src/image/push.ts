// Pushes a plan (plan.ts) to a registry over the OCI distribution API, with no daemon:
//
//   1. each blob: HEAD it, and skip it when the registry has it (a second push of the same
//      image sends no blob); else POST an upload, then PUT the bytes with ?digest= (up to
//      MONOLITHIC_MAX_BYTES), or PATCH them in chunks with Content-Range and PUT ?digest=;
//   2. the manifests, by digest, the image last under its tag; the registry's
//      Docker-Content-Digest must be the sha256 of the bytes sent.
//
// Everything is addressed by digest, so a step that failed in transit (a dropped connection, a
// 5xx, an upload the registry forgot) is simply done again, up to ATTEMPTS times: an upload
// starts over (after a HEAD, in case the failed attempt finished it). The bytes read are hashed
// on the way, so a damaged archive stops the push before the registry is asked to take them.
import { createHash } from "node:crypto";
import { backoffDelayMs, DEFAULT_RETRY_POLICY, parseRetryAfter } from "../api/retry.js";
import type { TransportResponse } from "../api/transport.js";
import { ApiError, InterruptedError, NetworkError, UsageError } from "../errors.js";
import { type PlanBlob, type PlanManifest, type PushPlan, topManifest } from "./plan.js";
import { describeRegistryError, hasErrorCode } from "./registry/errors.js";
import type { RegistrySession } from "./registry/session.js";

/** Blobs up to this size go in one PUT; larger ones in chunks of CHUNK_BYTES. */
export const MONOLITHIC_MAX_BYTES = 32 * 1024 * 1024;
export const CHUNK_BYTES = 16 * 1024 * 1024;
/** Tries of one step (a HEAD, an upload, a manifest) before the push gives up. */
export const ATTEMPTS = 4;
/** Blobs uploaded at once. */
const PARALLEL_BLOBS = 3;
/** A body gets the request deadline plus this long per mebibyte (slow links, large chunks). */
const MS_PER_MIB = 4000;

export type BlobState = "exists" | "uploading" | "uploaded";

export interface PushProgress {
  blob(blob: PlanBlob, state: BlobState): void;
  /** `sent` bytes of `blob` are with the registry (it can go back to 0 when an upload starts over). */
  bytes(blob: PlanBlob, sent: number): void;
  manifest(manifest: PlanManifest): void;
  retry(what: string, error: Error, attempt: number, delayMs: number): void;
}

export interface PushOptions {
  session: RegistrySession;
  repository: string;
  tag: string;
  /** The deadline of a request without a body (--request-timeout). */
  timeoutMs: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  progress?: PushProgress;
  random?: () => number;
  /** Overrides for tests: small chunks with small images. */
  monolithicMaxBytes?: number;
  chunkBytes?: number;
}

export interface PushResult {
  /** The image's manifest digest: what `image_uri` names. */
  digest: string;
  uploaded: { blobs: number; bytes: number };
  skipped: { blobs: number; bytes: number };
}

export async function pushImage(plan: PushPlan, options: PushOptions): Promise<PushResult> {
  const pusher = new Pusher(options);
  const result: PushResult = {
    digest: topManifest(plan).digest,
    uploaded: { blobs: 0, bytes: 0 },
    skipped: { blobs: 0, bytes: 0 },
  };
  const queue = [...plan.blobs];
  const worker = async () => {
    for (let blob = queue.shift(); blob; blob = queue.shift()) {
      const sent = await pusher.blob(blob);
      const bucket = sent ? result.uploaded : result.skipped;
      bucket.blobs++;
      bucket.bytes += blob.size;
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_BLOBS, queue.length) }, worker));
  const top = topManifest(plan);
  for (const manifest of plan.manifests) {
    await pusher.manifest(manifest, manifest === top ? options.tag : manifest.digest);
  }
  return result;
}

class Pusher {
  constructor(private readonly options: PushOptions) {}

  private get base(): string {
    return `/v2/${this.options.repository}`;
  }

  /** Makes sure the registry has `blob`; true when it had to be sent. */
  async blob(blob: PlanBlob): Promise<boolean> {
    const { progress } = this.options;
    if (await this.step(`check ${blob.label}`, () => this.has(blob))) {
      progress?.blob(blob, "exists");
      return false;
    }
    progress?.blob(blob, "uploading");
    let first = true;
    await this.step(`upload ${blob.label}`, async () => {
      // A failed attempt may have finished the upload before its answer was lost.
      if (!first && (await this.has(blob))) return;
      first = false;
      await this.upload(blob);
    });
    progress?.blob(blob, "uploaded");
    return true;
  }

  async manifest(manifest: PlanManifest, reference: string): Promise<void> {
    await this.step(`store the manifest ${manifest.digest}`, async () => {
      const response = await this.options.session.send({
        method: "PUT",
        url: `${this.base}/manifests/${reference}`,
        headers: { "Content-Type": manifest.mediaType },
        body: manifest.bytes,
      });
      expectStatus(response, [201, 200], `store the manifest ${manifest.digest}`);
      const stored = response.headers["docker-content-digest"];
      if (stored && stored !== manifest.digest) {
        throw new ApiError(
          502,
          `the registry stored the manifest under ${stored}, but its bytes have digest ${manifest.digest}: the registry changed it, so the digest cannot be deployed`,
          null,
          "PUT",
          `${this.base}/manifests/${reference}`,
        );
      }
    });
    this.options.progress?.manifest(manifest);
  }

  private async has(blob: PlanBlob): Promise<boolean> {
    const response = await this.options.session.send({
      method: "HEAD",
      url: `${this.base}/blobs/${blob.digest}`,
    });
    if (response.status === 404) return false;
    // A redirect to storage means the registry has it too.
    if (
      (response.status >= 200 && response.status < 300) ||
      response.status === 307 ||
      response.status === 302
    ) {
      return true;
    }
    throw unexpected(response, `check ${blob.label}`);
  }

  private async upload(blob: PlanBlob): Promise<void> {
    const { session, progress } = this.options;
    progress?.bytes(blob, 0);
    const started = await session.send({ method: "POST", url: `${this.base}/blobs/uploads/` });
    if (started.status === 201) return; // the registry had it after all (a mount)
    expectStatus(started, [202], `start uploading ${blob.label}`);
    let location = locationOf(started, `start uploading ${blob.label}`);
    const hash = createHash("sha256");
    const monolithic = blob.size <= (this.options.monolithicMaxBytes ?? MONOLITHIC_MAX_BYTES);
    let body: Buffer | undefined;
    if (monolithic) {
      body = blob.bytes.read(0, blob.size);
      hash.update(body);
    } else {
      const chunk = this.options.chunkBytes ?? CHUNK_BYTES;
      for (let at = 0; at < blob.size; at += chunk) {
        const data = blob.bytes.read(at, Math.min(chunk, blob.size - at));
        hash.update(data);
        const response = await session.send({
          method: "PATCH",
          url: location,
          headers: {
            "Content-Type": "application/octet-stream",
            "Content-Range": `${at}-${at + data.length - 1}`,
          },
          body: data,
          timeoutMs: this.bodyTimeout(data.length),
        });
        expectStatus(response, [202, 204], `upload ${blob.label}`);
        location = locationOf(response, `upload ${blob.label}`, location);
        progress?.bytes(blob, at + data.length);
      }
    }
    const actual = `sha256:${hash.digest("hex")}`;
    if (actual !== blob.digest) {
      throw new UsageError(
        `--image-archive: the ${blob.label} (${blob.digest}) is damaged: its bytes have digest ${actual}; save the image again`,
      );
    }
    const url = new URL(location, this.options.session.address.origin);
    url.searchParams.set("digest", blob.digest);
    const done = await session.send({
      method: "PUT",
      url: url.toString(),
      headers: { "Content-Type": "application/octet-stream" },
      body,
      timeoutMs: this.bodyTimeout(body?.length ?? 0),
    });
    expectStatus(done, [201, 204], `finish uploading ${blob.label}`);
    progress?.bytes(blob, blob.size);
  }

  private bodyTimeout(bytes: number): number {
    return this.options.timeoutMs + Math.ceil((bytes / (1024 * 1024)) * MS_PER_MIB);
  }

  /** Runs `work` until it succeeds, retrying what may go better next time; ATTEMPTS in all. */
  private async step<T>(what: string, work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        if (this.options.signal?.aborted) throw new InterruptedError();
        if (!(error instanceof Error) || !isTransient(error) || attempt >= ATTEMPTS) throw error;
        const retryAfter = error instanceof ApiError ? error.retryAfterSeconds : null;
        const delay =
          retryAfter !== null
            ? Math.min(retryAfter * 1000, DEFAULT_RETRY_POLICY.maxRetryAfterMs)
            : backoffDelayMs(attempt, DEFAULT_RETRY_POLICY, this.options.random ?? Math.random);
        this.options.progress?.retry(what, error, attempt + 1, delay);
        await this.options.sleep(delay, this.options.signal);
      }
    }
  }
}

/** A registry answer a step did not expect. */
class UnexpectedAnswer extends ApiError {
  constructor(
    status: number,
    message: string,
    retryAfterSeconds: number | null,
    /** The registry lost the upload (restarted, expired it): start it again. */
    readonly uploadForgotten: boolean,
  ) {
    super(status, message, null, "", "", retryAfterSeconds);
  }
}

/** Failures that may go away on their own: the network, a busy or failing registry, a forgotten upload. */
function isTransient(error: Error): boolean {
  if (error instanceof NetworkError) return true;
  if (!(error instanceof ApiError)) return false;
  const forgotten = error instanceof UnexpectedAnswer && error.uploadForgotten;
  return error.status >= 500 || error.status === 429 || error.status === 408 || forgotten;
}

function expectStatus(response: TransportResponse, statuses: number[], what: string): void {
  if (!statuses.includes(response.status)) throw unexpected(response, what);
}

function unexpected(response: TransportResponse, what: string): ApiError {
  return new UnexpectedAnswer(
    response.status,
    `the registry could not ${what}: HTTP ${response.status}${describeRegistryError(response)}`,
    parseRetryAfter(response.headers["retry-after"], Date.now()),
    response.status === 404 && hasErrorCode(response, "BLOB_UPLOAD_UNKNOWN"),
  );
}

function locationOf(response: TransportResponse, what: string, previous?: string): string {
  const location = response.headers.location ?? previous;
  if (!location) {
    throw new ApiError(502, `the registry did not say where to ${what} (no Location header)`, null, "", what);
  }
  return location;
}
