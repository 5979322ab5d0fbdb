// The files of an image archive, wherever they are: a directory (an OCI layout on disk:
// directory.ts) or a tar file (a `docker save` archive, an OCI layout packed by podman, buildx
// or skopeo: here). Paths come from the archive's own JSON, so they are checked: nothing
// outside the directory or the tar is ever read, and a link inside a tar is followed only to
// another entry of the tar.
import { closeSync, createReadStream, openSync, readSync } from "node:fs";
import { Readable } from "node:stream";
import { normalise, type TarEntry } from "./tar-index.js";

/** One file's bytes, read by position (uploads send them a chunk at a time) or as a stream. */
export interface FileBytes {
  readonly size: number;
  /** The same for every path that leads to the same bytes (a link, a hard link, a path listed twice). */
  readonly key: string;
  read(position: number, length: number): Buffer;
  stream(): Readable;
}

export interface ImageFiles {
  /** The path as given, for messages: "./oci", "image.tar". */
  readonly describe: string;
  /** The file at `path` (relative, `/`-separated), or null when there is none. */
  file(path: string): FileBytes | null;
  close(): void;
}

/** A path of the archive that stays inside it, or null (absolute, `..`, empty). */
export function safePath(path: string): string | null {
  const clean = normalise(path.replace(/\\/g, "/"));
  if (clean === "" || clean.split("/").some((part) => part === ".." || part === "")) return null;
  return clean
    .split("/")
    .filter((part) => part !== ".")
    .join("/");
}

const MAX_LINK_HOPS = 16;

export class TarFiles implements ImageFiles {
  private readonly entries = new Map<string, TarEntry>();
  private fd: number | null;

  constructor(
    path: string,
    entries: TarEntry[],
    readonly describe: string,
  ) {
    for (const entry of entries) this.entries.set(entry.name, entry);
    this.fd = openSync(path, "r");
  }

  file(path: string): FileBytes | null {
    const entry = this.resolve(path);
    if (!entry) return null;
    const { offset, size } = entry;
    return {
      size,
      key: `tar:${offset}`,
      read: (position, length) => {
        if (this.fd === null) throw new Error("the archive is closed");
        return readExactly(this.fd, offset + position, Math.min(length, size - position));
      },
      // createReadStream has no way to say "no bytes" (end is inclusive). The descriptor opened
      // at the start, not the path again: the file indexed is the one read.
      stream: () => {
        if (this.fd === null) throw new Error("the archive is closed");
        return size === 0
          ? Readable.from([])
          : createReadStream("", { fd: this.fd, autoClose: false, start: offset, end: offset + size - 1 });
      },
    };
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** The regular-file entry `path` names, through symbolic and hard links within the tar. */
  private resolve(path: string): TarEntry | null {
    let clean = safePath(path);
    for (let hop = 0; hop < MAX_LINK_HOPS && clean !== null; hop++) {
      const entry = this.entries.get(clean);
      if (!entry) return null;
      if (entry.kind === "file") return entry;
      if (entry.kind === "hardlink") clean = safePath(entry.link);
      else if (entry.kind === "symlink") {
        const base = clean.includes("/") ? clean.slice(0, clean.lastIndexOf("/")) : "";
        clean = entry.link.startsWith("/") ? safePath(entry.link) : resolveRelative(base, entry.link);
      } else return null;
    }
    return null;
  }
}

function resolveRelative(base: string, link: string): string | null {
  const parts = base === "" ? [] : base.split("/");
  for (const part of link.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(part);
  }
  return parts.length ? parts.join("/") : null;
}

export function readExactly(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(Math.max(0, length));
  let done = 0;
  while (done < buffer.length) {
    const read = readSync(fd, buffer, done, buffer.length - done, position + done);
    if (read === 0) throw new Error("the file is shorter than it was");
    done += read;
  }
  return buffer;
}
