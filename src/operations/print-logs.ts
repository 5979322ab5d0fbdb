// `deploy logs`: a revision's runtime or build log, the newest entries or every one from a time
// on, printed as they come (text a line an entry; json, ndjson and id through the printer), and
// with --follow asked for again after each pause until Ctrl-C (or a build's end: follow-log.ts).
//
// The log is one revision's, as the documented endpoint gives it: --revision's, else for
// --build the latest revision's, and for the runtime log the revision that serves (the active
// one; the latest while none is). Once the run has fallen back to /v1 (api/log-endpoints.ts),
// that runtime log is the whole deployment's, every revision's, as /v1 gives it.
import type { LogSource } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { OperationError, UsageError } from "../errors.js";
import { paintFor } from "../log.js";
import type { LogEntry } from "../model/responses.js";
import { logLine } from "../output/log-lines.js";
import { joinLines } from "../output/safe-text.js";
import { FOLLOW_INTERVAL_MS, followLog } from "./follow-log.js";
import {
  entriesForward,
  type LogFilters,
  LogFollower,
  logReader,
  newestEntries,
  servingLog,
} from "./logs.js";
import { resolveDeployment, resolveDeploymentId, resolveRevisionId } from "./resolve.js";

export { FOLLOW_INTERVAL_MS };
export const DEFAULT_LIMIT = 100;

export interface LogsInput {
  build?: boolean;
  revision?: string;
  follow?: boolean;
  all?: boolean;
  level?: string;
  since?: TimeBound;
  until?: TimeBound;
  grep?: string;
  limit?: number;
}

/** `--since 15m` is relative to when the command runs; an ISO time is absolute. */
export type TimeBound = { ago: number } | { at: string };

export async function runLogs(ctx: Ctx, ref: string, options: LogsInput): Promise<void> {
  if (options.all && options.limit !== undefined)
    throw new UsageError("--all and --limit cannot be used together: --all prints every entry");
  // The printer's module loads while the deployment is asked for: the first line is not held
  // back by it (an error of its own still comes when it is needed).
  ctx.printer().catch(() => {});
  const { deploymentId, source } = await logSource(ctx, ref, options);
  const now = ctx.clock.now();
  const filters: LogFilters = {
    level: options.level,
    grep: options.grep,
    since: options.since ? isoOf(options.since, now) : undefined,
    until: options.until ? isoOf(options.until, now) : undefined,
  };
  const reader = await logReader(ctx);
  const writer = await logWriter(ctx);
  const followed = source ? { source, follower: new LogFollower(reader, source, filters) } : null;
  try {
    // A deployment with no revision has no runtime log yet: nothing to print (--follow waits for one).
    if (followed && (filters.since || options.all)) {
      // Oldest first, as they come: each page is printed while the next is asked for.
      for await (const page of entriesForward(reader, followed.source, filters, options.limit)) {
        if (options.follow) followed.follower.seen(page);
        await writer.push(page);
      }
    } else if (followed) {
      const newest = await newestEntries(reader, followed.source, filters, options.limit ?? DEFAULT_LIMIT);
      if (options.follow) followed.follower.seen(newest);
      await writer.push(newest);
    }
    if (options.follow) {
      await followLog(ctx, reader, { deploymentId, followed, filters }, writer.push);
    }
  } finally {
    // Ctrl-C while following ends the JSON array too: what was printed stays valid.
    await writer.end();
  }
}

/** The log to read; null for the runtime log of a deployment that has no revision yet. */
async function logSource(
  ctx: Ctx,
  ref: string,
  options: LogsInput,
): Promise<{ deploymentId: string; source: LogSource | null }> {
  if (options.revision) {
    const deploymentId = await resolveDeploymentId(ctx, ref);
    const revisionId = await resolveRevisionId(ctx, deploymentId, options.revision);
    return { deploymentId, source: { kind: options.build ? "build" : "runtime", deploymentId, revisionId } };
  }
  const deployment = await resolveDeployment(ctx, ref);
  if (!options.build) return { deploymentId: deployment.id, source: servingLog(deployment) };
  if (!deployment.latest_revision_id)
    throw new OperationError(`deployment ${deployment.name} has no revision, so no build log`, "no_revision");
  return {
    deploymentId: deployment.id,
    source: { kind: "build", deploymentId: deployment.id, revisionId: deployment.latest_revision_id },
  };
}

interface LogWriter {
  /** Writes a page of entries, at once. */
  push(entries: readonly LogEntry[]): Promise<void>;
  end(): Promise<void>;
}

/**
 * Text is written a line an entry, a page in one write, as it comes (a log is not a table, and
 * --follow must show each entry at once); the other formats go through the printer's list
 * writer (json streams its array, ndjson and id a line an entry).
 */
async function logWriter(ctx: Ctx): Promise<LogWriter> {
  const printer = await ctx.printer();
  if (printer.options.format !== "table") {
    const list = printer.listWriter<LogEntry>({ id: (entry) => entry.id, columns: [] });
    return {
      push: async (entries) => {
        for (const entry of entries) await list.push(entry);
      },
      end: () => list.end(),
    };
  }
  const paint = await paintFor(printer.options.color);
  return {
    // logLine made every piece of the entry visible; the colour codes are its own.
    push: async (entries) => {
      if (entries.length > 0) printer.styledLine(joinLines(entries.map((entry) => logLine(entry, paint))));
    },
    end: async () => {},
  };
}

function isoOf(bound: TimeBound, now: number): string {
  return "at" in bound ? bound.at : new Date(now - bound.ago).toISOString();
}
