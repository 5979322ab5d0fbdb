// `deploy logs`: a revision's runtime or build log, the newest entries or every one from a time
// on, printed as they come (text a line an entry; json, ndjson and id through the printer), and
// with --follow asked for again after each pause until Ctrl-C (or a build's end).
import { getRevision, type LogSource } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { InterruptedError, OperationError, UsageError } from "../errors.js";
import { paintFor } from "../log.js";
import { isTerminalRevisionStatus } from "../model/enums.js";
import type { LogEntry } from "../model/responses.js";
import { logLine } from "../output/log-lines.js";
import { joinLines } from "../output/safe-text.js";
import { entriesForward, type LogFilters, LogFollower, logReader, newestEntries } from "./logs.js";
import { resolveDeployment, resolveDeploymentId, resolveRevisionId } from "./resolve.js";

/**
 * The pause before each request of --follow: one request per pause and round trip, as the
 * public clients of the service make (they sleep 2 s between calls).
 */
export const FOLLOW_INTERVAL_MS = 2_000;
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
  const source = await logSource(ctx, ref, options);
  const now = ctx.clock.now();
  const filters: LogFilters = {
    level: options.level,
    grep: options.grep,
    since: options.since ? isoOf(options.since, now) : undefined,
    until: options.until ? isoOf(options.until, now) : undefined,
  };
  const reader = await logReader(ctx);
  const writer = await logWriter(ctx);
  const follower = new LogFollower(reader, source, filters);
  try {
    if (filters.since || options.all) {
      // Oldest first, as they come: each page is printed while the next is asked for.
      for await (const page of entriesForward(reader, source, filters, options.limit)) {
        if (options.follow) follower.seen(page);
        await writer.push(page);
      }
    } else {
      const newest = await newestEntries(reader, source, filters, options.limit ?? DEFAULT_LIMIT);
      if (options.follow) follower.seen(newest);
      await writer.push(newest);
    }
    if (options.follow) await follow(ctx, source, follower, writer.push);
  } finally {
    // Ctrl-C while following ends the JSON array too: what was printed stays valid.
    await writer.end();
  }
}

/**
 * Asks for new entries, one request after each pause; a runtime log ends on Ctrl-C, a build log
 * once its revision has finished. Whether it has is asked in place of a read, after a read that
 * brought nothing new, so that following a build costs no more requests than following a
 * runtime log: then one more read gets its last lines.
 */
async function follow(
  ctx: Ctx,
  source: LogSource,
  follower: LogFollower,
  print: (entries: readonly LogEntry[]) => Promise<void>,
): Promise<void> {
  const api = await ctx.api();
  let askIfFinished = false;
  try {
    for (;;) {
      await ctx.clock.sleep(FOLLOW_INTERVAL_MS, ctx.signal);
      if (source.kind === "build" && askIfFinished) {
        const revision = await getRevision(api, source.deploymentId, source.revisionId);
        if (isTerminalRevisionStatus(revision.status)) {
          await print(await follower.next());
          return;
        }
        askIfFinished = false;
        continue;
      }
      const fresh = await follower.next();
      await print(fresh);
      askIfFinished = fresh.length === 0;
    }
  } catch (error) {
    // Ctrl-C is how a follow ends: exit 130, nothing more to say.
    if (error instanceof InterruptedError) throw new InterruptedError("interrupted", { quiet: true });
    throw error;
  }
}

async function logSource(ctx: Ctx, ref: string, options: LogsInput): Promise<LogSource> {
  if (options.revision) {
    const deploymentId = await resolveDeploymentId(ctx, ref);
    const revisionId = await resolveRevisionId(ctx, deploymentId, options.revision);
    return { kind: options.build ? "build" : "runtime", deploymentId, revisionId };
  }
  if (!options.build) return { kind: "runtime", deploymentId: await resolveDeploymentId(ctx, ref) };
  const deployment = await resolveDeployment(ctx, ref);
  if (!deployment.latest_revision_id)
    throw new OperationError(`deployment ${deployment.name} has no revision, so no build log`, "no_revision");
  return { kind: "build", deploymentId: deployment.id, revisionId: deployment.latest_revision_id };
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
  const paint = paintFor(printer.options.color);
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
