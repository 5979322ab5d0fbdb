// What the registry holds, and the rules of holding it: blobs are content-addressed and
// shared, but a repository serves only those linked into it (uploaded or mounted there), as
// the distribution registry does, so that one tenant cannot read another's layers by digest;
// manifests are blobs too, listed per repository with their media type; tags name manifests.
// Uploads under way are kept apart until their digest is checked. Bytes live in a backend:
// memory (with a quota) or a directory beside the state file.
import { createHash, type Hash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { BlobBody, RegistryBackend, RepositoryRecord } from "./backend.js";
import { digestInvalid, RegistryError, uploadUnknown } from "./errors.js";

/** What an in-memory registry holds at most, blobs and uploads under way together. */
export const DEFAULT_MEMORY_REGISTRY_QUOTA_BYTES = 512 * 1024 * 1024;
/** The largest blob one upload may make. */
export const MAX_BLOB_BYTES = 10 * 1024 * 1024 * 1024;
/** An upload nobody has written to for this long is dropped (its client gave up). */
export const ABANDONED_UPLOAD_MS = 60 * 60 * 1000;

export interface UploadSession {
  id: string;
  repository: string;
  size: number;
  hash: Hash;
  /** Emulator-clock time of the last write. */
  touchedAt: number;
  /** A request is writing to it: a second one at the same time is refused. */
  busy: boolean;
}

export interface StoredManifest {
  digest: string;
  mediaType: string;
  body: Buffer;
}

export class RegistryStorage {
  private readonly repositories = new Map<string, RepositoryRecord>();
  private readonly uploads = new Map<string, UploadSession>();

  constructor(private readonly backend: RegistryBackend) {
    for (const record of backend.loadRepositories()) this.repositories.set(record.name, record);
  }

  // --- reads ---

  /** The size of `digest` if it is linked into `repository`. */
  blobSize(repository: string, digest: string): number | undefined {
    if (!this.repositories.get(repository)?.blobs.has(digest)) return undefined;
    return this.backend.blobSize(digest);
  }

  readBlob(repository: string, digest: string): BlobBody | undefined {
    const record = this.repositories.get(repository);
    if (!record?.blobs.has(digest) && !record?.manifests.has(digest)) return undefined;
    return this.backend.readBlob(digest);
  }

  /** A manifest of `repository` by tag or digest. */
  manifest(repository: string, reference: string): StoredManifest | undefined {
    const record = this.repositories.get(repository);
    if (!record) return undefined;
    const digest = reference.includes(":") ? reference : record.tags.get(reference);
    const mediaType = digest === undefined ? undefined : record.manifests.get(digest);
    if (digest === undefined || mediaType === undefined) return undefined;
    const body = this.backend.readBlob(digest);
    if (!body) return undefined;
    return { digest, mediaType, body: body.kind === "buffer" ? body.data : readFileSync(body.path) };
  }

  /** Whether `repository` holds the manifest `digest` (without reading it). */
  hasManifest(repository: string, digest: string): boolean {
    return this.repositories.get(repository)?.manifests.has(digest) ?? false;
  }

  /** Whether a tag or digest of `repository` names a manifest it holds. */
  resolves(repository: string, reference: string): boolean {
    const record = this.repositories.get(repository);
    const digest = reference.includes(":") ? reference : record?.tags.get(reference);
    return digest !== undefined && (record?.manifests.has(digest) ?? false);
  }

  tags(repository: string): string[] | undefined {
    const record = this.repositories.get(repository);
    return record ? [...record.tags.keys()].sort() : undefined;
  }

  repositoryExists(repository: string): boolean {
    return this.repositories.has(repository);
  }

  // --- uploads ---

  startUpload(repository: string, now: number): UploadSession {
    this.dropAbandonedUploads(now);
    const session: UploadSession = {
      id: randomUUID(),
      repository,
      size: 0,
      hash: createHash("sha256"),
      touchedAt: now,
      busy: false,
    };
    this.backend.openUpload(session.id);
    this.uploads.set(session.id, session);
    return session;
  }

  /** The upload `id` of `repository`; a 404 for any other. */
  upload(repository: string, id: string): UploadSession {
    const session = this.uploads.get(id);
    if (!session || session.repository !== repository) throw uploadUnknown(id);
    return session;
  }

  /** Appends to an upload, within the quota and the largest blob. */
  append(session: UploadSession, chunk: Buffer, now: number): void {
    if (!this.uploads.has(session.id)) throw uploadUnknown(session.id);
    if (session.size + chunk.length > MAX_BLOB_BYTES) {
      throw new RegistryError(
        413,
        "SIZE_INVALID",
        `a blob may be at most ${MAX_BLOB_BYTES} bytes in the emulator's registry`,
      );
    }
    const quota = this.backend.quotaBytes;
    if (quota !== null && this.backend.usedBytes() + chunk.length > quota) {
      throw new RegistryError(
        413,
        "DENIED",
        `the emulator's in-memory registry is full: it keeps at most ${quota} bytes of blobs and uploads. Delete deployments you no longer need, or run the emulator with --state (files have no cap).`,
      );
    }
    this.backend.appendUpload(session.id, chunk);
    session.hash.update(chunk);
    session.size += chunk.length;
    session.touchedAt = now;
  }

  /** Ends an upload as the blob `digest`, linked into its repository, if its bytes have that digest. */
  complete(session: UploadSession, digest: string): void {
    if (!this.uploads.has(session.id)) throw uploadUnknown(session.id);
    const actual = `sha256:${session.hash.copy().digest("hex")}`;
    if (actual !== digest) {
      throw digestInvalid(
        `provided digest did not match uploaded content: the ${session.size} bytes uploaded have digest ${actual}`,
        { digest, actual },
      );
    }
    this.uploads.delete(session.id);
    this.backend.finishUpload(session.id, digest);
    this.link(session.repository, digest);
  }

  cancel(session: UploadSession): void {
    this.uploads.delete(session.id);
    this.backend.dropUpload(session.id);
  }

  /** Links a blob `from` holds into `repository` (a cross-repository mount); false when `from` does not hold it. */
  mount(repository: string, from: string, digest: string): boolean {
    if (this.blobSize(from, digest) === undefined) return false;
    this.link(repository, digest);
    return true;
  }

  // --- manifests ---

  putManifest(repository: string, manifest: StoredManifest, tag: string | null): void {
    this.backend.writeBlob(manifest.digest, manifest.body);
    const record = this.record(repository);
    record.manifests.set(manifest.digest, manifest.mediaType);
    if (tag !== null) record.tags.set(tag, manifest.digest);
    this.backend.saveRepository(record);
  }

  /** Checks a manifest's size against the quota before it is stored. */
  checkRoom(bytes: number): void {
    const quota = this.backend.quotaBytes;
    if (quota !== null && this.backend.usedBytes() + bytes > quota) {
      throw new RegistryError(413, "DENIED", "the emulator's in-memory registry is full");
    }
  }

  // --- removal ---

  /** Removes the repositories whose names start with `prefix`, then the blobs nothing links any more. */
  removeRepositories(prefix: string): void {
    let removed = false;
    for (const name of [...this.repositories.keys()]) {
      if (!name.startsWith(prefix)) continue;
      this.repositories.delete(name);
      this.backend.removeRepository(name);
      removed = true;
    }
    for (const session of [...this.uploads.values()]) {
      if (session.repository.startsWith(prefix)) this.cancel(session);
    }
    if (removed) this.removeUnlinkedBlobs();
  }

  reset(): void {
    this.repositories.clear();
    this.uploads.clear();
    this.backend.clear();
  }

  // --- internals ---

  private link(repository: string, digest: string): void {
    const record = this.record(repository);
    if (record.blobs.has(digest)) return;
    record.blobs.add(digest);
    this.backend.saveRepository(record);
  }

  private record(name: string): RepositoryRecord {
    let record = this.repositories.get(name);
    if (!record) {
      record = { name, blobs: new Set(), manifests: new Map(), tags: new Map() };
      this.repositories.set(name, record);
    }
    return record;
  }

  private removeUnlinkedBlobs(): void {
    const linked = new Set<string>();
    for (const record of this.repositories.values()) {
      for (const digest of record.blobs) linked.add(digest);
      for (const digest of record.manifests.keys()) linked.add(digest);
    }
    for (const digest of this.backend.blobDigests()) if (!linked.has(digest)) this.backend.removeBlob(digest);
  }

  private dropAbandonedUploads(now: number): void {
    for (const session of [...this.uploads.values()]) {
      if (!session.busy && now - session.touchedAt > ABANDONED_UPLOAD_MS) this.cancel(session);
    }
  }
}
