// The registry's bytes in a directory beside the state file (`--state FILE` -> FILE.registry/):
//
//   blobs/sha256/<hex>              every blob and manifest, named by its digest, write-once
//   repositories/<sha256 of name>   one JSON record per repository: links, manifests, tags
//   uploads/<id>                    uploads under way (never read back after a restart)
//
// Never torn: a blob is written to a temp file (an upload's own file), fsynced and renamed
// into place, and a repository record is replaced whole the same way (atomic-file.ts). A blob
// is in place before the record that names it, so a crash in between leaves a blob no record
// names, which the next start removes; it never leaves a record naming a missing blob.
import { createHash } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { fsyncDirectory, writeFileAtomic } from "../atomic-file.js";
import { EmulatorStartError } from "../start-error.js";
import type { BlobBody, RegistryBackend, RepositoryRecord } from "./backend.js";

interface SavedRecord {
  name: string;
  blobs: string[];
  manifests: Record<string, string>;
  tags: Record<string, string>;
}

export class DirectoryBackend implements RegistryBackend {
  readonly quotaBytes = null;
  private readonly blobsDir: string;
  private readonly repositoriesDir: string;
  private readonly uploadsDir: string;
  private readonly uploads = new Map<string, number>();

  constructor(readonly root: string) {
    this.blobsDir = join(root, "blobs", "sha256");
    this.repositoriesDir = join(root, "repositories");
    this.uploadsDir = join(root, "uploads");
  }

  usedBytes(): number {
    return 0;
  }

  blobSize(digest: string): number | undefined {
    try {
      return statSync(this.blobPath(digest)).size;
    } catch {
      return undefined;
    }
  }

  readBlob(digest: string): BlobBody | undefined {
    const size = this.blobSize(digest);
    return size === undefined ? undefined : { kind: "file", path: this.blobPath(digest), size };
  }

  writeBlob(digest: string, data: Buffer): void {
    if (this.blobSize(digest) !== undefined) return;
    this.makeDirs();
    writeFileAtomic(this.blobPath(digest), data);
  }

  removeBlob(digest: string): void {
    rmSync(this.blobPath(digest), { force: true });
  }

  blobDigests(): Iterable<string> {
    return this.list(this.blobsDir)
      .filter((name) => /^[a-f0-9]{64}$/.test(name))
      .map((hex) => `sha256:${hex}`);
  }

  openUpload(id: string): void {
    this.makeDirs();
    this.uploads.set(id, openSync(this.uploadPath(id), "w", 0o600));
  }

  appendUpload(id: string, chunk: Buffer): void {
    const fd = this.fd(id);
    for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at, chunk.length - at);
  }

  finishUpload(id: string, digest: string): void {
    const fd = this.fd(id);
    if (this.blobSize(digest) !== undefined) {
      this.dropUpload(id);
      return;
    }
    fsyncSync(fd);
    closeSync(fd);
    this.uploads.delete(id);
    renameSync(this.uploadPath(id), this.blobPath(digest));
    fsyncDirectory(this.blobsDir);
  }

  dropUpload(id: string): void {
    const fd = this.uploads.get(id);
    if (fd === undefined) return;
    this.uploads.delete(id);
    closeSync(fd);
    rmSync(this.uploadPath(id), { force: true });
  }

  saveRepository(record: RepositoryRecord): void {
    this.makeDirs();
    const saved: SavedRecord = {
      name: record.name,
      blobs: [...record.blobs],
      manifests: Object.fromEntries(record.manifests),
      tags: Object.fromEntries(record.tags),
    };
    writeFileAtomic(this.recordPath(record.name), JSON.stringify(saved));
  }

  removeRepository(name: string): void {
    rmSync(this.recordPath(name), { force: true });
  }

  /**
   * The records saved, after tidying what a crash can leave: uploads under way (their clients
   * start again), temp files of interrupted writes, blobs no record names. A record that is
   * not one (edited by hand) stops the start rather than be dropped.
   */
  loadRepositories(): RepositoryRecord[] {
    rmSync(this.uploadsDir, { recursive: true, force: true });
    const records: RepositoryRecord[] = [];
    for (const file of this.list(this.repositoriesDir)) {
      const path = join(this.repositoriesDir, file);
      if (file.startsWith(".") && file.endsWith(".tmp")) {
        rmSync(path, { force: true });
        continue;
      }
      records.push(readRecord(path));
    }
    const named = new Set<string>();
    for (const record of records) {
      for (const digest of record.blobs) named.add(digest);
      for (const digest of record.manifests.keys()) named.add(digest);
    }
    for (const file of this.list(this.blobsDir)) {
      if (!named.has(`sha256:${file}`)) rmSync(join(this.blobsDir, file), { force: true });
    }
    // A record naming a blob that is not there was written by hand: leave the link out.
    for (const record of records) {
      for (const digest of record.blobs) if (this.blobSize(digest) === undefined) record.blobs.delete(digest);
    }
    return records;
  }

  clear(): void {
    for (const id of [...this.uploads.keys()]) this.dropUpload(id);
    // Records first: a crash half-way leaves blobs nothing names (removed at the next start).
    rmSync(this.repositoriesDir, { recursive: true, force: true });
    rmSync(this.root, { recursive: true, force: true });
  }

  private fd(id: string): number {
    const fd = this.uploads.get(id);
    if (fd === undefined) throw new Error(`no upload ${id}`);
    return fd;
  }

  private makeDirs(): void {
    for (const dir of [this.blobsDir, this.repositoriesDir, this.uploadsDir]) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    }
  }

  private list(dir: string): string[] {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  }

  private blobPath(digest: string): string {
    return join(this.blobsDir, digest.slice("sha256:".length));
  }

  private uploadPath(id: string): string {
    return join(this.uploadsDir, id);
  }

  private recordPath(name: string): string {
    return join(this.repositoriesDir, `${createHash("sha256").update(name).digest("hex")}.json`);
  }
}

function readRecord(path: string): RepositoryRecord {
  let saved: SavedRecord;
  try {
    saved = JSON.parse(readFileSync(path, "utf8")) as SavedRecord;
    if (
      typeof saved.name !== "string" ||
      !Array.isArray(saved.blobs) ||
      typeof saved.manifests !== "object" ||
      typeof saved.tags !== "object"
    ) {
      throw new Error("it is not a repository record");
    }
  } catch (error) {
    throw new EmulatorStartError(
      `cannot start: the registry record ${path} is unusable (${(error as Error).message}). ` +
        "Move it away to start without that repository; the emulator will not overwrite it.",
    );
  }
  return {
    name: saved.name,
    blobs: new Set(saved.blobs),
    manifests: new Map(Object.entries(saved.manifests)),
    tags: new Map(Object.entries(saved.tags)),
  };
}
