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
import { LOG_LEVELS, type LogLevel, type RevisionStatus } from "../../model/enums.js";
import type { StoredDeployment, StoredRevision } from "../store/state.js";
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

/** What happened to a revision, in times: the same facts store/lifecycle.ts reads its status from. */
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

// Positions of the kinds of lines within a stream: fixed, so that an id never changes.
const FIRST_STAGE_BASE = 100;
const SECOND_STAGE_BASE = 200;
const SUCCESS_INDEX = 800;
const FAILURE_INDEX = 900;
const STOPPED_INDEX = 901;
const SHUTDOWN_BASE = 950;

/** The entries of one stream of one revision (build or deploy), each at its fixed position. */
class RevisionEntries {
  readonly timeline: Timeline;
  private readonly entries: LogEntry[] = [];
  private readonly key: Omit<LogKey, "ts" | "index">;

  constructor(
    private readonly context: LineContext,
    stream: number,
    /** Tells the streams' ids apart: `<revision id>-b100`, `<revision id>-d100`. */
    private readonly idPrefix: string,
  ) {
    this.timeline = new Timeline(context.revision);
    this.key = { seq: context.revision.seq, stream };
  }

  add(ts: number, index: number, line: Line): void {
    this.entries.push({ ...this.key, ts, index, id: `${this.idPrefix}${index}`, ...line });
  }

  /** `lines` spread evenly over `length` ms from `start`, at positions from `base`. */
  spread(lines: Line[], start: number, length: number, base: number): void {
    lines.forEach((line, k) => {
      this.add(start + Math.floor((k * length) / lines.length), base + k, line);
    });
  }

  /** A stage's lines, spread over the stage from `base`, if the revision got there. */
  stage(
    stage: RevisionStatus,
    lines: (context: LineContext, failing: boolean) => Line[],
    base: number,
  ): void {
    if (!this.timeline.reaches(stage)) return;
    const start = this.timeline.begins(this.context.revision.stages.indexOf(stage));
    const failing = this.timeline.failedDuring([stage]);
    this.spread(lines(this.context, failing), start, this.context.revision.stage_ms, base);
  }

  /**
   * How the stream ends when it ends early: the error that failed the revision (the fail
   * control's message, or the stage's default) if it failed before or during `stages`, or a
   * warning if a newer revision stopped it during them.
   */
  endings(stages: readonly RevisionStatus[], newer: StoredRevision | null, during: "build" | "deploy"): void {
    const { revision } = this.context;
    if (this.timeline.failedDuring([...CREATE_STAGES, ...stages])) {
      const message = revision.fail_message || defaultFailureMessage(this.context, revision.fail_at!);
      this.add(this.timeline.failsAt!, FAILURE_INDEX, { level: "ERROR", message });
    }
    if (this.timeline.stoppedDuring(stages)) {
      this.add(this.timeline.cutoff, STOPPED_INDEX, interruptedLine(newer?.id ?? null, during));
    }
  }

  /** What was logged up to when the revision was stopped (on its own clock, the rest is ahead). */
  stream(): LogStream {
    return new ListStream(this.entries.filter((entry) => entry.ts <= this.timeline.cutoff));
  }
}

/**
 * The build log of a revision: empty for container sources (nothing is built) and until the
 * revision reaches AWAITING_BUILD; a revision that fails before its build (CREATE_FAILED)
 * has the error alone, so that its build log says why.
 */
export function buildLog(context: LineContext, newer: StoredRevision | null): LogStream[] {
  const { revision } = context;
  if (!revision.stages.includes("BUILDING")) return [];
  const log = new RevisionEntries(context, BUILD_STREAM, `${revision.id}-b`);
  const { timeline } = log;
  log.stage("AWAITING_BUILD", fetchLines, FIRST_STAGE_BASE);
  log.stage("BUILDING", buildLines, SECOND_STAGE_BASE);
  if (timeline.reaches("AWAITING_DEPLOY")) {
    const ts = timeline.begins(revision.stages.indexOf("AWAITING_DEPLOY"));
    const took = (ts - timeline.begins(revision.stages.indexOf("AWAITING_BUILD"))) / 1000;
    log.add(ts, SUCCESS_INDEX, buildSucceededLine(took));
  }
  log.endings(BUILD_STAGES, newer, "build");
  return [log.stream()];
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
  const log = new RevisionEntries(context, DEPLOY_STREAM, `${revision.id}-d`);
  log.stage("AWAITING_DEPLOY", pullLines, FIRST_STAGE_BASE);
  log.stage("DEPLOYING", startLines, SECOND_STAGE_BASE);
  log.endings(DEPLOY_STAGES, newer, "deploy");
  const streams: LogStream[] = [];
  const deployedAt = log.timeline.deployedAt;
  if (deployedAt !== null) {
    log.add(deployedAt, SUCCESS_INDEX, servingLine(context));
    if (replacement) log.spread(shutdownLines(context, replacement.by), replacement.at, 0, SHUTDOWN_BASE);
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
  streams.unshift(log.stream());
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
