// Build and runtime logs as a pure function of stored state and the clock. Nothing is stored
// per line: a revision's log is laid out from its history (when it was created, its stage
// length and plan, where it failed or was stopped, when a newer revision replaced it), so the
// state file does not grow with time, a log grows as the clock moves, and a line's `id` and
// timestamp are the same on every read (and after a restart).
//
// A log is a set of streams, each in time order:
// - a revision's build stream (built sources): the lines of AWAITING_BUILD and BUILDING, each
//   stage's lines spread over its duration, then "Build succeeded", or the error that failed
//   it, or a warning that a newer revision interrupted it;
// - its deploy stream: AWAITING_DEPLOY and DEPLOYING lines, "serving" once DEPLOYED, the
//   shutdown once a newer revision is DEPLOYED in its place (or the error, or the warning);
// - its request stream while it serves: one line every REQUEST_PERIOD_MS, going round a short
//   cycle, computed by arithmetic so that a log days long costs no more than a short one.
//
// Every entry has a key (timestamp, revision creation order, stream, position) that orders
// all entries of all logs totally; paging (log-query.ts) resumes after a key.
import { LOG_LEVELS, type LogLevel, type RevisionStatus } from "../model/enums.js";
import {
  buildLines,
  buildSucceededLine,
  defaultFailureMessage,
  fetchLines,
  interruptedLine,
  type Line,
  type LineContext,
  pullLines,
  REQUEST_PERIOD_MS,
  requestCycle,
  servingLine,
  shutdownLines,
  startLines,
} from "./log-lines.js";
import type { StoredDeployment, StoredRevision } from "./state.js";
import type { TarballSummary } from "./tarball-summary.js";

/** Streams in the order entries of one revision at the same instant are listed. */
export const BUILD_STREAM = 0;
export const DEPLOY_STREAM = 1;
export const REQUEST_STREAM = 2;

/** Where an entry stands among all entries: compared field by field. */
export interface LogKey {
  ts: number;
  /** The revision's creation order. */
  seq: number;
  stream: number;
  /** Position within the stream (fixed per kind of line, so ids never shift). */
  index: number;
}

export interface LogEntry extends LogKey {
  id: string;
  level: LogLevel;
  message: string;
}

export interface LogFilter {
  order: "asc" | "desc";
  /** Only entries strictly after this key in `order` (the page before ended there). */
  after: LogKey | null;
  /** Timestamps from `from` to `to`, both included; `to` is never past the emulator's now. */
  from: number;
  to: number;
  /** Index in LOG_LEVELS of the least severe level wanted. */
  minLevel: number;
  /** Lower-case text the message must contain (case-insensitive match). */
  text: string | null;
  limit: number;
}

export interface LogStream {
  /** At most `filter.limit` entries passing `filter`, in `filter.order`. */
  take(filter: LogFilter): LogEntry[];
}

export function compareKeys(a: LogKey, b: LogKey): number {
  return a.ts - b.ts || a.seq - b.seq || a.stream - b.stream || a.index - b.index;
}

function passes(line: Line, filter: LogFilter): boolean {
  return (
    LOG_LEVELS.indexOf(line.level) >= filter.minLevel &&
    (filter.text === null || line.message.toLowerCase().includes(filter.text))
  );
}

/** A stream of a few dozen entries at most: listed whole, then filtered. */
class ListStream implements LogStream {
  constructor(private readonly entries: LogEntry[]) {}

  take(filter: LogFilter): LogEntry[] {
    const direction = filter.order === "asc" ? 1 : -1;
    return this.entries
      .filter(
        (entry) =>
          entry.ts >= filter.from &&
          entry.ts <= filter.to &&
          passes(entry, filter) &&
          (filter.after === null || direction * compareKeys(entry, filter.after) > 0),
      )
      .sort((a, b) => direction * compareKeys(a, b))
      .slice(0, filter.limit);
  }
}

/**
 * Line k (k >= 1) at `start + k * period`, before `endBefore`, its text the cycle's line
 * k mod cycle length. Which lines of the cycle pass a filter is known up front, so a page
 * walks at most `limit` cycles, however long the stream.
 */
class PeriodicStream implements LogStream {
  constructor(
    private readonly revisionId: string,
    private readonly seq: number,
    private readonly start: number,
    private readonly period: number,
    private readonly endBefore: number,
    private readonly cycle: Line[],
  ) {}

  take(filter: LogFilter): LogEntry[] {
    const wanted = this.cycle.map((line) => passes(line, filter));
    if (!wanted.includes(true)) return [];
    let low = Math.max(1, Math.ceil((filter.from - this.start) / this.period));
    let high = Math.floor((Math.min(filter.to, this.endBefore - 1) - this.start) / this.period);
    if (filter.after && filter.order === "asc") low = Math.max(low, this.firstAfter(filter.after));
    if (filter.after && filter.order === "desc") high = Math.min(high, this.lastBefore(filter.after));
    const out: LogEntry[] = [];
    const size = this.cycle.length;
    if (filter.order === "asc") {
      for (let k = low; k <= high && out.length < filter.limit; k++)
        if (wanted[k % size]) out.push(this.entry(k));
    } else {
      for (let k = high; k >= low && out.length < filter.limit; k--)
        if (wanted[k % size]) out.push(this.entry(k));
    }
    return out;
  }

  private key(k: number): LogKey {
    return { ts: this.start + k * this.period, seq: this.seq, stream: REQUEST_STREAM, index: k };
  }

  private entry(k: number): LogEntry {
    const line = this.cycle[k % this.cycle.length]!;
    return { ...this.key(k), id: `${this.revisionId}-r${k}`, level: line.level, message: line.message };
  }

  private firstAfter(after: LogKey): number {
    const k = Math.ceil((after.ts - this.start) / this.period);
    return compareKeys(this.key(k), after) > 0 ? k : k + 1;
  }

  private lastBefore(after: LogKey): number {
    const k = Math.floor((after.ts - this.start) / this.period);
    return compareKeys(this.key(k), after) < 0 ? k : k - 1;
  }
}

// --- a revision's history ------------------------------------------------------------------

/** What happened to a revision, in times: the same facts lifecycle.ts reads its status from. */
class Timeline {
  readonly failIndex: number;
  /** When it failed (absent: it did not, or has not yet). */
  readonly failsAt: number | null;
  /** When it became DEPLOYED (it may be in the future). */
  readonly deployedAt: number | null;
  /** Stage index it was in when a newer revision stopped it. */
  readonly stoppedIn: number | null;

  constructor(private readonly revision: StoredRevision) {
    const { stages, ended } = revision;
    this.failIndex = revision.fail_at ? stages.indexOf(revision.fail_at) : -1;
    // A revision stopped by a newer one had not failed yet (supersede leaves ended ones alone).
    this.failsAt = this.failIndex >= 0 && !ended ? this.begins(this.failIndex + 1) : null;
    this.deployedAt = this.failIndex < 0 && !ended ? this.begins(stages.length) : null;
    this.stoppedIn = ended
      ? Math.min(
          stages.length - 1,
          revision.stage_ms > 0 ? Math.floor((ended.at - revision.created_at) / revision.stage_ms) : 0,
        )
      : null;
  }

  begins(stageIndex: number): number {
    return this.revision.created_at + stageIndex * this.revision.stage_ms;
  }

  /** It got to this stage (or will, on its own clock): not failed before it, not stopped before it. */
  reaches(stage: RevisionStatus): boolean {
    const index = this.revision.stages.indexOf(stage);
    if (index < 0) return false;
    if (this.failIndex >= 0 && index > this.failIndex) return false;
    return this.revision.ended === null || this.begins(index) <= this.revision.ended.at;
  }

  /** Nothing of it is logged after it was stopped. */
  get cutoff(): number {
    return this.revision.ended?.at ?? Number.POSITIVE_INFINITY;
  }

  stoppedDuring(stages: readonly RevisionStatus[]): boolean {
    return this.stoppedIn !== null && stages.includes(this.revision.stages[this.stoppedIn]!);
  }

  failedDuring(stages: readonly RevisionStatus[]): boolean {
    return this.failsAt !== null && stages.includes(this.revision.fail_at!);
  }
}

const CREATE_STAGES: readonly RevisionStatus[] = ["CREATING", "QUEUED"];
const BUILD_STAGES: readonly RevisionStatus[] = ["AWAITING_BUILD", "BUILDING"];
const DEPLOY_STAGES: readonly RevisionStatus[] = ["AWAITING_DEPLOY", "DEPLOYING"];

/** Adds entries for `lines`, spread evenly over the stage that starts at `start`. */
function spread(
  into: LogEntry[],
  lines: Line[],
  at: { start: number; length: number; key: Omit<LogKey, "ts" | "index">; idPrefix: string; base: number },
): void {
  lines.forEach((line, k) => {
    const index = at.base + k;
    into.push({
      ts: at.start + Math.floor((k * at.length) / lines.length),
      ...at.key,
      index,
      id: `${at.idPrefix}${index}`,
      ...line,
    });
  });
}

// Positions of the kinds of lines within a stream: fixed, so that an id never changes.
const FIRST_STAGE_BASE = 100;
const SECOND_STAGE_BASE = 200;
const SUCCESS_INDEX = 800;
const FAILURE_INDEX = 900;
const STOPPED_INDEX = 901;
const SHUTDOWN_BASE = 950;

/** The ERROR line that ends a failed revision's log: the fail control's message, or the stage's default. */
function failureEntry(
  context: LineContext,
  timeline: Timeline,
  key: Pick<LogKey, "seq" | "stream">,
  idPrefix: string,
): LogEntry {
  const { revision } = context;
  const message = revision.fail_message || defaultFailureMessage(context, revision.fail_at!);
  return {
    ...key,
    ts: timeline.failsAt!,
    index: FAILURE_INDEX,
    id: `${idPrefix}${FAILURE_INDEX}`,
    level: "ERROR",
    message,
  };
}

/**
 * The build log of a revision: empty for container sources (nothing is built) and until the
 * revision reaches AWAITING_BUILD; a revision that fails before its build (CREATE_FAILED)
 * has the error alone, so that its build log says why.
 */
export function buildLog(context: LineContext, newer: StoredRevision | null): LogStream[] {
  const { revision } = context;
  if (!revision.stages.includes("BUILDING")) return [];
  const timeline = new Timeline(revision);
  const key = { seq: revision.seq, stream: BUILD_STREAM };
  const idPrefix = `${revision.id}-b`;
  const entries: LogEntry[] = [];
  const length = revision.stage_ms;
  if (timeline.reaches("AWAITING_BUILD")) {
    const start = timeline.begins(revision.stages.indexOf("AWAITING_BUILD"));
    spread(entries, fetchLines(context), { start, length, key, idPrefix, base: FIRST_STAGE_BASE });
  }
  if (timeline.reaches("BUILDING")) {
    const start = timeline.begins(revision.stages.indexOf("BUILDING"));
    spread(entries, buildLines(context), { start, length, key, idPrefix, base: SECOND_STAGE_BASE });
  }
  if (timeline.reaches("AWAITING_DEPLOY")) {
    const ts = timeline.begins(revision.stages.indexOf("AWAITING_DEPLOY"));
    const took = (ts - timeline.begins(revision.stages.indexOf("AWAITING_BUILD"))) / 1000;
    entries.push({
      ...key,
      ts,
      index: SUCCESS_INDEX,
      id: `${idPrefix}${SUCCESS_INDEX}`,
      ...buildSucceededLine(took),
    });
  }
  if (timeline.failedDuring([...CREATE_STAGES, ...BUILD_STAGES])) {
    entries.push(failureEntry(context, timeline, key, idPrefix));
  }
  if (timeline.stoppedDuring(BUILD_STAGES)) {
    const line = interruptedLine(newer?.id ?? null, "build");
    entries.push({
      ...key,
      ts: timeline.cutoff,
      index: STOPPED_INDEX,
      id: `${idPrefix}${STOPPED_INDEX}`,
      ...line,
    });
  }
  return [new ListStream(entries.filter((entry) => entry.ts <= timeline.cutoff))];
}

/** When a serving revision stopped serving: a newer one became DEPLOYED in its place. */
export interface Replacement {
  at: number;
  by: string;
}

/**
 * The runtime log of a revision: its deploy stages, "serving" and the request lines while
 * it serves, and its shutdown once `replacement` (if any) took over; or the error that failed
 * it (a revision that fails before its deploy has the error alone, as in buildLog).
 */
export function deployLog(
  context: LineContext,
  newer: StoredRevision | null,
  replacement: Replacement | null,
): LogStream[] {
  const { revision } = context;
  const timeline = new Timeline(revision);
  const key = { seq: revision.seq, stream: DEPLOY_STREAM };
  const idPrefix = `${revision.id}-d`;
  const entries: LogEntry[] = [];
  const length = revision.stage_ms;
  if (timeline.reaches("AWAITING_DEPLOY")) {
    const start = timeline.begins(revision.stages.indexOf("AWAITING_DEPLOY"));
    spread(entries, pullLines(context), { start, length, key, idPrefix, base: FIRST_STAGE_BASE });
  }
  if (timeline.reaches("DEPLOYING")) {
    const start = timeline.begins(revision.stages.indexOf("DEPLOYING"));
    spread(entries, startLines(context), { start, length, key, idPrefix, base: SECOND_STAGE_BASE });
  }
  if (timeline.failedDuring([...CREATE_STAGES, ...DEPLOY_STAGES])) {
    entries.push(failureEntry(context, timeline, key, idPrefix));
  }
  if (timeline.stoppedDuring(DEPLOY_STAGES)) {
    const line = interruptedLine(newer?.id ?? null, "deploy");
    entries.push({
      ...key,
      ts: timeline.cutoff,
      index: STOPPED_INDEX,
      id: `${idPrefix}${STOPPED_INDEX}`,
      ...line,
    });
  }
  const streams: LogStream[] = [];
  const deployedAt = timeline.deployedAt;
  if (deployedAt !== null) {
    entries.push({
      ...key,
      ts: deployedAt,
      index: SUCCESS_INDEX,
      id: `${idPrefix}${SUCCESS_INDEX}`,
      ...servingLine(context),
    });
    if (replacement) {
      spread(entries, shutdownLines(context, replacement.by), {
        start: replacement.at,
        length: 0,
        key,
        idPrefix,
        base: SHUTDOWN_BASE,
      });
    }
    const endBefore = replacement?.at ?? Number.POSITIVE_INFINITY;
    streams.push(
      new PeriodicStream(
        revision.id,
        revision.seq,
        deployedAt,
        REQUEST_PERIOD_MS,
        endBefore,
        requestCycle(context),
      ),
    );
  }
  streams.unshift(new ListStream(entries.filter((entry) => entry.ts <= timeline.cutoff)));
  return streams;
}

/**
 * For each revision that is (or will be) DEPLOYED, the first later revision to be DEPLOYED
 * after it, which replaces it: the active revision is always the newest DEPLOYED one.
 */
export function replacements(revisions: readonly StoredRevision[]): Map<string, Replacement> {
  const result = new Map<string, Replacement>();
  let next: Replacement | null = null;
  for (let i = revisions.length - 1; i >= 0; i--) {
    const revision = revisions[i]!;
    const deployedAt = new Timeline(revision).deployedAt;
    if (deployedAt === null) continue;
    if (next) result.set(revision.id, next);
    if (!next || deployedAt < next.at) next = { at: deployedAt, by: revision.id };
  }
  return result;
}

/** The runtime log of a whole deployment: every revision's, merged. */
export function deploymentDeployLog(deployment: StoredDeployment): LogStream[] {
  const replaced = replacements(deployment.revisions);
  return deployment.revisions.flatMap((revision, i) =>
    deployLog(
      { deployment, revision, tarball: null },
      deployment.revisions[i + 1] ?? null,
      replaced.get(revision.id) ?? null,
    ),
  );
}

/** Context for one revision's logs; `tarball` only matters to internal_source build logs. */
export function revisionContext(
  deployment: StoredDeployment,
  revision: StoredRevision,
  tarball: TarballSummary | null,
): { context: LineContext; newer: StoredRevision | null } {
  const index = deployment.revisions.indexOf(revision);
  return { context: { deployment, revision, tarball }, newer: deployment.revisions[index + 1] ?? null };
}
