// Words as a POSIX shell reads them back, for the commands messages tell the user to run.

/** Bare when safe, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_./:@%+=,-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
