// A minimal tar reader: ustar headers, the prefix field and PAX `path`/`size` records. The
// tests of the writer (upload/tar.ts) read whole archives with it; the emulator walks the headers of
// uploaded tarballs to name their files in build logs, so it must not hang on hostile input
// (it throws, or stops, at the first entry it cannot read).
import { gunzipSync } from "node:zlib";
import { BLOCK, checksumMatches, headerNumber, headerText, parsePax } from "./tar-fields.js";

interface TarHeader {
  path: string;
  type: string;
  mode: number;
  size: number;
  mtime: number;
  uid: number;
  gid: number;
}

interface ReadEntry extends TarHeader {
  content: Buffer;
}

export function readTarGz(gzipped: Buffer): ReadEntry[] {
  return readTar(gunzipSync(gzipped));
}

export function readTar(tar: Buffer): ReadEntry[] {
  const entries: ReadEntry[] = [];
  walkTar(tar, (header, content) => {
    entries.push({ ...header, content: Buffer.from(content) });
  });
  return entries;
}

/**
 * Calls `visit` with each entry's header and content (a view into `tar`, short when `tar` is
 * cut short), in order, until the end-of-archive block or the end of `tar`. Throws on a
 * header whose checksum is wrong. PAX headers are applied, not visited.
 */
export function walkTar(tar: Buffer, visit: (header: TarHeader, content: Buffer) => void): void {
  let offset = 0;
  let pax: Record<string, string> = {};
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    checkChecksum(header, offset);
    const type = String.fromCharCode(header[156]!);
    const size = pax.size !== undefined ? Number(pax.size) : headerNumber(header, 124, 12);
    // A negative or unreadable size would move `offset` back or nowhere.
    if (!Number.isSafeInteger(size) || size < 0) throw new Error(`bad entry size at offset ${offset}`);
    const content = tar.subarray(offset + BLOCK, offset + BLOCK + size);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === "x") {
      pax = parsePax(content);
      continue;
    }
    const name = headerText(header, 0, 100);
    const prefix = headerText(header, 345, 155);
    visit(
      {
        path: pax.path ?? (prefix ? `${prefix}/${name}` : name),
        type,
        mode: headerNumber(header, 100, 8),
        size,
        mtime: headerNumber(header, 136, 12),
        uid: headerNumber(header, 108, 8),
        gid: headerNumber(header, 116, 8),
      },
      content,
    );
    pax = {};
  }
}

function checkChecksum(header: Buffer, offset: number): void {
  if (!checksumMatches(header)) throw new Error(`bad header checksum at offset ${offset}`);
}
