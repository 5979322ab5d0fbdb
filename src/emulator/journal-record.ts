// How FILE.journal frames its records, so that a record cut short by a `kill -9` in the
// middle of an append is recognised and dropped, never half-applied:
//
//   record   = length | checksum | payload
//   length   = payload bytes, uint32 little-endian
//   checksum = CRC-32 of the four length bytes followed by the payload, uint32 little-endian
//   payload  = UTF-8 JSON
//
// The checksum covers the length as well as the payload, so that a run of zero bytes (a file
// system that grew the file but never wrote the data, after a power cut) never passes for an
// empty record.
//
// Only the end of a journal can be torn: appends are sequential, and each is on disk before
// the next begins. So a bad record that reaches the end of the file is the torn tail of the
// last append, which was never acknowledged, and is dropped; a bad record with more after it
// is damage, and the journal is refused rather than silently losing what follows.
import { crc32 } from "node:zlib";

export const RECORD_HEADER_BYTES = 8;

export function encodeRecord(payload: string): Buffer {
  const length = Buffer.byteLength(payload);
  const record = Buffer.allocUnsafe(RECORD_HEADER_BYTES + length);
  record.writeUInt32LE(length, 0);
  record.write(payload, RECORD_HEADER_BYTES, "utf8");
  record.writeUInt32LE(checksum(record, 0, length), 4);
  return record;
}

export interface DecodedRecords {
  /** The payloads of the whole records, in order. */
  payloads: string[];
  /** Bytes of whole records from the start: where the next append belongs. */
  end: number;
  /** Bytes after them: the torn tail of an append (0 when the journal ends cleanly). */
  torn: number;
}

/** A bad record with more data after it: not a torn append, but a damaged file. */
export class DamagedJournalError extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(`${reason} at byte ${offset}, with more records after it`);
  }
}

export function decodeRecords(data: Buffer): DecodedRecords {
  const payloads: string[] = [];
  let at = 0;
  while (at < data.length) {
    const problem = recordProblem(data, at);
    if (problem === null) {
      const length = data.readUInt32LE(at);
      payloads.push(data.toString("utf8", at + RECORD_HEADER_BYTES, at + RECORD_HEADER_BYTES + length));
      at += RECORD_HEADER_BYTES + length;
      continue;
    }
    if (problem.reachesEnd || onlyZeros(data, at)) return { payloads, end: at, torn: data.length - at };
    throw new DamagedJournalError(at, problem.reason);
  }
  return { payloads, end: at, torn: 0 };
}

function recordProblem(data: Buffer, at: number): { reason: string; reachesEnd: boolean } | null {
  if (data.length - at < RECORD_HEADER_BYTES)
    return { reason: "an incomplete record header", reachesEnd: true };
  const length = data.readUInt32LE(at);
  const end = at + RECORD_HEADER_BYTES + length;
  if (end > data.length) return { reason: "a record longer than the rest of the file", reachesEnd: true };
  if (data.readUInt32LE(at + 4) !== checksum(data, at, length))
    return { reason: "a record whose checksum does not match", reachesEnd: end === data.length };
  return null;
}

function checksum(data: Buffer, at: number, length: number): number {
  const payload = data.subarray(at + RECORD_HEADER_BYTES, at + RECORD_HEADER_BYTES + length);
  return crc32(payload, crc32(data.subarray(at, at + 4)));
}

function onlyZeros(data: Buffer, from: number): boolean {
  for (let i = from; i < data.length; i++) if (data[i] !== 0) return false;
  return true;
}
