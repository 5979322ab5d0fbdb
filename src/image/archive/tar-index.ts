// The table of contents of a tar file on disk: each entry's name, type, size and where its
// bytes start, read header by header without loading the archive (image archives run to
// gigabytes). Reads ustar names with their prefix, PAX `path`/`linkpath`/`size` records and GNU
// long names, as `docker save`, `podman save`, buildx and skopeo write them. Bounded: a hostile
// or damaged file stops the reading with an error, never a hang.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import {
  BLOCK,
  checksumMatches,
  cString,
  headerNumber,
  headerText,
  parsePax,
} from "../../util/tar-fields.js";

/** More entries than any image archive has: a bound on the work a damaged file can cause. */
const MAX_ENTRIES = 200_000;
/** The largest PAX or GNU long-name record read. */
const MAX_META_BYTES = 1024 * 1024;

export type TarEntryKind = "file" | "directory" | "symlink" | "hardlink" | "other";

export interface TarEntry {
  /** Normalised: no leading `./` or `/`, no trailing `/`. */
  name: string;
  kind: TarEntryKind;
  size: number;
  /** Where the content starts in the file. */
  offset: number;
  /** Target of a link, as written. */
  link: string;
}

export class TarFormatError extends Error {}

/** Reads the headers of the tar at `path`. Throws TarFormatError when it is not a tar. */
export function indexTar(path: string): TarEntry[] {
  const fd = openSync(path, "r");
  try {
    return indexOpenTar(fd, fstatSync(fd).size);
  } finally {
    closeSync(fd);
  }
}

function indexOpenTar(fd: number, fileSize: number): TarEntry[] {
  const entries: TarEntry[] = [];
  const header = Buffer.alloc(BLOCK);
  let offset = 0;
  let pax: Record<string, string> = {};
  let longName: string | null = null;
  let longLink: string | null = null;
  while (offset + BLOCK <= fileSize) {
    if (readSync(fd, header, 0, BLOCK, offset) !== BLOCK)
      throw new TarFormatError("the file ends in a header");
    if (header.every((byte) => byte === 0)) break;
    if (!checksumMatches(header)) {
      throw new TarFormatError(
        offset === 0 ? "it is not a tar archive" : `damaged tar header at byte ${offset}`,
      );
    }
    const type = String.fromCharCode(header[156]!);
    const size = pax.size !== undefined ? Number(pax.size) : headerNumber(header, 124, 12);
    if (!Number.isSafeInteger(size) || size < 0) throw new TarFormatError(`bad entry size at byte ${offset}`);
    const contentAt = offset + BLOCK;
    if (contentAt + size > fileSize) throw new TarFormatError("the archive is cut short");
    offset = contentAt + Math.ceil(size / BLOCK) * BLOCK;

    if (type === "x" || type === "L" || type === "K") {
      if (size > MAX_META_BYTES) throw new TarFormatError(`oversized tar metadata at byte ${contentAt}`);
      const body = Buffer.alloc(size);
      readSync(fd, body, 0, size, contentAt);
      if (type === "x") pax = parsePax(body);
      else if (type === "L") longName = cString(body);
      else longLink = cString(body);
      continue;
    }
    if (type === "g") continue; // global PAX header: nothing cpctl needs
    const prefix = headerText(header, 345, 155);
    const rawName =
      pax.path ??
      longName ??
      (prefix ? `${prefix}/${headerText(header, 0, 100)}` : headerText(header, 0, 100));
    entries.push({
      name: normalise(rawName),
      kind: kindOf(type),
      size,
      offset: contentAt,
      link: pax.linkpath ?? longLink ?? headerText(header, 157, 100),
    });
    if (entries.length > MAX_ENTRIES) throw new TarFormatError(`more than ${MAX_ENTRIES} entries`);
    pax = {};
    longName = null;
    longLink = null;
  }
  if (entries.length === 0 && offset === 0) throw new TarFormatError("it is not a tar archive");
  return entries;
}

export function normalise(name: string): string {
  return name.replace(/^(?:\.\/|\/)+/, "").replace(/\/+$/, "");
}

function kindOf(type: string): TarEntryKind {
  if (type === "0" || type === "\0" || type === "7") return "file";
  if (type === "5") return "directory";
  if (type === "2") return "symlink";
  if (type === "1") return "hardlink";
  return "other";
}
