// How a push shows itself on stderr. On a terminal: one line, rewritten as bytes go
// ("pushing: 2/5 blobs, 12 MiB of 40 MiB"), cleared at the end. Anywhere else (a CI log, a
// pipe): a line per blob when it is done, and per retry. At the end, the caller says the
// summary (pushSummary): how much was sent, and how much was in the registry already.
import type { OutStream } from "../io.js";
import { styled, visible, writeText } from "../output/safe-text.js";
import { formatBytes } from "../util/bytes.js";
import type { PlanBlob, PlanManifest, PushPlan } from "./plan.js";
import { planBytes } from "./plan.js";
import type { BlobState, PushProgress, PushResult } from "./push.js";

/** The line is redrawn at most this often. */
const REDRAW_MS = 100;

export interface ProgressTarget {
  stderr: OutStream;
  /** A terminal that shows a live line: stderr a TTY, not CI, TERM not dumb. */
  live: boolean;
  /** A line for people (the logger's info). */
  info: (line: string) => void;
  now: () => number;
}

export interface PushDisplay extends PushProgress {
  /** The live line cleared. */
  stop(): void;
}

/** "4 blobs, 2 uploaded (12 MiB), 2 already in the registry (3 MiB)". */
export function pushSummary(plan: PushPlan, result: PushResult): string {
  const { uploaded, skipped } = result;
  const parts = [`${uploaded.blobs} uploaded (${formatBytes(uploaded.bytes)})`];
  if (skipped.blobs) parts.push(`${skipped.blobs} already in the registry (${formatBytes(skipped.bytes)})`);
  return `${plan.blobs.length} blobs, ${parts.join(", ")}`;
}

export function pushDisplay(plan: PushPlan, target: ProgressTarget): PushDisplay {
  const total = planBytes(plan);
  const sent = new Map<string, number>();
  let finished = 0;
  let drawnAt = 0;
  let drawn = false;

  const clear = () => {
    if (drawn) writeText(target.stderr, styled`\r\u001b[K`);
    drawn = false;
  };
  const draw = (force = false) => {
    if (!target.live) return;
    const now = target.now();
    if (!force && now - drawnAt < REDRAW_MS) return;
    drawnAt = now;
    let bytes = 0;
    for (const value of sent.values()) bytes += value;
    writeText(
      target.stderr,
      styled`\r\u001b[Kpushing: ${finished}/${plan.blobs.length} blobs, ${formatBytes(bytes)} of ${formatBytes(total)}`,
    );
    drawn = true;
  };
  /** A line that stays: the live line is cleared first and drawn again after. */
  const say = (line: string) => {
    const wasDrawn = drawn;
    clear();
    target.info(line);
    if (wasDrawn) draw(true);
  };
  const describe = (blob: PlanBlob) =>
    `${blob.label} ${blob.digest.slice(0, 19)} (${formatBytes(blob.size)})`;

  return {
    blob(blob: PlanBlob, state: BlobState) {
      if (state === "uploading") return draw(true);
      finished++;
      sent.set(blob.digest, blob.size);
      if (!target.live)
        say(`  ${describe(blob)}: ${state === "exists" ? "already in the registry" : "uploaded"}`);
      draw(true);
    },
    bytes(blob: PlanBlob, bytes: number) {
      sent.set(blob.digest, bytes);
      draw();
    },
    manifest(manifest: PlanManifest) {
      if (!target.live && plan.manifests.length > 1)
        say(`  manifest ${manifest.digest.slice(0, 19)}: stored`);
    },
    retry(what: string, error: Error, attempt: number, delayMs: number) {
      say(
        `  retrying to ${what} in ${Math.ceil(delayMs / 100) / 10} s (attempt ${attempt}): ${visible(error.message)}`,
      );
    },
    stop: clear,
  };
}
