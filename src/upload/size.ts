// Byte sizes as `--max-size` accepts them and as messages show them.
//
// A bare number is bytes. Binary units: K, M, G (and KiB, MiB, GiB) are powers of 1024;
// decimal units: KB, MB, GB are powers of 1000. Case does not matter; `B` may follow.

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gib: 1024 ** 3,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
};

const SIZE = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i;

export const SIZE_HELP = "e.g. 50MiB, 1GiB, 500K (binary) or 20MB (decimal), or a number of bytes";

/** Bytes, or null when the text is not a size (or is zero). */
export function parseSize(text: string): number | null {
  const match = SIZE.exec(text.trim());
  if (!match) return null;
  const unit = UNITS[match[2]!.toLowerCase()];
  if (unit === undefined) return null;
  const bytes = Math.floor(Number(match[1]) * unit);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : null;
}

export { formatBytes } from "../util/bytes.js";
