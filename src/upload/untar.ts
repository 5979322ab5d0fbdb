// A minimal tar reader: ustar headers, the prefix field and PAX `path`/`size` records. The
// tests of the writer (tar.ts) read whole archives with it; the emulator walks the headers of
// uploaded tarballs to name their files in build logs, so it must not hang on hostile input
// (it throws, or stops, at the first entry it cannot read).
import { gunzipSync } from "node:zlib";
import { BLOCK } from "./tar.js";

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
    const size = pax.size !== undefined ? Number(pax.size) : octal(header, 124, 12);
    // A negative or unreadable size would move `offset` back or nowhere.
    if (!Number.isSafeInteger(size) || size < 0) throw new Error(`bad entry size at offset ${offset}`);
    const content = tar.subarray(offset + BLOCK, offset + BLOCK + size);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === "x") {
      pax = parsePax(content);
      continue;
    }
    const name = text(header, 0, 100);
    const prefix = text(header, 345, 155);
    visit(
      {
        path: pax.path ?? (prefix ? `${prefix}/${name}` : name),
        type,
        mode: octal(header, 100, 8),
        size,
        mtime: octal(header, 136, 12),
        uid: octal(header, 108, 8),
        gid: octal(header, 116, 8),
      },
      content,
    );
    pax = {};
  }
}

function checkChecksum(header: Buffer, offset: number): void {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  if (sum !== octal(header, 148, 8)) throw new Error(`bad header checksum at offset ${offset}`);
}

function parsePax(body: Buffer): Record<string, string> {
  const records: Record<string, string> = {};
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const length = Number(body.subarray(at, space).toString("ascii"));
    // A record that does not say how long it is (garbage) would never move `at`: stop.
    if (space < 0 || !Number.isInteger(length) || length <= 0) break;
    const record = body.subarray(space + 1, at + length - 1).toString("utf8");
    const equals = record.indexOf("=");
    records[record.slice(0, equals)] = record.slice(equals + 1);
    at += length;
  }
  return records;
}

function text(header: Buffer, offset: number, length: number): string {
  const field = header.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? length : end).toString("utf8");
}

function octal(header: Buffer, offset: number, length: number): number {
  const value = text(header, offset, length).trim();
  return value === "" ? 0 : Number.parseInt(value, 8);
}
