// Packing a large project, or reading a long list with pages in flight, allocates quickly and
// keeps much alive for a while (the walk's entries, pages on their way), and V8 answers by
// growing its young generation, up to 32 MB here, which it keeps. Measured: a quarter of the
// peak memory of packing 10,000 files (98 MB, 77 MB without it; the goal in
// docs/performance.md is 80 MB at any size), and of `list --all` of 10,000 deployments with 24
// pages in flight (100 MB, 80 MB without it, and faster). Keeping the young generation at its
// first size costs more frequent minor collections, which this work does not notice.
//
// The V8 flag is set at run time, which V8 allows for this one (it is read at each resize), and
// only on the V8 versions it was tried on (Node 20 to 26): an unknown flag would be reported on
// stderr. It is set back to V8's default as soon as the work is done, because V8 stamps the
// flags into the code cache bin/cpctl.cjs saves at exit and refuses a cache stamped with
// other flags: left set, every chunk compiled after it was compiled afresh on every run and
// its cache written again at exit (about 30 ms of a 50-file `deploy upload`).
//
// node:v8 is loaded on first use: imported at the top, it and the modules it needs came with
// every command (this module sits under api/pages.ts), about 2 ms of each start.

const TRIED_V8_MAJORS = new Set([11, 12, 13, 14]);
/** V8's default for the flag (unchanged from V8 11 to 14). */
const DEFAULT_GROWTH_FACTOR = 2;

let holders = 0;

/**
 * Keeps the young generation small until the returned function is called (each caller calls
 * it once, in a `finally`; overlapping callers share the setting until the last lets go).
 */
export function keepYoungGenerationSmall(): () => void {
  const major = Number(process.versions.v8.split(".")[0]);
  if (!TRIED_V8_MAJORS.has(major)) return () => {};
  const { setFlagsFromString } = process.getBuiltinModule("node:v8");
  if (holders++ === 0) setFlagsFromString("--semi-space-growth-factor=1");
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holders === 0) setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
  };
}
