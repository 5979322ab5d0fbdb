// A small POSIX tar (ustar) writer: regular files and directories, nothing else.
//
// - Names up to 100 bytes go in the `name` field; longer ASCII names are split at a `/`
//   between `prefix` (155 bytes) and `name` (100 bytes), as ustar allows. A name that cannot
//   be split that way, or that is not ASCII, gets a PAX extended header (`x`) with a `path`
//   record, which GNU tar, bsdtar and every current reader honour; the ustar header then
//   carries an ASCII fallback name.
// - A size above the 11-octal-digit field (8 GiB) goes in a PAX `size` record.
// - Owner 0:0 with no user or group names, and one fixed mtime, so that the same files give
//   the same bytes on every machine.
//
// The functions here only produce header bytes; pack.ts streams file contents between them.
import { BLOCK } from "../util/tar-fields.js";

/** 1985-10-26T08:15:00Z, the fixed mtime npm gives the files of its tarballs. */
export const FIXED_MTIME = 499_162_500;

export type TarEntryType = "file" | "directory";

export interface TarEntry {
  /** Relative POSIX path, without a leading `./` or a trailing `/`. */
  path: string;
  type: TarEntryType;
  /** Permission bits, e.g. 0o644. */
  mode: number;
  /** Content length in bytes; 0 for directories. */
  size: number;
  /** Seconds since the epoch; default FIXED_MTIME. */
  mtime?: number;
}

const NAME_MAX = 100;
const PREFIX_MAX = 155;
/** Largest value of an 11-digit octal field. */
const OCTAL_11_MAX = 8 ** 11 - 1;

/** The end of an archive: two zero blocks. */
export function endOfArchive(): Buffer {
  return Buffer.alloc(2 * BLOCK);
}

/** Zero bytes that bring `size` bytes of content to a whole number of blocks. */
export function padding(size: number): Buffer {
  const rest = size % BLOCK;
  return Buffer.alloc(rest === 0 ? 0 : BLOCK - rest);
}

/** The header block(s) of one entry: a PAX header first when the entry needs one. */
export function entryHeader(entry: TarEntry): Buffer {
  checkPath(entry.path);
  const fullName = entry.type === "directory" ? `${entry.path}/` : entry.path;
  const mtime = entry.mtime ?? FIXED_MTIME;
  const split = isAscii(fullName) ? splitName(fullName) : null;
  const records: [string, string][] = [];
  if (!split) records.push(["path", fullName]);
  if (entry.size > OCTAL_11_MAX) records.push(["size", String(entry.size)]);

  const blocks: Buffer[] = [];
  if (records.length > 0) {
    const body = paxBody(records);
    blocks.push(
      ustarHeader({
        name: paxHeaderName(fullName),
        prefix: "",
        type: "x",
        mode: 0o644,
        size: body.length,
        mtime,
      }),
      body,
      padding(body.length),
    );
  }
  const names = split ?? fallbackName(fullName);
  blocks.push(
    ustarHeader({
      ...names,
      type: entry.type === "directory" ? "5" : "0",
      mode: entry.mode & 0o7777,
      size: entry.size > OCTAL_11_MAX ? 0 : entry.size,
      mtime,
    }),
  );
  return blocks.length === 1 ? blocks[0]! : Buffer.concat(blocks);
}

interface HeaderFields {
  name: string;
  prefix: string;
  type: "0" | "5" | "x";
  mode: number;
  size: number;
  mtime: number;
}

/**
 * What every header holds, written once: owner 0:0 with no user or group names, the ustar
 * magic and version, device 0:0 (zeros, as GNU tar writes them), and the checksum field as
 * the spaces it is summed as. A header starts as a copy, and its checksum from their sum.
 */
const COMMON = (() => {
  const header = Buffer.alloc(BLOCK);
  writeOctal(header, 108, 8, 0); // uid
  writeOctal(header, 116, 8, 0); // gid
  header.fill(0x20, 148, 156);
  header.write("ustar\0", 257, "ascii");
  header.write("00", 263, "ascii");
  writeOctal(header, 329, 8, 0); // devmajor
  writeOctal(header, 337, 8, 0); // devminor
  return header;
})();
const COMMON_SUM = sumOf(COMMON, 0, BLOCK);

function ustarHeader(fields: HeaderFields): Buffer {
  // From Node's shared pool (a block is small enough): one header a file makes no garbage of
  // its own memory.
  const header = Buffer.allocUnsafe(BLOCK);
  COMMON.copy(header);
  const nameBytes = writeString(header, 0, NAME_MAX, fields.name);
  writeOctal(header, 100, 8, fields.mode);
  writeOctal(header, 124, 12, fields.size);
  writeOctal(header, 136, 12, fields.mtime);
  header[156] = fields.type.charCodeAt(0);
  const prefixBytes = writeString(header, 345, PREFIX_MAX, fields.prefix);
  // Only what was written since the copy is summed (summing all 512 bytes of each header was
  // most of the time a header took).
  const sum =
    COMMON_SUM +
    sumOf(header, 0, nameBytes) +
    sumOf(header, 100, 108) +
    sumOf(header, 124, 148) +
    header[156]! +
    sumOf(header, 345, 345 + prefixBytes);
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
  return header;
}

/** Writes `value` as UTF-8; returns the bytes written. */
function writeString(header: Buffer, offset: number, length: number, value: string): number {
  if (Buffer.byteLength(value, "utf8") > length)
    throw new Error(`tar: '${value}' does not fit in ${length} bytes`);
  return header.write(value, offset, length, "utf8");
}

function sumOf(bytes: Buffer, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += bytes[i]!;
  return sum;
}

/** An octal number of `length - 1` digits and a NUL. */
function writeOctal(header: Buffer, offset: number, length: number, value: number): void {
  const digits = value.toString(8).padStart(length - 1, "0");
  if (digits.length > length - 1) throw new Error(`tar: ${value} does not fit in ${length - 1} octal digits`);
  header.write(`${digits}\0`, offset, "ascii");
}

/** `name` alone, or split into `prefix` + `/` + `name`; null when ustar cannot hold it. */
export function splitName(fullName: string): { name: string; prefix: string } | null {
  if (fullName.length <= NAME_MAX) return { name: fullName, prefix: "" };
  // A directory's trailing slash stays in `name`; the split is at an inner slash.
  const searchEnd = fullName.endsWith("/") ? fullName.length - 2 : fullName.length - 1;
  for (let i = Math.min(PREFIX_MAX, searchEnd); i > 0; i--) {
    if (fullName[i] !== "/") continue;
    const name = fullName.slice(i + 1);
    if (name.length > NAME_MAX) return null; // shorter prefixes only lengthen the name
    if (name.length > 0) return { name, prefix: fullName.slice(0, i) };
  }
  return null;
}

/** PAX records: `<length> <key>=<value>\n`, the length counting the whole record in bytes. */
function paxBody(records: [string, string][]): Buffer {
  const lines = records.map(([key, value]) => {
    const rest = ` ${key}=${value}\n`;
    const restBytes = Buffer.byteLength(rest, "utf8");
    let length = restBytes + 1;
    while (String(length).length + restBytes !== length) length = String(length).length + restBytes;
    return `${length}${rest}`;
  });
  return Buffer.from(lines.join(""), "utf8");
}

/** What a reader that ignores PAX headers would see: an ASCII, truncated form. */
function fallbackName(fullName: string): { name: string; prefix: string } {
  const ascii = fullName.replace(/[^\x20-\x7e]/g, "_");
  return splitName(ascii) ?? { name: ascii.slice(-NAME_MAX), prefix: "" };
}

function paxHeaderName(fullName: string): string {
  const base = fullName.replace(/\/$/, "").split("/").at(-1) ?? "";
  return `PaxHeaders/${base.replace(/[^\x20-\x7e]/g, "_")}`.slice(0, NAME_MAX);
}

function isAscii(text: string): boolean {
  return /^[\x20-\x7e]*$/.test(text);
}

function checkPath(path: string): void {
  if (
    path === "" ||
    path.startsWith("/") ||
    path.endsWith("/") ||
    path.includes("\0") ||
    path.split("/").some((part) => part === "" || part === "." || part === "..")
  ) {
    throw new Error(`tar: not a clean relative path: ${JSON.stringify(path)}`);
  }
}
