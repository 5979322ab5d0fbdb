// The one "did you mean": the candidate nearest a mistyped word (a field, a key, a command),
// when it is near enough to be what was meant. Case does not count.

/** The nearest candidate within an edit distance of max(2, a third of the word), or null. */
export function closest(word: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : null;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const saved = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = saved;
    }
  }
  return row[b.length]!;
}

/**
 * Whether `name` is a near miss of `other`, another name that was likely meant: one that
 * differs only in case, or by one character inserted, removed or replaced, case aside. A
 * difference only in digits is not one (agent-1 and agent-2, NAME-pr-1 and NAME-pr-12 are
 * different on purpose), nor is the same name.
 */
export function isNearMiss(name: string, other: string): boolean {
  if (name === other) return false;
  const a = name.toLowerCase();
  const b = other.toLowerCase();
  if (a === b) return true;
  const changed = singleEdit(a, b);
  return changed !== null && !changed.every((character) => character >= "0" && character <= "9");
}

/** The characters one edit inserts, removes or replaces to turn `a` into `b`; null unless one edit does. */
function singleEdit(a: string, b: string): string[] | null {
  if (Math.abs(a.length - b.length) > 1) return null;
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  if (a.length === b.length) return a.slice(at + 1) === b.slice(at + 1) ? [a[at]!, b[at]!] : null;
  const [longer, shorter] = a.length > b.length ? [a, b] : [b, a];
  return longer.slice(at + 1) === shorter.slice(at) ? [longer[at]!] : null;
}
