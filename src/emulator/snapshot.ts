// The state file's text (the format of state.ts) from the store's contents, whole or in
// slices. Slices let compaction write a large state a piece at a time, answering requests in
// between, instead of holding the event loop for the whole serialisation.
import {
  type FailRule,
  STATE_FORMAT,
  STATE_VERSION,
  type StoredDeployment,
  type StoredUpload,
  type TracingProject,
} from "./state.js";

/** What a snapshot is made of; an EmulatorState is one, and so is the store (store.ts). */
export interface StateContents {
  signing_key: string;
  seq: number;
  clock_offset_ms: number;
  deployments: Iterable<StoredDeployment>;
  uploads: Iterable<StoredUpload>;
  tracing_projects: Iterable<TracingProject>;
  fail_next: readonly FailRule[];
}

/** About how much text compaction serialises before it lets requests in again. */
export const SLICE_CHARS = 256 * 1024;

/**
 * The text in slices of about `sliceChars`. The scalars are read at the first slice and each
 * record when its turn comes, so while the slices are taken over several turns of the event
 * loop, the result mixes moments: compaction replays the journal written since its first
 * slice over it, which sets every record right (state-change.ts). The collections may change
 * between slices: Map iterators carry on past additions and removals.
 */
export function* snapshotSlices(
  contents: StateContents,
  journalFrom: number,
  sliceChars = SLICE_CHARS,
): Generator<string> {
  let slice =
    `{"format":${JSON.stringify(STATE_FORMAT)},"version":${STATE_VERSION}` +
    `,"signing_key":${JSON.stringify(contents.signing_key)},"seq":${contents.seq}` +
    `,"clock_offset_ms":${contents.clock_offset_ms},"journal_from":${journalFrom}`;
  const failNext = JSON.stringify(contents.fail_next);
  const lists: [string, Iterable<object>][] = [
    ["deployments", contents.deployments],
    ["uploads", contents.uploads],
    ["tracing_projects", contents.tracing_projects],
  ];
  for (const [name, items] of lists) {
    slice += `,"${name}":[`;
    let first = true;
    for (const item of items) {
      slice += first ? JSON.stringify(item) : `,${JSON.stringify(item)}`;
      first = false;
      if (slice.length >= sliceChars) {
        yield slice;
        slice = "";
      }
    }
    slice += "]";
  }
  yield `${slice},"fail_next":${failNext}}`;
}

/** The whole text at once (no other work can change the contents meanwhile). */
export function snapshotText(contents: StateContents, journalFrom: number): string {
  let text = "";
  for (const slice of snapshotSlices(contents, journalFrom, Number.POSITIVE_INFINITY)) text += slice;
  return text;
}
