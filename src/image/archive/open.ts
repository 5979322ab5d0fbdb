// `--image-archive FILE`: a directory or a file (tar, or gzipped tar), told apart by what it
// holds: manifest.json is a docker archive (docker-archive.ts), index.json an OCI layout
// (oci-layout.ts). Anything else is refused with the list of formats read. A gzipped archive is
// unpacked into the private temporary directory first (a tar needs random access), up to a
// bound (unpack.ts). What the temporary directory holds is thus bounded by the archive: the
// unpacked tar, and the layers a docker archive has compressed (each distinct layer once).
import { closeSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { InterruptedError, UsageError } from "../../errors.js";
import { formatBytes } from "../../util/bytes.js";
import type { PushPlan } from "../plan.js";
import { makeTempDir } from "../temp-dirs.js";
import { FORMATS_READ } from "./damaged.js";
import { DirectoryFiles } from "./directory.js";
import { dockerArchivePlan } from "./docker-archive.js";
import { type ImageFiles, TarFiles } from "./files.js";
import { ociLayoutPlan } from "./oci-layout.js";
import { indexTar, TarFormatError } from "./tar-index.js";
import { INFLATE_RATIO, InflateLimitError, MIN_INFLATE_BYTES, unpackGzip } from "./unpack.js";

export interface OpenedArchive {
  plan: PushPlan;
  /** Closes the archive and removes the temporary directory (compressed layers, an unpacked tar). */
  close(): void;
}

export interface OpenOptions {
  cwd: string;
  signal?: AbortSignal;
  note?: (text: string) => void;
}

export async function openImageArchive(path: string, options: OpenOptions): Promise<OpenedArchive> {
  const full = resolve(options.cwd, path);
  let isDirectory: boolean;
  try {
    const stat = statSync(full);
    if (!stat.isDirectory() && !stat.isFile()) throw new Error("not a file");
    isDirectory = stat.isDirectory();
  } catch {
    throw new UsageError(
      `--image-archive: ${path} does not exist or is not a file or directory (it takes ${FORMATS_READ})`,
    );
  }
  const tempDir = makeTempDir("image");
  let files: ImageFiles | null = null;
  const close = () => {
    files?.close();
    rmSync(tempDir, { recursive: true, force: true });
  };
  try {
    files = isDirectory ? new DirectoryFiles(full, path) : await tarFiles(full, path, tempDir, options);
    const plan = files.file("manifest.json")
      ? await dockerArchivePlan(files, { tempDir, signal: options.signal, note: options.note })
      : files.file("index.json")
        ? await ociLayoutPlan(files, { signal: options.signal, note: options.note })
        : null;
    if (!plan) {
      throw new UsageError(
        `--image-archive: ${path} is not an image archive (no manifest.json or index.json in it); cpctl reads ${FORMATS_READ}`,
      );
    }
    return { plan, close };
  } catch (error) {
    close();
    if (isAbort(error)) throw new InterruptedError();
    throw error;
  }
}

async function tarFiles(
  full: string,
  shown: string,
  tempDir: string,
  options: OpenOptions,
): Promise<TarFiles> {
  let tarPath = full;
  if (startsWithGzip(full)) {
    options.note?.(`unpacking ${shown}`);
    tarPath = join(tempDir, "archive.tar");
    try {
      await unpackGzip(full, tarPath, { signal: options.signal });
    } catch (error) {
      if (isAbort(error)) throw error;
      if (error instanceof InflateLimitError) {
        throw new UsageError(
          `--image-archive: ${shown} unpacks to more than ${formatBytes(error.limit)} (${INFLATE_RATIO} times its own size, at least ${formatBytes(MIN_INFLATE_BYTES)}), where cpctl stops, so that a damaged or hostile file cannot fill the disk. If it is an image, unpack it yourself (gunzip -k ${shown}) and push the .tar: a tar is read where it is, with no copy`,
        );
      }
      throw new UsageError(
        `--image-archive: ${shown} starts like gzip but does not unpack (${(error as Error).message})`,
      );
    }
  }
  try {
    return new TarFiles(tarPath, indexTar(tarPath), shown);
  } catch (error) {
    if (!(error instanceof TarFormatError)) throw error;
    throw new UsageError(
      `--image-archive: ${shown} is not an image archive (${error.message}); cpctl reads ${FORMATS_READ}`,
    );
  }
}

function startsWithGzip(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

function isAbort(error: unknown): boolean {
  return error instanceof InterruptedError || (error instanceof Error && error.name === "AbortError");
}
