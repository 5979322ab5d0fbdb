// The state file's text (the format of state.ts) from the store's contents.
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

export function snapshotText(contents: StateContents): string {
  let text =
    `{"format":${JSON.stringify(STATE_FORMAT)},"version":${STATE_VERSION}` +
    `,"signing_key":${JSON.stringify(contents.signing_key)},"seq":${contents.seq}` +
    `,"clock_offset_ms":${contents.clock_offset_ms}`;
  const lists: [string, Iterable<object>][] = [
    ["deployments", contents.deployments],
    ["uploads", contents.uploads],
    ["tracing_projects", contents.tracing_projects],
  ];
  for (const [name, items] of lists) {
    text += `,"${name}":[`;
    let first = true;
    for (const item of items) {
      text += first ? JSON.stringify(item) : `,${JSON.stringify(item)}`;
      first = false;
    }
    text += "]";
  }
  return `${text},"fail_next":${JSON.stringify(contents.fail_next)}}`;
}
