// Byte counts for people: upload sizes, read limits, the --debug trace.

/** A short human form in binary units: 512 B, 1.5 KiB, 100 MiB, 2.3 GiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = value >= 100 || Number.isInteger(value) ? String(Math.round(value)) : value.toFixed(1);
  return `${text.replace(/\.0$/, "")} ${units[unit]}`;
}
