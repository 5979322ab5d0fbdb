// Reading the fields of a tar header block, one rule for both readers: the emulator's
// (util/untar.ts, the headers of uploaded tarballs) and image archives' (image/archive/
// tar-index.ts). Each stops at what it cannot read; nothing here can loop on hostile bytes.

/** A tar archive is made of blocks of this many bytes: headers, contents padded, the end. */
export const BLOCK = 512;

/** A header block's checksum is right: the sum of its bytes, the checksum field read as spaces. */
export function checksumMatches(header: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  return sum === headerNumber(header, 148, 8);
}

/** A NUL-ended string (a header field, or a GNU long name's body). */
export function cString(body: Buffer): string {
  const end = body.indexOf(0);
  return body.subarray(0, end < 0 ? body.length : end).toString("utf8");
}

export function headerText(header: Buffer, offset: number, length: number): string {
  return cString(header.subarray(offset, offset + length));
}

/** A numeric field: octal text, or base-256 when its first byte has the high bit (GNU, large sizes). */
export function headerNumber(header: Buffer, offset: number, length: number): number {
  if (header[offset]! & 0x80) {
    let value = 0;
    for (let i = offset + 1; i < offset + length; i++) value = value * 256 + header[i]!;
    return value;
  }
  const value = headerText(header, offset, length).trim();
  return value === "" ? 0 : Number.parseInt(value, 8);
}

/** A PAX extended header's records ("LEN key=value\n" each). */
export function parsePax(body: Buffer): Record<string, string> {
  const records: Record<string, string> = {};
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const length = Number(body.subarray(at, space).toString("ascii"));
    // A record that does not say how long it is (garbage) would never move `at`: stop.
    if (space < 0 || !Number.isInteger(length) || length <= 0) break;
    const record = body.subarray(space + 1, at + length - 1).toString("utf8");
    const equals = record.indexOf("=");
    if (equals > 0) records[record.slice(0, equals)] = record.slice(equals + 1);
    at += length;
  }
  return records;
}
