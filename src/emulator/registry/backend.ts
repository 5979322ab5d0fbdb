// Where the registry's bytes live: in memory, or in a directory beside the state file
// (directory-backend.ts). The storage (storage.ts) keeps the rules; a backend only keeps bytes
// and repository records, and says how much it holds.

/** A repository's record: what it links, which manifests it holds, its tags. */
export interface RepositoryRecord {
  name: string;
  /** Blobs uploaded to (or mounted into) this repository: only these are served from it. */
  blobs: Set<string>;
  /** Manifest digest -> its media type. */
  manifests: Map<string, string>;
  /** Tag -> manifest digest. */
  tags: Map<string, string>;
}

/** A blob's bytes: in memory, or a file to stream (its size read when it was looked up). */
export type BlobBody = { kind: "buffer"; data: Buffer } | { kind: "file"; path: string; size: number };

export interface RegistryBackend {
  /** Bytes held of blobs and uploads together; null where no quota applies (files). */
  readonly quotaBytes: number | null;
  usedBytes(): number;

  blobSize(digest: string): number | undefined;
  readBlob(digest: string): BlobBody | undefined;
  /** Stores a blob whole (write-once: nothing happens when it is there already). */
  writeBlob(digest: string, data: Buffer): void;
  removeBlob(digest: string): void;
  blobDigests(): Iterable<string>;

  openUpload(id: string): void;
  appendUpload(id: string, chunk: Buffer): void;
  /** The upload's bytes become the blob `digest` (dropped when that blob is already stored). */
  finishUpload(id: string, digest: string): void;
  dropUpload(id: string): void;

  saveRepository(record: RepositoryRecord): void;
  removeRepository(name: string): void;
  loadRepositories(): RepositoryRecord[];
  /** Everything gone (a reset). */
  clear(): void;
}

export class MemoryBackend implements RegistryBackend {
  private readonly blobs = new Map<string, Buffer>();
  private readonly uploads = new Map<string, { chunks: Buffer[]; size: number }>();
  private blobBytes = 0;
  private uploadBytes = 0;

  constructor(readonly quotaBytes: number | null) {}

  usedBytes(): number {
    return this.blobBytes + this.uploadBytes;
  }

  blobSize(digest: string): number | undefined {
    return this.blobs.get(digest)?.length;
  }

  readBlob(digest: string): BlobBody | undefined {
    const data = this.blobs.get(digest);
    return data ? { kind: "buffer", data } : undefined;
  }

  writeBlob(digest: string, data: Buffer): void {
    if (this.blobs.has(digest)) return;
    this.blobs.set(digest, data);
    this.blobBytes += data.length;
  }

  removeBlob(digest: string): void {
    const data = this.blobs.get(digest);
    if (!data) return;
    this.blobs.delete(digest);
    this.blobBytes -= data.length;
  }

  blobDigests(): Iterable<string> {
    return [...this.blobs.keys()];
  }

  openUpload(id: string): void {
    this.uploads.set(id, { chunks: [], size: 0 });
  }

  appendUpload(id: string, chunk: Buffer): void {
    const upload = this.uploads.get(id);
    if (!upload) throw new Error(`no upload ${id}`);
    upload.chunks.push(chunk);
    upload.size += chunk.length;
    this.uploadBytes += chunk.length;
  }

  finishUpload(id: string, digest: string): void {
    const upload = this.uploads.get(id);
    if (!upload) throw new Error(`no upload ${id}`);
    this.dropUpload(id);
    this.writeBlob(digest, Buffer.concat(upload.chunks, upload.size));
  }

  dropUpload(id: string): void {
    const upload = this.uploads.get(id);
    if (!upload) return;
    this.uploads.delete(id);
    this.uploadBytes -= upload.size;
  }

  saveRepository(): void {
    // The storage's records are the only copy: nothing to save.
  }

  removeRepository(): void {}

  loadRepositories(): RepositoryRecord[] {
    return [];
  }

  clear(): void {
    this.blobs.clear();
    this.uploads.clear();
    this.blobBytes = 0;
    this.uploadBytes = 0;
  }
}
