// What can go wrong with a source before anything is sent: source.ts turns each into a usage
// error that says what to do.

/** The gzipped tarball passed the limit. `bytes` is a lower bound when `atLeast`. */
export class TooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly limit: number,
    readonly atLeast: boolean,
    /** For a directory: its biggest files, to say what to exclude. */
    readonly largest: readonly { path: string; size: number }[] = [],
    readonly contentBytes: number | null = null,
  ) {
    super(`the tarball is ${atLeast ? "more than " : ""}${bytes} bytes, over the limit of ${limit}`);
  }
}

/** A local problem with the source: unreadable, changed while packing, not a tarball. */
export class SourceError extends Error {}

/** The walk found no file to pack; `walk`: what its ignore files left out (a WalkResult). */
export class NothingToPackError extends Error {
  constructor(readonly walk: { ignored: readonly string[]; dockerignored: readonly string[] }) {
    super("no files to pack");
  }
}
